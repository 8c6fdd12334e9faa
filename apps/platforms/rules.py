"""Per-platform rules for adapting generated content, read from ``platforms.yaml`` beside it.

Pure Python (no models, no database). The YAML is the data source: every figure it holds is
read from it, using its convention that a mapping with ``value`` (+ ``unverified``) means
"take ``value``". Where the YAML is silent, the gap is filled by an explicit constant below,
each with a comment saying why.

Our content model has four post types (feed, story, reel, short) and two media types (image,
video). Each platform maps the combinations it can publish to one of its own post types in the
YAML (its *native* format, e.g. Instagram feed video -> ``reel``). A combination a platform has
no equivalent for falls back to the nearest one it has (an X "story" is published as a normal
post); a media type the platform cannot publish at all (a YouTube image) raises
:class:`UnsupportedFormat`.

Text is counted the way each platform counts it (see :func:`count_text`); the counting
itself (graphemes, URLs, weighted and byte lengths) is :mod:`apps.platforms.text`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from .text import (
    DEFAULT_URL_LENGTH,
    UNIT_CHARACTERS,
    UNIT_EMOJI_BYTES,
    UNIT_GRAPHEMES,
    UNIT_UTF8_BYTES,
    UNIT_UTF16,
    UNIT_WEIGHTED,
    TextLimit,
)

PLATFORMS_YAML = Path(__file__).resolve().parent / "platforms.yaml"

SUPPORTED_PLATFORMS: tuple[str, ...] = (
    "instagram",
    "facebook",
    "tiktok",
    "youtube",
    "linkedin",
    "x",
    "threads",
    "pinterest",
    "bluesky",
    "mastodon",
)
PLATFORM_ALIASES: Mapping[str, str] = MappingProxyType({"twitter": "x"})
DISPLAY_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "instagram": "Instagram",
        "facebook": "Facebook",
        "tiktok": "TikTok",
        "youtube": "YouTube",
        "linkedin": "LinkedIn",
        "x": "X",
        "threads": "Threads",
        "pinterest": "Pinterest",
        "bluesky": "Bluesky",
        "mastodon": "Mastodon",
    }
)
POST_TYPES: tuple[str, ...] = ("feed", "story", "reel", "short")
MEDIA_TYPES: tuple[str, ...] = ("image", "video")
ASPECT_RATIOS: tuple[str, ...] = ("1:1", "16:9", "9:16", "4:5", "3:2")

# What our generator makes (design.md section 6: "H.264 MP4 videos of 5-8 s").
GENERATED_VIDEO_SECONDS: tuple[float, float] = (5.0, 8.0)

# Pixel size per ratio when the platform's YAML entry gives no recommended size for it.
# 1080 px on the short side (platforms.md: "vertical video 1080x1920", "Instagram feed JPEG
# 1080x1350", "Pinterest 1000x1500").
DEFAULT_SIZES: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        "1:1": (1080, 1080),
        "16:9": (1920, 1080),
        "9:16": (1080, 1920),
        "4:5": (1080, 1350),
        "3:2": (1620, 1080),
        "2:3": (1000, 1500),
        "1.91:1": (1200, 628),  # LinkedIn's and Facebook's link-preview shape
    }
)

# --- gaps in the YAML, filled explicitly -------------------------------------------------

# Which of the platform's own post types (YAML ``post_types`` keys) publishes each of our
# (post type, media type) pairs. Instagram publishes every feed video as a Reel (YAML
# instagram.post_types.reel.note); TikTok videos are its short-form posts, so reel/short map to
# its ``video``; YouTube has no images.
_NATIVE_FORMATS: Mapping[str, Mapping[tuple[str, str], str]] = {
    "instagram": {
        ("feed", "image"): "feed_image",
        ("feed", "video"): "reel",
        ("story", "image"): "story",
        ("story", "video"): "story",
        ("reel", "video"): "reel",
    },
    "facebook": {
        ("feed", "image"): "feed_photo",
        ("feed", "video"): "video",
        ("story", "image"): "story",
        ("story", "video"): "story",
        ("reel", "video"): "reel",
    },
    "tiktok": {
        ("feed", "image"): "photo",
        ("feed", "video"): "video",
        ("reel", "video"): "video",
        ("short", "video"): "video",
    },
    "youtube": {("feed", "video"): "video", ("short", "video"): "short"},
    "linkedin": {("feed", "image"): "image", ("feed", "video"): "video"},
    "x": {("feed", "image"): "post", ("feed", "video"): "post"},
    "threads": {("feed", "image"): "image", ("feed", "video"): "video"},
    "pinterest": {("feed", "image"): "image_pin", ("feed", "video"): "video_pin"},
    "bluesky": {("feed", "image"): "images", ("feed", "video"): "video"},
    "mastodon": {("feed", "image"): "status", ("feed", "video"): "status"},
}

# Full-screen vertical formats: the YAML ranges for these are upload tolerances (0.01:1 to
# 10:1), not the shape the format is shown in; we generate them at their recommended 9:16.
_FULL_SCREEN = {
    ("instagram", "story"),
    ("instagram", "reel"),
    ("facebook", "story"),
    ("facebook", "reel"),
    ("tiktok", "video"),
    ("tiktok", "photo"),  # photo mode is shown full screen like videos
}

# YouTube regular videos: the YAML recommends 16:9, and any vertical or square video of up to
# 3 min is classified as a Short automatically (youtube.post_types.short.detection), so a feed
# video must be landscape.
_LANDSCAPE_ONLY = {("youtube", "video"): ("16:9", "3:2")}

# Facebook stories: the story endpoints take only a photo/video id (YAML facebook.post_types.
# story.endpoint), so there is no caption. Instagram says so itself (``caption: false``).
_NO_CAPTION_FORMATS = {("facebook", "story")}

# Stories cannot be commented on through any of the APIs, so no first comment on stories.
_NO_FIRST_COMMENT_POST_TYPES = {"story"}

# Facebook alt text: ``alt_text_custom`` exists on the Photo node only ("Not in the Reels API").
_ALT_TEXT_IMAGES_ONLY = {"facebook"}

# Sounds are our generator's sound suggestions for short-video formats. Instagram: licensed
# music only on Reels (YAML music.restrictions); TikTok: sounds are chosen in the TikTok editor
# (MEDIA_UPLOAD) or added automatically to photo posts (auto_add_music); YouTube: no API attach
# (YAML music.supported false) but Shorts carry a sound, so the suggestion is kept for the
# creator. Everyone else has no sound concept.
_SOUND_FORMATS: Mapping[str, frozenset[str]] = {
    "instagram": frozenset({"reel"}),
    "tiktok": frozenset({"video", "photo"}),
    "youtube": frozenset({"short"}),
}

# Limits of comment boxes that are not posts themselves (not in the YAML). Replies on X,
# Threads, Bluesky and Mastodon are posts, and Instagram comments share the 2,200 caption
# limit, so those use the caption rule. YouTube comments allow more than the description; we
# keep the description rule (stricter, hence safe).
_FIRST_COMMENT_MAX_CHARS = {"linkedin": 1250, "facebook": 8000}

# Titles the API refuses to go without: YouTube videos.insert requires snippet.title.
_TITLE_REQUIRED = {"youtube"}

# Hashtag length caps (without '#'). Threads: topic tag 1-50 chars (parsed from the YAML note
# when present); Bluesky: a tag is at most 64 graphemes (YAML extra_tag_max_graphemes).
_HASHTAG_MAX_LENGTH_FALLBACK = {"threads": 50}


class UnsupportedFormat(ValueError):
    """The platform cannot publish this media type (e.g. an image on YouTube)."""


# --- YAML helpers --------------------------------------------------------------------------


def _v(x: Any) -> Any:
    """The YAML's convention: a mapping with ``value`` (+ ``unverified``) means take ``value``."""
    if isinstance(x, dict) and "value" in x:
        return x["value"]
    return x


