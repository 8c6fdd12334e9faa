"""Outbound URL rules (SSRF) for webhooks: the rules of apps.core.outbound (the one checked way
out, shared with Bluesky, link cards and media pulled from URLs) with the webhook settings.

A webhook URL must be https (http only with WEBHOOK_ALLOW_HTTP), on port 80/443, and every
address its host resolves to must be public (apps.core.outbound lists what is refused).
WEBHOOK_ALLOWED_CIDRS exempts networks (and any port on them) for development and tests.

The rules run at registration and again at connect time, on the address actually
connected to (``resolve_checked`` returns it; the sender connects to that IP).
"""

from __future__ import annotations

from django.conf import settings

from apps.core import outbound
from apps.core.outbound import UnsafeURL, address_refusal

__all__ = ["UnsafeURL", "address_refusal", "resolve_checked", "rules", "url_check"]


def rules() -> outbound.Rules:
    return outbound.Rules(
        schemes=("https", "http") if settings.WEBHOOK_ALLOW_HTTP else ("https",),
        allowed=tuple(settings.WEBHOOK_ALLOWED_CIDRS or ()),
        http_to_exempt=False,
    )


def resolve_checked(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, address): the one address to connect to, after every resolved
    address passed the rules. Raises UnsafeURL."""
    return outbound.resolve_checked(url, rules())


def url_check(url: str) -> None:
    """Registration-time check (raises UnsafeURL, a 400 in both families)."""
    resolve_checked(url)
