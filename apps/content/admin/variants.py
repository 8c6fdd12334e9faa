"""The content page's variant cards: each platform's text, its length in the platform's own
unit, the edit form's values and errors (a refused save keeps the text in the box and is
measured as it is), the preview, and the adaptations said once when every variant has them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from apps.core.errors import ApplicationError
from apps.media.models import MediaAsset
from apps.platforms.measure import Length, caption_length

from ..models import Content, Variant
from ..previews import previews_for
from .lists import error_text

EDIT_SESSION_KEY = "pf_variant_edit"
EDIT_FIELDS = {
    "caption": "caption",
    "hashtags": "hashtags",
    "firstComment": "first_comment",
    "altText": "alt_text",
    "title": "title",
    "sounds": "sounds",
}
ADAPTATION_PLATFORM = re.compile(r" (?:on|for) [A-Z][\w]*(?: \([^)]*\))?$")


@dataclass
class VariantCard:
    """One platform's card on the content page (what the template reads)."""

    variant: Variant
    display_name: str  # "TikTok", "LinkedIn", "X"
    #: the text's length in the platform's own unit (X weighted, Bluesky graphemes, Threads
    #: with emoji bytes) against its limit; None for a platform without a caption rule
    length: Length | None
    own_adaptations: list[str]
    editing: bool
    form: dict[str, Any]  # the edit form's values: the stored text, or a refused save's
    errors: dict[str, str]
    preview: Any  # apps.platforms.preview's post preview

    @property
    def platform(self) -> str:
        return self.variant.platform

    @property
    def ratio(self) -> str:
        return self.variant.ratio or ""

    @property
    def caption(self) -> str:
        return self.variant.caption

    @property
    def hashtags(self) -> list[str]:
        return list(self.variant.hashtags or [])

    @property
    def first_comment(self) -> str:
        return self.variant.first_comment

    @property
    def alt_text(self) -> str:
        return self.variant.alt_text

    @property
    def title(self) -> str:
        return self.variant.title

    @property
    def sounds(self) -> Any:
        return self.variant.sounds


def edit_errors(exc: ApplicationError, platform: str) -> dict[str, str]:
    """A refusal by field of the edit form (`general` for the rest), in words."""
    per_platform = ((exc.problems or {}).get("variants") or {}) if exc.problems else {}
    problems = per_platform.get(platform) if isinstance(per_platform, dict) else None
    if isinstance(problems, dict) and problems:
        out = {EDIT_FIELDS.get(k, "general"): str(v) for k, v in problems.items()}
        out.setdefault("general", exc.message)
        return out
    return {"general": error_text(exc)}


def editing_state(request: HttpRequest, content: Content) -> dict[str, Any]:
    """The variant being edited: the platform (`?edit=`), and a refused edit's values and errors."""
    stash = request.session.pop(EDIT_SESSION_KEY, None)
    if stash and stash.get("content") == str(content.pk):
        return {"platform": stash["platform"], "values": stash["values"], "errors": stash["errors"]}
    return {"platform": request.GET.get("edit", ""), "values": {}, "errors": {}}


def adaptation_key(text: str) -> str:
    """An adaptation without the platform it names ("title dropped: not supported on X (feed
    image)" -> "title dropped: not supported"): the same change on every variant is said once."""
    return ADAPTATION_PLATFORM.sub("", text)


def _measure(content: Content, platform: str, caption: str, hashtags: list[str]) -> Length | None:

    return caption_length(
        platform, caption, hashtags, post_type=content.post_type, media_type=content.media_type
    )


def _display_name(platform: str) -> str:
    from apps.platforms.rules import get_rules

    try:
        return get_rules(platform).display_name
    except (KeyError, ValueError):
        return platform


def variant_cards(
    content: Content, variants: list[Variant], editing: dict[str, Any], media: list[MediaAsset]
) -> tuple[list[VariantCard], list[str]]:
    """The cards, and the adaptations every variant has (said once above them)."""
    previews = previews_for(content, variants, media)
    keys = [{adaptation_key(a) for a in (v.adaptations or [])} for v in variants]
    common: set[str] = set.intersection(*keys) if len(variants) > 1 else set()
    cards = []
    for v in variants:
        is_editing = editing["platform"] == v.platform
        stashed = editing["values"] if is_editing and editing["values"] else None
        if stashed:  # a refused save: the counter measures the text in the box, not the stored text
            length = _measure(
                content,
                v.platform,
                str(stashed.get("caption", "")).replace("\r\n", "\n"),
                str(stashed.get("hashtags", "")).replace(",", " ").split(),
            )
        else:
            length = _measure(content, v.platform, v.caption or "", list(v.hashtags or []))
        cards.append(
            VariantCard(
                variant=v,
                display_name=_display_name(v.platform),
                length=length,
                own_adaptations=[a for a in (v.adaptations or []) if adaptation_key(a) not in common],
                editing=is_editing,
                form=stashed
                or {
                    "caption": v.caption,
                    "hashtags": " ".join(v.hashtags or []),
                    "first_comment": v.first_comment,
                    "alt_text": v.alt_text,
                    "title": v.title,
                },
                errors=editing["errors"] if is_editing else {},
                preview=previews.get(v.platform),
            )
        )
    return cards, sorted(common)