def _note(x: Any) -> str:
    return str(x.get("note", "")) if isinstance(x, dict) else ""


@lru_cache(maxsize=1)
def load_platforms_yaml() -> Mapping[str, Any]:
    """The parsed ``platforms.yaml`` (loaded once)."""
    with PLATFORMS_YAML.open(encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.safe_load(fh)
    platforms = data.get("platforms") or {}
    missing = [p for p in SUPPORTED_PLATFORMS if p not in platforms]
    if missing:
        raise RuntimeError(f"{PLATFORMS_YAML} has no entry for {', '.join(missing)}")
    return data


_RATIO_RE = re.compile(r"(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)")


def ratio_value(ratio: str) -> float:
    """``"16:9"`` -> 1.777..., ``"1.91:1"`` -> 1.91 (width / height)."""
    m = _RATIO_RE.fullmatch(str(ratio).strip())
    if not m:
        raise ValueError(f"invalid aspect ratio {ratio!r}; expected 'W:H'")
    w, h = float(m.group(1)), float(m.group(2))
    if w <= 0 or h <= 0:
        raise ValueError(f"invalid aspect ratio {ratio!r}")
    return w / h


def _ratios_in(text: Any) -> list[str]:
    return [f"{a}:{b}" for a, b in _RATIO_RE.findall(str(text or ""))]


def _reduced_ratio(w: int, h: int) -> str:
    g = math.gcd(int(w), int(h))
    return f"{int(w) // g}:{int(h) // g}"


# --- rules ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormatRules:
    """Rules for one (post type, media type) on one platform, resolved to its native format."""

    platform: str
    post_type: str  # ours, after fallback (e.g. "feed" for an X story)
    media_type: str
    native: str  # the platform's post type key in platforms.yaml
    caption_supported: bool
    caption: TextLimit
    first_comment_supported: bool
    first_comment: TextLimit
    alt_text_supported: bool
    alt_text: TextLimit | None  # None = no documented cap
    title_supported: bool
    title: TextLimit | None
    sounds_supported: bool
    aspect_ratios: tuple[str, ...]  # allowed, among ASPECT_RATIOS
    default_ratio: str
    recommended_px: Mapping[str, tuple[int, int]]  # ratio -> (w, h) from the YAML
    max_width: int | None
    max_long_side: int | None
    max_short_side: int | None
    video_seconds: tuple[float, float] | None  # the platform's own range (None = undocumented)


@dataclass(frozen=True)
class PlatformRules:
    name: str
    display_name: str
    caption_max: int
    count_unit: str
    caption_max_bytes: int | None
    url_length: int | None
    hashtag_max: int | None  # None = no cap
    hashtag_max_length: int | None  # characters after '#', None = no cap
    hashtag_placement: str  # "caption" or "first_comment"
    first_comment_supported: bool
    first_comment_max: int
    alt_text_supported: bool
    alt_text_max: int | None
    title_supported: bool
    title_max: int | None
    title_required: bool
    sounds_supported: bool
    forbidden_chars: tuple[str, ...]  # not allowed in caption and title
    post_types: tuple[str, ...]  # ours that the platform publishes natively
    aspect_ratios: Mapping[tuple[str, str], tuple[str, ...]]  # (post_type, media_type) -> ratios
    video_seconds: Mapping[str, tuple[float, float]]  # post_type -> platform range (unclipped)
    formats: Mapping[tuple[str, str], FormatRules]
    # the platform's recommended number of hashtags (low, high); hashtag_max is only a ceiling
    hashtag_recommended: tuple[int, int] = (0, 5)

    @property
    def caption_limit(self) -> TextLimit:
        return TextLimit(self.caption_max, self.count_unit, self.caption_max_bytes, self.url_length)

    def resolve_post_type(self, post_type: str, media_type: str) -> str:
        """Our post type this platform publishes ``(post_type, media_type)`` as."""
        post_type = _check_choice(post_type, POST_TYPES, "post type")
        media_type = _check_choice(media_type, MEDIA_TYPES, "media type")
        if (post_type, media_type) in self.formats:
            return post_type
        if post_type in ("reel", "short") and media_type == "video":
            for other in ("reel", "short"):
                if (other, "video") in self.formats:
                    return other
        if ("feed", media_type) in self.formats:
            return "feed"
        for pt in POST_TYPES:
            if (pt, media_type) in self.formats:
                return pt
        raise UnsupportedFormat(f"{self.display_name} does not publish {media_type}s")

    def format_for(self, post_type: str = "feed", media_type: str = "image") -> FormatRules:
        return self.formats[(self.resolve_post_type(post_type, media_type), media_type)]


def _check_choice(value: str, choices: tuple[str, ...], what: str) -> str:
    v = str(value or "").strip().lower()
    if v not in choices:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(choices)}")
    return v


