"""Links this server hands out for its own pages (a sandbox post's page): stored as paths,
made absolute under PUBLIC_BASE_URL when answering, so a port or host change (`PORT=9000 make
run`, a new PUBLIC_BASE_URL) does not leave old links pointing at the old address."""

from __future__ import annotations

from django.conf import settings


def public_url(url: str | None) -> str | None:
    """`url` as a client may open it: a stored path under PUBLIC_BASE_URL, anything else as is."""
    if not url:
        return None
    if url.startswith("/") and not url.startswith("//"):
        return f"{settings.PUBLIC_BASE_URL}{url}"
    return url
