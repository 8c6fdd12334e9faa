"""The outside approver's page (no login: the signed link authenticates it), issue 21.

- ``GET /approve/<token>/``: the link's content, each platform drawn as it will look, with
  approve and request-changes (a comment) per item;
- ``POST /approve/<token>/<content id>/``: the decision, through the content services.

An unknown, expired, revoked or out-of-date link is a 410 page saying which. Limits (issue 28),
keyed on the client's address as TRUSTED_PROXIES resolves it (apps.core.proxies), so approvers
behind one reverse proxy never share a budget: too many requests from one client for one link
in the rate window is a 429, and so is a client past APPROVAL_LINK_FAILURE_LIMIT failed
lookups (made-up, expired or withdrawn tokens) in the window, before its next token is even
looked at. Every answer carries a Content-Security-Policy: no script at all, styles and
pictures from the service and its media storage, forms posting only back to it.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_GET, require_POST

from apps.core import proxies, ratelimit
from apps.core.errors import ApplicationError

from . import services
from .models import Content
from .previews import content_previews


@lru_cache(maxsize=4)
def _media_sources(*urls: str) -> str:
    """The origins pictures and videos may come from besides the service: its media storage's
    (an absolute MEDIA_URL or S3 endpoint) and https (platform avatars)."""
    origins = {f"{u.scheme}://{u.netloc}" for u in map(urlsplit, urls) if u.scheme and u.netloc}
    return " ".join(["'self'", "data:", "https:", *sorted(origins)])


def content_security_policy() -> str:
    media = _media_sources(
        str(settings.MEDIA_URL or ""),
        str(getattr(settings, "AWS_S3_ENDPOINT_URL", "") or ""),
        str(settings.PUBLIC_BASE_URL or ""),
    )
    return (
        "default-src 'none'; script-src 'none'; style-src 'self' 'unsafe-inline'; "
        f"img-src {media}; media-src {media}; font-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def _private(response: HttpResponse) -> HttpResponse:
    # the URL is the credential: keep it out of caches, other sites' Referer and search engines
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex"
    response["Content-Security-Policy"] = content_security_policy()
    return response


def _client(request: HttpRequest) -> str:
    """The client's address: the peer's, or behind a proxy in TRUSTED_PROXIES the one its
    X-Forwarded-For names."""
    peer = request.META.get("REMOTE_ADDR") or ""
    return proxies.client_ip(peer, request.META.get("HTTP_X_FORWARDED_FOR", "")) or "unknown"


def _too_many(request: HttpRequest, decision: ratelimit.Decision, message: str) -> HttpResponse:
    response = render(request, "content/approval_dead.html", {"message": message}, status=429)
    response["Retry-After"] = str(decision.retry_after)
    return _private(response)


def _limited(request: HttpRequest, token: str) -> HttpResponse | None:
    client = _client(request)
    failures = ratelimit.peek(
        f"approval:{client}", "approval_failure", limit=settings.APPROVAL_LINK_FAILURE_LIMIT
    )
    if not failures.allowed:  # guessing: no further token is looked at this window
        return _too_many(request, failures, "Too many links that do not work: try again in a minute.")
    decision = ratelimit.hit(
        f"{client}:{token[-16:]}", "approval_link", limit=settings.APPROVAL_LINK_RATE_LIMIT
    )
    if decision.allowed:
        return None
    return _too_many(request, decision, "Too many requests from this address: try again in a minute.")


def _dead(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
    ratelimit.hit(
        f"approval:{_client(request)}", "approval_failure", limit=settings.APPROVAL_LINK_FAILURE_LIMIT
    )
    return _private(render(request, "content/approval_dead.html", {"message": exc.message}, status=410))


@csrf_protect
@require_GET
def approval_page(request: HttpRequest, token: str) -> HttpResponse:
    limited = _limited(request, token)
    if limited:
        return limited
    try:
        link = services.approval_link_open(token)
    except services.LinkDead as exc:
        return _dead(request, exc)
    items = [
        {"content": c, "previews": content_previews(c)}
        for c in link.contents.select_related("brand").order_by("created_at")
    ]
    # headed by the brand the posts speak for (the client knows the brand, not our tenant's name)
    contents = [item["content"] for item in items]
    brands = list(dict.fromkeys(c.brand.name for c in contents if isinstance(c, Content) and c.brand))
    return _private(
        render(
            request,
            "content/approval_page.html",
            {
                "link": link,
                "items": items,
                "token": token,
                "organization": link.organization.name,
                "heading": " & ".join(brands) or link.organization.name,
            },
        )
    )


@csrf_protect
@require_POST
def approval_decide(request: HttpRequest, token: str, content_id) -> HttpResponse:
    limited = _limited(request, token)
    if limited:
        return limited
    try:
        services.approval_link_decide(
            token=token,
            content_id=str(content_id),
            decision=request.POST.get("decision", ""),
            name=request.POST.get("name", ""),
            comment=request.POST.get("comment", ""),
        )
    except services.LinkDead as exc:
        return _dead(request, exc)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        done = "Approved" if request.POST.get("decision") == "approve" else "Changes requested"
        messages.success(request, f"{done}. Thank you.")
    return HttpResponseRedirect(reverse("approval-page", args=[token]) + f"#c-{content_id}")
