"""The outside approver's page (no login: the signed link authenticates it), issue 21.

- ``GET /approve/<token>/``: the link's content, each platform drawn as it will look, with
  approve and request-changes (a comment) per item;
- ``POST /approve/<token>/<content id>/``: the decision, through the content services.

An unknown, expired, revoked or out-of-date link is a 410 page saying which; too many requests
from one address for one link in the rate window is a 429.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_GET, require_POST

from apps.core import ratelimit
from apps.core.errors import ApplicationError

from . import services
from .models import Content
from .previews import content_previews


def _private(response: HttpResponse) -> HttpResponse:
    # the URL is the credential: keep it out of caches, other sites' Referer and search engines
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex"
    return response


def _limited(request: HttpRequest, token: str) -> HttpResponse | None:
    address = request.META.get("REMOTE_ADDR", "")
    decision = ratelimit.hit(
        f"{address}:{token[-16:]}", "approval_link", limit=settings.APPROVAL_LINK_RATE_LIMIT
    )
    if decision.allowed:
        return None
    response = render(
        request,
        "content/approval_dead.html",
        {"message": "Too many requests from this address: try again in a minute."},
        status=429,
    )
    response["Retry-After"] = str(decision.retry_after)
    return _private(response)


def _dead(request: HttpRequest, exc: ApplicationError) -> HttpResponse:
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
