"""A content item's history: who did what, when, and for text edits the diff (issue 21)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from ..models import Content, ContentHistory, ReviewOpen, Variant

HISTORY_FIELDS = ("caption", "hashtags", "first_comment", "alt_text", "title", "sounds")


def text_of(variant: Variant) -> dict[str, Any]:
    return {f: getattr(variant, f) for f in HISTORY_FIELDS}


def text_changes(before: Mapping[str, Mapping[str, Any]], changed: Sequence[Variant]) -> dict:
    """Per platform, the fields that changed: before, after and a line diff of the text."""
    out: dict[str, dict] = {}
    for variant in changed:
        old, new = before.get(variant.platform, {}), text_of(variant)
        fields = {}
        for name in HISTORY_FIELDS:
            if old.get(name) == new[name]:
                continue
            a = " ".join(old.get(name) or []) if isinstance(new[name], list) else (old.get(name) or "")
            b = " ".join(new[name]) if isinstance(new[name], list) else new[name]
            diff = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[2:]
            fields[name] = {"before": old.get(name), "after": new[name], "diff": diff}
        if fields:
            out[variant.platform] = fields
    return out


def actor_label(actor) -> str:
    """Who did it, in words: a staff username, an API key's name, a token's subject."""
    if actor is None:
        return ""
    if isinstance(actor, str):
        return actor[:200]
    key = getattr(actor, "api_key", None)
    user = getattr(actor, "user", None)
    if user is None and key is not None:
        return f"API key “{key.name}”"[:200]
    if user is None and getattr(actor, "subject", ""):
        return f"token {actor.subject}"[:200]
    user = user or actor
    return str(getattr(user, "username", "") or getattr(actor, "credential_id", ""))[:200]


def history_record(
    *, content: Content, actor=None, action: str, changes: dict | None = None, note: str = ""
) -> ContentHistory:
    """One line of the content's history (who, when, what)."""
    return ContentHistory.objects.create(
        content=content, actor=actor_label(actor), action=action, changes=changes or {}, note=note[:2000]
    )


def review_opened(*, content: Content, user) -> None:
    """A staff member opened the content's page (the review queue asks before approving
    items nobody opened)."""
    if getattr(user, "pk", None) is None:
        return
    ReviewOpen.objects.update_or_create(content=content, user=user)