def normalize_platform(name: str) -> str:
    """Lower-case platform id; ``twitter`` becomes ``x``. Raises ValueError if unknown."""
    key = str(name or "").strip().lower()
    key = PLATFORM_ALIASES.get(key, key)
    if key not in SUPPORTED_PLATFORMS:
        raise ValueError(f"unknown platform {name!r}; expected one of {', '.join(SUPPORTED_PLATFORMS)}")
    return key


def _parse_unit(raw: Any) -> str:
    text = f"{_v(raw)} {_note(raw)}".lower()
    if text.startswith("weighted"):
        return UNIT_WEIGHTED
    if "grapheme" in text:
        return UNIT_GRAPHEMES
    if "emoji" in text and "utf-8 bytes" in text:
        return UNIT_EMOJI_BYTES
    if "utf8_bytes" in text or text.startswith("utf-8 bytes"):
        return UNIT_UTF8_BYTES
    if "utf16" in text or "utf-16" in text:  # Instagram: "count conservatively (UTF-16 ...)"
        return UNIT_UTF16
    return UNIT_CHARACTERS


def _lookup(fmt: Mapping[str, Any], media_type: str, key: str) -> Any:
    """``fmt[media_type][key]`` when the format nests per-media details, else ``fmt[key]``."""
    nested = fmt.get(media_type)
    if isinstance(nested, dict) and key in nested:
        return _v(nested[key])
    return _v(fmt.get(key))


