"""A caption's length as its platform counts it (X weighted characters, Bluesky graphemes,
Threads with emoji bytes, ...): what the content page shows and its live counter asks for, so
the page and the server's own check count with the same code (`FormatRules.caption`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from .captions import compose_caption
from .rules import get_format


class Length(TypedDict):
    count: int
    max: int | None
    unit: str
    over: bool
    problem: str


def caption_length(
    platform: str,
    caption: str,
    hashtags: Iterable[str] = (),
    *,
    post_type: str = "feed",
    media_type: str = "image",
) -> Length | None:
    """The published text (caption and hashtags) against the platform's limit; None for a
    platform or format without rules. Hashtags without their '#' count with it, as stored."""
    try:
        limit = get_format(platform, post_type, media_type).caption
    except (KeyError, ValueError):
        return None
    tags = [h if h.startswith("#") else f"#{h}" for h in hashtags if h]
    text = compose_caption(caption or "", tags)
    return {
        "count": limit.count(text),
        "max": limit.max,
        "unit": limit.unit_label,
        "over": not limit.fits(text),
        "problem": limit.problem(text) or "",
    }
