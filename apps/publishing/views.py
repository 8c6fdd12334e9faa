"""Public OAuth pages (no API credentials: the state authenticates them).

- ``GET /oauth/<platform>/callback``: the provider returns here; 302 to the client's
  redirect URI with ``profileId`` or ``error`` (400 page when the state is unknown).
- ``GET|POST /oauth/sandbox/<platform>/authorize``: the sandbox consent page.
- ``GET /oauth/sandbox/avatar/<id>.png``: sandbox profile pictures.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_GET, require_http_methods

from apps.profiles.models import Platform

from . import oauth, sandbox
from .oauth_backends import callback_url

AVATAR_KEY = re.compile(r"^sbx_[0-9a-f]{24}$")


def _no_store(response: HttpResponse) -> HttpResponse:
    # The URL carried an authorization code: keep it out of caches and Referer headers.
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


def _error_page(request, title: str, message: str, status: int = 400) -> HttpResponse:
    return _no_store(
        render(request, "publishing/oauth_error.html", {"title": title, "message": message}, status=status)
    )


@require_GET
def oauth_callback(request, platform: str):
    params = request.GET
    try:
        _profile, redirect_url = oauth.oauth_complete(
            platform=platform,
            state=params.get("state", ""),
            code=params.get("code", ""),
            error=params.get("error") or None,
            error_description=params.get("error_description", ""),
        )
    except oauth.UnknownState:
        return _error_page(
            request, "Connection failed",
            "This connection link is unknown. Start connecting the profile again from the application.",
        )
    return _no_store(HttpResponseRedirect(redirect_url))


def _platform_label(platform: str) -> str:
    try:
        return Platform(platform).label
    except ValueError:
        return platform


@csrf_protect
@require_http_methods(["GET", "POST"])
def sandbox_authorize(request, platform: str):
    state = request.GET.get("state") or request.POST.get("state") or ""
    row = oauth.state_for_consent(platform=platform, state=state)
    if row is None:
        return _error_page(
            request, "Authorization failed", "This authorization request is unknown, expired or already used."
        )
    context = {
        "app_name": getattr(settings, "OAUTH_APP_NAME", "Postforge"),
        "platform": platform,
        "platform_label": _platform_label(platform),
        "organization": row.organization.name,
        "scopes": sandbox.scopes(platform),
        "state": row.state,
        "username": sandbox.default_username(row.organization, platform),
        "error": "",
    }
    if request.method == "GET":
        return _no_store(render(request, "publishing/sandbox_consent.html", context))

    callback = callback_url(platform)
    if request.POST.get("action") != "authorize":
        query = {"error": "access_denied", "error_description": "The user denied the authorization.", "state": row.state}
        return _no_store(HttpResponseRedirect(f"{callback}?{urlencode(query)}"))
    username = (request.POST.get("username") or "").strip()
    if not sandbox.USERNAME.match(username):
        context.update(username=username, error="Use 1 to 30 letters, digits, dots or underscores.")
        return _no_store(render(request, "publishing/sandbox_consent.html", context, status=400))
    code = sandbox.issue_code(platform=platform, state=row.state, username=username)
    return _no_store(HttpResponseRedirect(f"{callback}?{urlencode({'code': code, 'state': row.state})}"))


@require_GET
def sandbox_avatar(request, key: str):
    if not AVATAR_KEY.match(key):
        raise Http404("Unknown avatar.")
    response = HttpResponse(sandbox.avatar_png(key), content_type="image/png")
    response["Cache-Control"] = "public, max-age=86400"
    return response