def _ratio_bounds(fmt: Mapping[str, Any], media_type: str) -> tuple[float, float] | None:
    rng = _lookup(fmt, media_type, "aspect_ratio_range")
    if isinstance(rng, list) and len(rng) == 2:
        return ratio_value(rng[0]), ratio_value(rng[1])
    extreme = _lookup(fmt, media_type, "max_aspect_ratio") or _lookup(fmt, media_type, "aspect_ratio_max")
    if extreme:
        r = ratio_value(extreme)
        r = max(r, 1 / r)
        return 1 / r, r
    return None


def _recommended_px(fmt: Mapping[str, Any], media_type: str) -> dict[str, tuple[int, int]]:
    rec = _lookup(fmt, media_type, "recommended_px")
    sizes = list(rec.values()) if isinstance(rec, dict) else [rec] if rec else []
    out: dict[str, tuple[int, int]] = {}
    for size in sizes:
        if isinstance(size, list) and len(size) == 2:
            w, h = int(size[0]), int(size[1])
            ratio = _reduced_ratio(w, h)
            if ratio in DEFAULT_SIZES:  # ignore shapes we never generate (e.g. 1.91:1)
                out.setdefault(ratio, (w, h))
    return out


def _size_bounds(fmt: Mapping[str, Any], media_type: str) -> tuple[int | None, int | None, int | None]:
    max_width = max_long = max_short = None
    width_range = _lookup(fmt, media_type, "width_px_range")
    if isinstance(width_range, list):
        max_width = int(width_range[1])
    if _lookup(fmt, media_type, "max_width_px"):
        max_width = int(_lookup(fmt, media_type, "max_width_px"))
    each_side = _lookup(fmt, media_type, "px_range_each_side")
    if isinstance(each_side, list):
        max_long = max_short = int(each_side[1])
    px_range = _lookup(fmt, media_type, "px_range")
    if isinstance(px_range, list) and len(px_range) == 2 and isinstance(px_range[1], list):
        # X: "between 32x32 and 1280x1024"; X itself recommends 720x1280 portrait, so we read
        # it as long side <= 1280, short side <= 1024.
        hi = [int(x) for x in px_range[1]]
        max_long, max_short = max(hi), min(hi)
    max_res = _lookup(fmt, media_type, "max_resolution")
    if isinstance(max_res, str) and (m := re.fullmatch(r"(\d+)p", max_res.strip())):
        max_short = int(m.group(1))
        max_long = max_short * 16 // 9
    return max_width, max_long, max_short


def _video_seconds(fmt: Mapping[str, Any]) -> tuple[float, float] | None:
    for key in ("video_seconds", "video_seconds_default_account"):
        rng = _lookup(fmt, "video", key)
        if isinstance(rng, list) and len(rng) == 2:
            return float(rng[0]), float(rng[1])
    return None


