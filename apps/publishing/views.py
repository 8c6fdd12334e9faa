"""Public OAuth pages (no API credentials: the state authenticates them).

- ``GET /oauth/<platform>/callback``: the provider returns here; 302 to the client's
  redirect URI with ``profileId`` or ``error``. Refusals that must not redirect (unknown,
  replayed or cross-platform state, a redirect origin no longer allowed, the credential that
  began the attempt revoked or expired) are a 4xx page, or the family's JSON error when the
  request asks for JSON.
- ``GET|POST /oauth/sandbox/<platform>/authorize``: the sandbox consent page.
- ``GET /oauth/sandbox/avatar/<id>.png``: sandbox profile pictures.
- ``GET /sandbox/<platform>/<user>/<id>``: a sandbox post as its platform shows it.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_GET, require_http_methods

from apps.core.request_id import current_request_id
from apps.platforms.preview import MediaView, post_preview
from apps.profiles.models import Platform

from . import oauth, sandbox, selectors
from .oauth_backends import callback_url

AVATAR_KEY = re.compile(r"^sbx_[0-9a-f]{24}$")
_V1_CODES = {400: "VALIDATION_ERROR", 403: "AUTHORIZATION_ERROR", 409: "CONFLICT"}


def _no_store(response: HttpResponse, *, referrer: str = "no-referrer") -> HttpResponse:
    # The URL carried an authorization code or a state: keep it out of caches and out of
    # other sites' Referer headers.
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = referrer
    return response


def _consent_page(response: HttpResponse) -> HttpResponse:
    """The consent page holds a form posted to this same origin: `same-origin` keeps the state
    out of third-party referrers and still lets the browser send the real `Origin` with the
    post (with `no-referrer` Chromium sends `Origin: null` and Django's CSRF check refuses it)."""
    return _no_store(response, referrer="same-origin")


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
        return _refusal(
            request,
            oauth.CallbackRefused(
                400,
                "unknown_state",
                "This connection link is unknown. Start connecting the profile again from the application.",
            ),
        )
    except oauth.CallbackRefused as exc:
        return _refusal(request, exc)
    return _no_store(HttpResponseRedirect(redirect_url))


def _wants_json(request) -> bool:
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/html" not in accept


def _refusal(request, exc: oauth.CallbackRefused) -> HttpResponse:
    """A refused callback: the error page, or the family's JSON error for a client asking for JSON."""
    if not _wants_json(request):
        return _error_page(request, "Connection failed", exc.message, status=exc.status)
    if exc.family == "api":
        body = {"error": exc.message, "details": {"code": exc.code}}
    else:
        body = {
            "error": {
                "code": _V1_CODES.get(exc.status, "VALIDATION_ERROR"),
                "message": exc.message,
                "details": {"reason": exc.code},
            },
            "requestId": current_request_id(),
        }
    return _no_store(JsonResponse(body, status=exc.status))


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
        return _consent_page(render(request, "publishing/sandbox_consent.html", context))

    callback = callback_url(platform)
    if request.POST.get("action") != "authorize":
        query = {
            "error": "access_denied",
            "error_description": "The user denied the authorization.",
            "state": row.state,
        }
        return _no_store(HttpResponseRedirect(f"{callback}?{urlencode(query)}"))
    username = (request.POST.get("username") or "").strip()
    if not sandbox.USERNAME.match(username):
        context.update(username=username, error="Use 1 to 30 letters, digits, dots or underscores.")
        return _consent_page(render(request, "publishing/sandbox_consent.html", context, status=400))
    code = sandbox.issue_code(platform=platform, state=row.state, username=username)
    return _no_store(HttpResponseRedirect(f"{callback}?{urlencode({'code': code, 'state': row.state})}"))


@require_GET
def sandbox_post(request, platform: str, username: str, external_id: str):
    """`/sandbox/<platform>/<user>/<id>`: a post the sandbox accepted, as its platform shows it
    (the page a sandbox publication's `url` opens)."""
    post, variant = selectors.sandbox_post_page(platform=platform, username=username, external_id=external_id)
    if post is None:
        raise Http404("No such sandbox post.")
    profile = post.profile
    media = [
        MediaView(url=item, kind="video" if item.rsplit(".", 1)[-1].lower() in VIDEO_EXTENSIONS else "image")
        for item in post.media or []
    ]
    preview = post_preview(
        platform=platform,
        caption=post.caption,
        composed=True,
        title=post.title,
        first_comment=post.first_comment,
        alt_text=variant.alt_text if variant else "",
        ratio=variant.ratio if variant else "",
        media=media,
        author_name=profile.display_name or profile.username,
        handle=profile.username,
        avatar_url=profile.picture_url,
        post_type=post.post_type or "feed",
    )
    return render(
        request,
        "publishing/sandbox_post.html",
        {"p": preview, "post": post, "platform_label": _platform_label(platform)},
    )


VIDEO_EXTENSIONS = {"mp4", "mov", "webm", "m4v"}


@require_GET
def sandbox_avatar(request, key: str):
    if not AVATAR_KEY.match(key):
        raise Http404("Unknown avatar.")
    response = HttpResponse(sandbox.avatar_png(key), content_type="image/png")
    response["Cache-Control"] = "public, max-age=86400"
    return response
