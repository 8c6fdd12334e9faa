"""`GET /l/<code>`: a Postforge short link's redirect (302) to its tracked URL, counting the
click (a day-level count per referrer platform and country; no address, no user agent).

Only codes that exist redirect, and only to the URL fixed when the link was made (no open
redirect); junk is a 404, never a 500; each client address has SHORT_LINK_RATE_LIMIT a minute."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from apps.core import proxies, ratelimit

from .links import CODE_RE, link_click_record
from .models import ShortLink

logger = logging.getLogger(__name__)


def _not_found() -> HttpResponse:
    return HttpResponse("No such link.\n", status=404, content_type="text/plain; charset=utf-8")


def _client_key(request: HttpRequest) -> str:
    ip = proxies.client_ip(request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", ""))
    # a digest, kept in the rate limiter's window only: the address itself is never written
    return hashlib.sha256(f"{settings.SECRET_KEY}:{ip}".encode()).hexdigest()[:24]


def short_link_redirect(request: HttpRequest, code: str) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
    decision = ratelimit.hit(_client_key(request), "short_link", limit=settings.SHORT_LINK_RATE_LIMIT)
    if not decision.allowed:
        return HttpResponse(
            "Too many requests.\n",
            status=429,
            content_type="text/plain; charset=utf-8",
            headers={"Retry-After": str(decision.retry_after)},
        )
    if not CODE_RE.match(code):
        return _not_found()
    link = ShortLink.objects.filter(code=code).only("id", "target_url").first()
    if link is None or not link.target_url.startswith(("https://", "http://")):
        return _not_found()
    if request.method == "GET":  # a HEAD (link unfurlers, checkers) is no click
        try:
            link_click_record(
                link=link,
                referer=request.headers.get("Referer", ""),
                country=request.headers.get(settings.LINK_COUNTRY_HEADER, ""),
            )
        except DatabaseError:  # a click not counted never stops the visitor
            logger.warning("short link click not counted", exc_info=True)
    response = HttpResponseRedirect(link.target_url)
    response["Cache-Control"] = "private, no-store"  # every click reaches us to be counted
    response["X-Robots-Tag"] = "noindex"
    return response