def _allowed_ratios(
    platform: str, native: str, fmt: Mapping[str, Any], media_type: str
) -> tuple[list[str], str]:
    recommended = _ratios_in(_lookup(fmt, media_type, "recommended_aspect_ratio"))
    exact = _ratios_in(_lookup(fmt, media_type, "aspect_ratio"))
    bounds = _ratio_bounds(fmt, media_type)
    if exact:
        allowed = [r for r in ASPECT_RATIOS if r in exact]
    elif (platform, native) in _FULL_SCREEN:
        allowed = [recommended[0] if recommended else "9:16"]
    elif (platform, native) in _LANDSCAPE_ONLY:
        allowed = list(_LANDSCAPE_ONLY[(platform, native)])
    elif bounds:
        lo, hi = bounds
        allowed = [r for r in ASPECT_RATIOS if lo - 1e-9 <= ratio_value(r) <= hi + 1e-9]
    else:
        allowed = list(ASPECT_RATIOS)
    if not allowed:
        raise RuntimeError(f"{platform} {native}: none of {ASPECT_RATIOS} is allowed")
    default = ""
    for r in recommended + exact + list(_recommended_px(fmt, media_type)):
        in_bounds = bounds is None or bounds[0] - 1e-9 <= ratio_value(r) <= bounds[1] + 1e-9
        if r in allowed or (
            r in DEFAULT_SIZES and in_bounds and not exact and (platform, native) not in _FULL_SCREEN
        ):
            default = r  # e.g. Pinterest's 2:3, outside our five but its recommended shape
            break
    if not default:
        default = "1:1" if "1:1" in allowed else allowed[0]
    return allowed, default


def _url_length(p: Mapping[str, Any], unit: str) -> int | None:
    """What a URL counts as in the caption: X's t.co length, or a count the unit's note names
    (Mastodon); None where a URL counts as its own text."""
    if unit == UNIT_WEIGHTED:
        return int(_v((p.get("links") or {}).get("counted_as_chars")) or DEFAULT_URL_LENGTH)
    if m := re.search(r"each URL counts as[^;]*?\((\d+)\)", str(_v(p.get("caption_count_unit")))):
        return int(m.group(1))
    return None


def _hashtag_max_length(platform: str, p: Mapping[str, Any]) -> int | None:
    """Characters after '#': Bluesky's grapheme cap, Threads' topic tag note, else a fallback."""
    tag_len = p.get("extra_tag_max_graphemes")
    if tag_len is None and (
        m := re.search(r"topic_tag param \((\d+)-(\d+) chars", str(p.get("hashtag_note", "")))
    ):
        tag_len = m.group(2)
    if tag_len is None:
        tag_len = _HASHTAG_MAX_LENGTH_FALLBACK.get(platform)
    return int(tag_len) if tag_len is not None else None


def _hashtag_recommended(p: Mapping[str, Any], hashtag_max: int | None) -> tuple[int, int]:
    """The recommended (low, high) number of hashtags, never above the platform's maximum."""
    rec = _v(p.get("hashtag_recommended"))
    low, high = (int(rec[0]), int(rec[1])) if isinstance(rec, list) and len(rec) == 2 else (0, 5)
    if hashtag_max is not None:
        return min(low, hashtag_max), min(high, hashtag_max)
    return low, high


@dataclass(frozen=True)
class _AltTextYaml:
    """A platform's ``alt_text`` entry: whether it has alt text, its cap and where it applies."""

    supported: bool
    max_chars: int | None
    applies_to: list[str]
    not_supported_on: set[str]

    @classmethod
    def read(cls, p: Mapping[str, Any]) -> _AltTextYaml:
        alt = p.get("alt_text") or {}
        max_chars = _v(alt.get("max_chars"))
        if max_chars is None:
            max_chars = _v(p.get("alt_text_max_chars"))
        return cls(
            supported=bool(_v(alt.get("supported"))),
            max_chars=int(max_chars) if max_chars is not None else None,
            applies_to=[str(a) for a in (alt.get("applies_to") or [])],
            not_supported_on={str(a) for a in (alt.get("not_supported_on") or [])},
        )

    def on(self, platform: str, post_type: str, media_type: str, native: str) -> bool:
        """Whether a format takes alt text (never a story)."""
        ok = self.supported and post_type != "story" and native not in self.not_supported_on
        if ok and self.applies_to:
            kinds = {a.split("_")[-1] for a in self.applies_to} | set(self.applies_to)
            ok = native in self.applies_to or media_type in kinds
        if ok and platform in _ALT_TEXT_IMAGES_ONLY:
            ok = media_type == "image"
        return ok


