"""What the review queue shows of each item (read only): every platform's caption excerpt and
the flags a reviewer must not miss, and the queue's order for "approve and next"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.platforms.facts import language_code, missing_facts
from apps.platforms.measure import caption_length
from apps.platforms.rules import get_format, get_rules

LINK = re.compile(r"https?://\S+|\bwww\.\S+", re.IGNORECASE)
EXCERPT = 90


@dataclass
class VariantLine:
    platform: str
    name: str
    excerpt: str
    flags: list[str] = field(default_factory=list)


def _language(content) -> str:
    settings = content.settings if isinstance(getattr(content, "settings", None), dict) else {}
    return language_code(str(settings.get("language") or "en"))


def variant_flags(content, variant, *, has_media: bool) -> list[str]:
    flags = []
    length = caption_length(
        variant.platform,
        variant.caption or "",
        variant.hashtags or [],
        post_type=content.post_type,
        media_type=content.media_type,
    )
    if length and length["over"]:
        flags.append(f"over the limit ({length['count']} / {length['max']} {length['unit']})")
    try:
        shape = get_format(variant.platform, content.post_type, content.media_type)
        alt_supported, caption_supported = shape.alt_text_supported, shape.caption_supported
    except (KeyError, ValueError):
        alt_supported, caption_supported = False, True
    if has_media and content.media_type == "image" and alt_supported and not (variant.alt_text or "").strip():
        flags.append("no alt text")
    if not caption_supported:
        # a story carries no caption (the facts are on the picture): no caption flag a reviewer
        # could never clear
        return flags
    if variant.platform == "instagram" and LINK.search(variant.caption or ""):
        flags.append("link in an Instagram caption (not clickable)")
    lost = missing_facts(content.prompt or "", variant.caption or "", _language(content))
    if lost:
        flags.append("lost fact: " + ", ".join(lost))
    return flags


def variant_lines(content, variants, *, has_media: bool) -> list[VariantLine]:
    lines = []
    for v in variants:
        try:
            name = get_rules(v.platform).display_name
        except (KeyError, ValueError):
            name = v.platform
        text = " ".join((v.caption or "").split())
        excerpt = text[:EXCERPT] + ("…" if len(text) > EXCERPT else "")
        lines.append(VariantLine(v.platform, name, excerpt, variant_flags(content, v, has_media=has_media)))
    return lines
