"""A post as its platform shows it: the data a preview template draws (`templates/previews/post.html`).

Pure presentation over plain values (no models): the content page, the sandbox post page and
the outside approver's page hand it the variant's text, the media's URLs and the profile's
name and picture, and include the template with the result.

- the text keeps its line breaks; hashtags, @mentions and links are styled as the platform
  styles them;
- where the platform folds a long caption behind "more" in its feed, the preview folds it at
  the same place (`FOLD`: characters shown before the fold, measured the way the apps cut);
- the picture or the video sits in the platform's crop (the variant's aspect ratio); a story,
  reel, short or TikTok fills a 9:16 screen with the app's interface drawn over its safe zones
  (`safe_zones`);
- a carousel shows every slide (a strip that scrolls, each slide numbered, and a row of them all).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .captions import compose_caption
from .rules import get_rules, ratio_value
from .safe_zones import SafeZone, safe_zone

#: Characters a feed shows before its "more" fold (None: the whole text is shown).
#: Instagram ~125 ("… more"), Facebook ~480 ("See more"), LinkedIn ~210 ("…see more", about
#: three lines), TikTok ~100 ("more"), YouTube's description ~100 ("...more"), Pinterest ~50
#: under the pin; X (280), Threads (500) and Bluesky (300) show the whole post.
FOLD: dict[str, int | None] = {
    "instagram": 125,
    "facebook": 480,
    "linkedin": 210,
    "tiktok": 100,
    "youtube": 100,
    "pinterest": 50,
    "x": None,
    "threads": None,
    "bluesky": None,
}
MORE_LABEL = {
    "instagram": "… more",
    "facebook": "… See more",
    "linkedin": "…see more",
    "tiktok": "… more",
    "youtube": "...more",
    "pinterest": "… more",
}
#: The platform's accent colour for links and hashtags (as the apps draw them).
ACCENT = {
    "instagram": "#00376b",
    "facebook": "#0064d1",
    "linkedin": "#0a66c2",
    "tiktok": "#2b5db9",
    "youtube": "#065fd4",
    "pinterest": "#111111",
    "x": "#1d9bf0",
    "threads": "#0095f6",
    "bluesky": "#1083fe",
}
TOKEN = re.compile(r"(?P<link>https?://[^\s<>\"]+[^\s<>\".,;:!?)])|(?P<hashtag>#\w+)|(?P<mention>@[\w.]+\w)")


@dataclass(frozen=True)
class Segment:
    kind: str  # text, hashtag, link, mention, break
    text: str


@dataclass(frozen=True)
class MediaView:
    url: str
    kind: str = "image"  # image or video
    poster: str = ""
    alt: str = ""


@dataclass
class PostPreview:
    platform: str
    platform_name: str
    author_name: str
    handle: str
    avatar_url: str
    initial: str
    title: str
    shown: list[Segment]
    folded: list[Segment]
    more_label: str
    first_comment: list[Segment]
    media: list[MediaView]
    ratio: str
    aspect: str  # CSS aspect-ratio, "4 / 5"
    accent: str
    alt_missing: bool
    post_type: str = "feed"
    #: the app's interface over a full-screen vertical post (None: a feed post)
    safe_zone: SafeZone | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_folded(self) -> bool:
        return bool(self.folded)

    @property
    def is_carousel(self) -> bool:
        return len(self.media) > 1


def segments(text: str) -> list[Segment]:
    """The text as runs of plain text, links, hashtags and mentions, with its line breaks."""
    out: list[Segment] = []
    for n, line in enumerate(text.split("\n")):
        if n:
            out.append(Segment("break", "\n"))
        pos = 0
        for m in TOKEN.finditer(line):
            if m.start() > pos:
                out.append(Segment("text", line[pos : m.start()]))
            out.append(Segment(m.lastgroup or "text", m.group(0)))
            pos = m.end()
        if pos < len(line):
            out.append(Segment("text", line[pos:]))
    return out


def fold_point(text: str, limit: int | None) -> int | None:
    """Where the feed cuts `text` (at a word boundary at or before `limit`), or None."""
    if limit is None or len(text) <= limit:
        return None
    cut = max(text.rfind(" ", 0, limit + 1), text.rfind("\n", 0, limit + 1))
    return cut if cut > 0 else limit


def _split_segments(text: str, at: int | None) -> tuple[list[Segment], list[Segment]]:
    if at is None:
        return segments(text), []
    return segments(text[:at].rstrip()), segments(text[at:].lstrip(" "))


def _aspect(ratio: str) -> str:
    try:
        ratio_value(ratio)
    except (ValueError, ZeroDivisionError):
        return "1 / 1"
    w, h = ratio.split(":")
    return f"{w} / {h}"


def post_preview(
    *,
    platform: str,
    caption: str,
    hashtags: Iterable[str] = (),
    title: str = "",
    first_comment: str = "",
    alt_text: str = "",
    ratio: str = "",
    media: Sequence[MediaView] = (),
    author_name: str = "",
    handle: str = "",
    avatar_url: str = "",
    composed: bool = False,
    post_type: str = "feed",
) -> PostPreview:
    """The preview of one post. `composed`: `caption` already holds its hashtags (a post as sent).
    `post_type` (feed, story, reel, short) decides whether the app's interface covers the frame."""
    try:
        platform_name = get_rules(platform).display_name
    except (KeyError, ValueError):
        platform_name = platform
    text = caption if composed else compose_caption(caption or "", list(hashtags))
    shown, folded = _split_segments(text, fold_point(text, FOLD.get(platform)))
    name = author_name or handle or platform_name
    zone = safe_zone(platform, post_type or "feed") if media else None
    ratio = "9:16" if zone else ratio  # full screen, whatever the variant's own ratio says
    return PostPreview(
        platform=platform,
        platform_name=platform_name,
        author_name=name,
        handle=handle,
        avatar_url=avatar_url,
        initial=(name[:1] or "?").upper(),
        title=title,
        shown=shown,
        folded=folded,
        more_label=MORE_LABEL.get(platform, "… more"),
        first_comment=segments(first_comment) if first_comment else [],
        media=[MediaView(m.url, m.kind, m.poster, m.alt or alt_text) for m in media],
        ratio=ratio or "1:1",
        aspect=_aspect(ratio or "1:1"),
        accent=ACCENT.get(platform, "#1e66f5"),
        alt_missing=bool(media) and not alt_text and not all(m.alt for m in media),
        post_type=post_type or "feed",
        safe_zone=zone,
    )