@dataclass(frozen=True)
class _PlatformWide:
    """What one platform's formats share, read once from its YAML entry."""

    platform: str
    p: Mapping[str, Any]
    unit: str
    caption_max_bytes: int | None
    url_length: int | None
    caption: TextLimit
    first_comment_supported: bool
    first_comment: TextLimit
    alt: _AltTextYaml

    def format_caption(self, native: str) -> TextLimit:
        """A native format may have its own description limit (TikTok photo: 4,000)."""
        p = self.p
        if p.get(f"{native}_description_max_chars") is None:
            return self.caption
        unit = _parse_unit(p.get(f"{native}_count_unit", self.unit))
        max_chars = int(_v(p[f"{native}_description_max_chars"]))
        return TextLimit(max_chars, unit, self.caption_max_bytes, self.url_length)

    def title(self, native: str) -> TextLimit | None:
        """Platform-wide (YouTube, Pinterest) or per native format (TikTok photo: 90)."""
        p = self.p
        if p.get("title_max_chars") is not None:
            return TextLimit(
                int(_v(p["title_max_chars"])), _parse_unit(p.get("title_count_unit", "characters"))
            )
        if p.get(f"{native}_title_max_chars") is not None:
            return TextLimit(
                int(_v(p[f"{native}_title_max_chars"])),
                _parse_unit(p.get(f"{native}_count_unit", "characters")),
            )
        return None

    def alt_text(self, supported: bool) -> TextLimit | None:
        if not supported or self.alt.max_chars is None:
            return None
        return TextLimit(self.alt.max_chars, UNIT_UTF16 if self.unit == UNIT_UTF16 else UNIT_CHARACTERS)


def _platform_wide(platform: str, p: Mapping[str, Any]) -> _PlatformWide:
    caption_max = int(_v(p.get("description_max_chars") or p["caption_max_chars"]))
    unit = _parse_unit(p.get("description_count_unit") or p.get("caption_count_unit", "characters"))
    max_bytes = _v(p.get("caption_max_bytes"))
    caption_max_bytes = int(max_bytes) if max_bytes else None
    url_length = _url_length(p, unit)
    caption = TextLimit(caption_max, unit, caption_max_bytes, url_length)
    first_comment = p.get("first_comment") or {}
    if platform in _FIRST_COMMENT_MAX_CHARS:
        first_comment_limit = TextLimit(_FIRST_COMMENT_MAX_CHARS[platform], UNIT_CHARACTERS)
    else:
        first_comment_limit = caption
    return _PlatformWide(
        platform=platform,
        p=p,
        unit=unit,
        caption_max_bytes=caption_max_bytes,
        url_length=url_length,
        caption=caption,
        first_comment_supported=(
            bool(_v(first_comment.get("supported"))) if isinstance(first_comment, dict) else False
        ),
        first_comment=first_comment_limit,
        alt=_AltTextYaml.read(p),
    )


def _format_rules(wide: _PlatformWide, post_type: str, media_type: str, native: str) -> FormatRules:
    platform = wide.platform
    fmt = (wide.p.get("post_types") or {}).get(native)
    if not isinstance(fmt, dict):
        raise RuntimeError(f"{PLATFORMS_YAML}: {platform}.post_types.{native} missing")
    if media_type not in (fmt.get("media") or []):
        raise RuntimeError(f"{PLATFORMS_YAML}: {platform}.post_types.{native} has no {media_type}")
    caption_supported = (
        _v(fmt.get("caption")) is not False and (platform, post_type) not in _NO_CAPTION_FORMATS
    )
    title = wide.title(native)
    alt_ok = wide.alt.on(platform, post_type, media_type, native)
    allowed, default = _allowed_ratios(platform, native, fmt, media_type)
    max_width, max_long, max_short = _size_bounds(fmt, media_type)
    return FormatRules(
        platform=platform,
        post_type=post_type,
        media_type=media_type,
        native=native,
        caption_supported=caption_supported,
        caption=wide.format_caption(native),
        first_comment_supported=wide.first_comment_supported
        and caption_supported
        and post_type not in _NO_FIRST_COMMENT_POST_TYPES,
        first_comment=wide.first_comment,
        alt_text_supported=alt_ok,
        alt_text=wide.alt_text(alt_ok),
        title_supported=title is not None,
        title=title,
        sounds_supported=native in _SOUND_FORMATS.get(platform, frozenset()),
        aspect_ratios=tuple(allowed),
        default_ratio=default,
        recommended_px=MappingProxyType(_recommended_px(fmt, media_type)),
        max_width=max_width,
        max_long_side=max_long,
        max_short_side=max_short,
        video_seconds=_video_seconds(fmt) if media_type == "video" else None,
    )


