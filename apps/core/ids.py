"""Identifiers: UUID primary keys, rendered with a type prefix in Family A.

Family A renders ``cnt_`` + 32 hex digits; Family B renders the canonical UUID. Both
families accept both forms; anything else parses to ``None`` and becomes a 404.
"""

from __future__ import annotations

import re
import uuid
from typing import overload

PREFIXES = {
    "content": "cnt",
    "profile": "prf",
    "brand": "brd",
    "media": "med",
    "asset": "ast",
    "webhook": "whk",
    "event": "evt",
    "delivery": "dlv",
    "apikey": "key",
    "publication": "pub",
    "batch": "bat",
    "schedule": "sch",
    "tag": "tag",
    "campaign": "cmp",
    "organization": "org",
    "redirect_origin": "rdo",
    "approval_link": "apl",
}

# 32 hex digits, or the canonical 8-4-4-4-12 form (uuid.UUID alone also takes braces, "urn:uuid:",
# and, through int(), an underscore, a sign or "0x" in the digits)
_UUID_TEXT = re.compile(
    r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE
)


@overload
def render(value: uuid.UUID | str, kind: str) -> str: ...
@overload
def render(value: None, kind: str) -> None: ...
@overload
def render(value: uuid.UUID | str | None, kind: str) -> str | None: ...


def render(value: uuid.UUID | str | None, kind: str) -> str | None:
    """Family A form: ``<prefix>_<32 hex>``."""
    if value is None:
        return None
    if not isinstance(value, uuid.UUID):
        value = uuid.UUID(str(value))
    return f"{PREFIXES[kind]}_{value.hex}"


def parse(value: object, kind: str | tuple[str, ...] | None = None) -> uuid.UUID | None:
    """Accept a prefixed id (of the expected kind) or a canonical/hex UUID; else None."""
    if isinstance(value, uuid.UUID):
        return value
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    text = value.strip()
    if "_" in text:
        prefix, _, rest = text.partition("_")
        kinds = (kind,) if isinstance(kind, str) and kind else (kind or tuple(PREFIXES))
        allowed = {PREFIXES[k] for k in kinds}
        if prefix not in allowed:
            return None
        text = rest
    return uuid.UUID(text) if _UUID_TEXT.fullmatch(text) else None