def _build(platform: str, p: Mapping[str, Any]) -> PlatformRules:
    wide = _platform_wide(platform, p)
    formats = {
        (post_type, media_type): _format_rules(wide, post_type, media_type, native)
        for (post_type, media_type), native in _NATIVE_FORMATS[platform].items()
    }
    hashtag_max = _v(p.get("hashtag_max"))
    hashtag_max = int(hashtag_max) if hashtag_max is not None else None
    placement = str(_v(p.get("hashtag_placement", "caption")))
    title_max = next((f.title.max for f in formats.values() if f.title is not None), None)
    return PlatformRules(
        name=platform,
        display_name=DISPLAY_NAMES[platform],
        caption_max=wide.caption.max,
        count_unit=wide.unit,
        caption_max_bytes=wide.caption_max_bytes,
        url_length=wide.url_length,
        hashtag_max=hashtag_max,
        hashtag_max_length=_hashtag_max_length(platform, p),
        hashtag_placement="first_comment" if placement.startswith("first_comment") else "caption",
        hashtag_recommended=_hashtag_recommended(p, hashtag_max),
        first_comment_supported=wide.first_comment_supported,
        first_comment_max=wide.first_comment.max,
        alt_text_supported=any(f.alt_text_supported for f in formats.values()),
        alt_text_max=wide.alt.max_chars,
        title_supported=title_max is not None,
        title_max=title_max,
        title_required=title_max is not None and platform in _TITLE_REQUIRED,
        sounds_supported=any(f.sounds_supported for f in formats.values()),
        forbidden_chars=tuple(p.get("forbidden_chars_title_description") or ()),
        post_types=tuple(pt for pt in POST_TYPES if any(k[0] == pt for k in formats)),
        aspect_ratios=MappingProxyType({k: f.aspect_ratios for k, f in formats.items()}),
        video_seconds=MappingProxyType(
            {k[0]: f.video_seconds for k, f in formats.items() if f.video_seconds is not None}
        ),
        formats=MappingProxyType(formats),
    )


@lru_cache(maxsize=1)
def _all_rules() -> Mapping[str, PlatformRules]:
    data = load_platforms_yaml()["platforms"]
    return MappingProxyType({name: _build(name, data[name]) for name in SUPPORTED_PLATFORMS})


def get_rules(platform: str) -> PlatformRules:
    return _all_rules()[normalize_platform(platform)]


@lru_cache(maxsize=512)
def get_format(platform: str, post_type: str = "feed", media_type: str = "image") -> FormatRules:
    """Rules for ``(post_type, media_type)`` on ``platform`` after fallback (see module doc);
    remembered, as the rules are loaded once and frozen (a list page asks for each variant)."""
    return get_rules(platform).format_for(post_type, media_type)


def resolve_post_type(platform: str, post_type: str, media_type: str) -> str:
    return get_rules(platform).resolve_post_type(post_type, media_type)


def count_text(platform: str, text: str) -> int:
    """Length of a caption in the platform's own unit (see :attr:`PlatformRules.count_unit`)."""
    return get_rules(platform).caption_limit.count(text or "")


def supported_ratio(platform: str, post_type: str, media_type: str, ratio: str | None = None) -> str:
    """The ratio to generate: ``ratio`` if the format allows it, else the nearest allowed one
    (closest width/height on a log scale, ties to the format's default). ``None`` gives the
    format's default (e.g. 9:16 for stories, 4:5 for an Instagram feed image, 2:3 on Pinterest).
    """
    fmt = get_format(platform, post_type, media_type)
    if ratio is None or str(ratio).strip() == "":
        return fmt.default_ratio
    ratio = str(ratio).strip()
    wanted = ratio_value(ratio)
    if ratio in fmt.aspect_ratios or ratio == fmt.default_ratio:
        return ratio
    candidates = list(dict.fromkeys([fmt.default_ratio, *fmt.aspect_ratios]))
    return min(candidates, key=lambda r: abs(math.log(ratio_value(r) / wanted)))


def target_size(platform: str, post_type: str, media_type: str, ratio: str | None = None) -> tuple[int, int]:
    """Exact (width, height) in pixels to generate for this format and ratio.

    The ratio is first passed through :func:`supported_ratio`. The platform's recommended size
    for that ratio is used when the YAML gives one; otherwise :data:`DEFAULT_SIZES`, scaled
    down (keeping the exact ratio and even dimensions) to the format's pixel limits.
    """
    fmt = get_format(platform, post_type, media_type)
    ratio = supported_ratio(platform, post_type, media_type, ratio)
    if ratio in fmt.recommended_px:
        return fmt.recommended_px[ratio]
    if "." in ratio:  # "1.91:1": its default size, scaled into the format's limits
        w, h = DEFAULT_SIZES[ratio]
        scale = min(
            1.0,
            (fmt.max_width or w) / w,
            (fmt.max_long_side or max(w, h)) / max(w, h),
            (fmt.max_short_side or min(w, h)) / min(w, h),
        )
        return round(w * scale) // 2 * 2, round(h * scale) // 2 * 2
    width = DEFAULT_SIZES[ratio][0]
    a, b = (int(x) for x in ratio.split(":"))
    k = width // a
    if fmt.max_width:
        k = min(k, fmt.max_width // a)
    if fmt.max_long_side:
        k = min(k, fmt.max_long_side // max(a, b))
    if fmt.max_short_side:
        k = min(k, fmt.max_short_side // min(a, b))
    k -= k % 2  # even dimensions (H.264 4:2:0)
    return a * k, b * k


# Each platform's own feed picture where the YAML names it as a pixel size our ratio parser
# skips: X's first recommended_px is "landscape: [1280, 720]" (16:9) and LinkedIn's image post
# recommends [1200, 627] (1.91:1). Every other format's own shape is its default ratio
# (Pinterest 2:3, Instagram feed 4:5, stories, reels, TikTok and Shorts 9:16).
_OWN_FEED_RATIOS: Mapping[str, str] = MappingProxyType({"x": "16:9", "linkedin": "1.91:1"})


def own_ratio(platform: str, post_type: str, media_type: str) -> str:
    """The shape this platform shows best for ``(post_type, media_type)``: what a picture made
    for this platform alone is drawn in (issue 30: each platform its own picture)."""
    fmt = get_format(platform, post_type, media_type)
    if fmt.post_type == "feed" and media_type == "image" and fmt.platform in _OWN_FEED_RATIOS:
        return _OWN_FEED_RATIOS[fmt.platform]
    return fmt.default_ratio


def own_size(platform: str, post_type: str, media_type: str, ratio: str) -> tuple[int, int]:
    """(width, height) for ``ratio`` as this platform wants it: its recommended size when the
    YAML gives one, else :data:`DEFAULT_SIZES` (``ratio`` is taken as is, e.g. 1.91:1, which
    :func:`target_size` would move to the nearest of our five)."""
    fmt = get_format(platform, post_type, media_type)
    if ratio in fmt.recommended_px:
        return fmt.recommended_px[ratio]
    if ratio in fmt.aspect_ratios:
        return target_size(platform, post_type, media_type, ratio)
    return DEFAULT_SIZES[ratio]


def video_seconds(platform: str, post_type: str) -> tuple[float, float]:
    """(min, max) video length for this post type, clipped to what our generator makes (5-8 s)."""
    fmt = get_format(platform, post_type, "video")
    lo, hi = GENERATED_VIDEO_SECONDS
    if fmt.video_seconds is not None:
        lo, hi = max(lo, fmt.video_seconds[0]), min(hi, fmt.video_seconds[1])
    if lo > hi:
        allowed = fmt.video_seconds or GENERATED_VIDEO_SECONDS
        raise UnsupportedFormat(
            f"{DISPLAY_NAMES[fmt.platform]} {fmt.native} videos must be "
            f"{allowed[0]:g}-{allowed[1]:g} s; we generate "
            f"{GENERATED_VIDEO_SECONDS[0]:g}-{GENERATED_VIDEO_SECONDS[1]:g} s"
        )
    return lo, hi
