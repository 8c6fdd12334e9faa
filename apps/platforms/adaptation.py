"""Adapting generated content to one platform, and validating (client-edited) variants.

Pure Python. :func:`adapt` turns a :class:`Draft` (what the text engine produced) into a
:class:`Variant` that satisfies the platform's rules from :mod:`apps.platforms.rules`,
and lists every change it made in ``Variant.adaptations``. :func:`validate_variant` checks a
variant (e.g. after a client edit) and returns ``{field: message}``.

How a variant is published: the hashtags in ``Variant.hashtags`` go at the end of the caption,
after a blank line (:func:`compose_caption`); that composed text is what is measured against
the caption limit. ``first_comment`` is posted as a comment / self-reply where supported.

Shortening never cuts a word or a hashtag in half: it drops whole sentences from the end
first; if even the first sentence is too long it drops whole words from the end and adds
"…". A word is a run of non-whitespace (CJK text is also split after its full-width
punctuation, see :func:`tokenize`); a word longer than the limit is dropped entirely.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .rules import FormatRules, PlatformRules, UnsupportedFormat, get_rules, normalize_platform
from .text import TextLimit, find_urls

ELLIPSIS = "…"
CAPTION_SEPARATOR = "\n\n"  # between the caption and its hashtags / a folded first comment
# Look-alikes for characters a platform forbids (YouTube: '<' and '>' in title/description).
FORBIDDEN_REPLACEMENTS = {"<": "‹", ">": "›"}

_CJK_BREAKS = "。！？；，、："
_SENTENCE_END = ".!?…。！？"
_CLOSERS = "\"'”’)]»」』"

__all__ = [
    "CAPTION_SEPARATOR",
    "ELLIPSIS",
    "Draft",
    "UnsupportedFormat",
    "Variant",
    "adapt",
    "compose_caption",
    "inline_hashtags",
    "normalize_hashtag",
    "normalize_hashtags",
    "replace_forbidden",
    "sentences",
    "shorten",
    "style_for_platform",
    "tokenize",
    "validate_variant",
]


# --- data ----------------------------------------------------------------------------------


@dataclass
class Draft:
    """Generated text for one platform, before adaptation."""

    caption: str = ""
    hashtags: list[str] = field(default_factory=list)
    first_comment: str = ""
    alt_text: str = ""
    title: str = ""
    sounds: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Draft:
        """From camelCase (API) or snake_case keys; missing keys get their defaults."""
        return cls(**_fields_from_mapping(data))


@dataclass
class Variant:
    """Text adapted to one platform, plus human-readable notes of what was changed."""

    caption: str = ""
    hashtags: list[str] = field(default_factory=list)
    first_comment: str = ""
    alt_text: str = ""
    title: str = ""
    sounds: list[str] = field(default_factory=list)
    adaptations: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Variant:
        values = _fields_from_mapping(data)
        values["adaptations"] = [str(a) for a in (data.get("adaptations") or [])]
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {
            "caption": self.caption,
            "hashtags": list(self.hashtags),
            "firstComment": self.first_comment,
            "altText": self.alt_text,
            "title": self.title,
            "sounds": list(self.sounds),
            "adaptations": list(self.adaptations),
        }


_KEYS = {
    "caption": ("caption",),
    "hashtags": ("hashtags",),
    "first_comment": ("firstComment", "first_comment"),
    "alt_text": ("altText", "alt_text"),
    "title": ("title",),
    "sounds": ("sounds",),
}


def _fields_from_mapping(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr, keys in _KEYS.items():
        value = next((data[k] for k in keys if k in data), None)
        if attr in ("hashtags", "sounds"):
            out[attr] = _as_list(value)
        else:
            out[attr] = "" if value is None else str(value)
    return out


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in re.split(r"[\s,]+", value) if v]
    return [str(v) for v in value]


def _as_draft(obj: Any) -> Draft:
    if isinstance(obj, (Draft, Variant)):
        return Draft(
            caption=str(obj.caption or ""),
            hashtags=_as_list(obj.hashtags),
            first_comment=str(obj.first_comment or ""),
            alt_text=str(obj.alt_text or ""),
            title=str(obj.title or ""),
            sounds=_as_list(obj.sounds),
        )
    if isinstance(obj, Mapping):
        return Draft.from_dict(obj)
    raise TypeError(f"expected a Draft, Variant or mapping, got {type(obj).__name__}")


# --- text helpers --------------------------------------------------------------------------


def _is_word_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum() or unicodedata.category(ch).startswith("M")


def normalize_hashtag(tag: str) -> str | None:
    """``'#' + word characters`` (letters, digits, '_', combining marks), NFC; None if the
    tag has no letter (``#2024`` is not a hashtag on most platforms)."""
    text = unicodedata.normalize("NFC", str(tag)).strip().lstrip("#")
    body = "".join(ch for ch in text if _is_word_char(ch))
    if not any(ch.isalpha() for ch in body):
        return None
    return "#" + body


def normalize_hashtags(tags: Iterable[str]) -> list[str]:
    """Normalised, deduplicated case-insensitively (first spelling kept), order kept."""
    out: list[str] = []
    seen: set[str] = set()
    for tag in tags:
        norm = normalize_hashtag(tag)
        if norm and norm.casefold() not in seen:
            seen.add(norm.casefold())
            out.append(norm)
    return out


def tokenize(text: str) -> list[tuple[int, int]]:
    """Spans of the words of ``text``: runs of non-whitespace, with CJK runs also split after
    their full-width punctuation (。，、 ...), since CJK does not separate words by spaces."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"\S+", text):
        start, end = m.span()
        for k in range(start, end - 1):
            if text[k] in _CJK_BREAKS:
                spans.append((start, k + 1))
                start = k + 1
        spans.append((start, end))
    return spans


def words(text: str) -> list[str]:
    return [text[s:e] for s, e in tokenize(text)]


def inline_hashtags(text: str) -> list[tuple[int, int, str]]:
    """Hashtags written in ``text``: (word start, word end, normalised tag) for each."""
    spans = tokenize(text)
    out: list[tuple[int, int, str]] = []
    for i, ch in enumerate(text):
        if ch != "#" or (i > 0 and (_is_word_char(text[i - 1]) or text[i - 1] in "#&/")):
            continue
        j = i + 1
        while j < len(text) and _is_word_char(text[j]):
            j += 1
        body = text[i + 1 : j]
        if not any(c.isalpha() for c in body):
            continue
        span = next(((s, e) for s, e in spans if s <= i < e), (i, j))
        out.append((span[0], span[1], "#" + unicodedata.normalize("NFC", body)))
    return out


def _tag_keys(caption: str, hashtags: Iterable[str]) -> set[str]:
    return {t.casefold() for _, _, t in inline_hashtags(caption)} | {t.casefold() for t in hashtags}


def compose_caption(caption: str, hashtags: Iterable[str]) -> str:
    """The text that is published: caption, a blank line, then the hashtags."""
    caption = (caption or "").strip()
    tags = " ".join(hashtags)
    if caption and tags:
        return caption + CAPTION_SEPARATOR + tags
    return caption or tags


def replace_forbidden(platform: str, text: str) -> str:
    """Replace characters the platform refuses (YouTube '<' '>') with look-alikes."""
    for ch in get_rules(platform).forbidden_chars:
        text = text.replace(ch, FORBIDDEN_REPLACEMENTS.get(ch, ""))
    return text


def _ends_sentence(text: str, spans: list[tuple[int, int]], i: int) -> bool:
    start, end = spans[i]
    word = text[start:end].rstrip(_CLOSERS)
    if word and word[-1] in _SENTENCE_END:
        return True
    if i + 1 < len(spans):
        return "\n" in text[end : spans[i + 1][0]]
    return False


def _has_content(word: str) -> bool:
    return any(ch.isalnum() or unicodedata.category(ch) == "So" for ch in word)


def _with_ellipsis(prefix: str) -> str:
    prefix = prefix.rstrip()
    last = prefix.split()[-1] if prefix.split() else ""
    is_url = any(end == len(prefix) for _, end in find_urls(prefix))
    if last[:1] in ("#", "@") or is_url:
        return prefix + " " + ELLIPSIS  # keep the tag / mention / link intact and clickable
    return prefix + ELLIPSIS


def _last_fitting(points: list[int], ok: Callable[[int], bool]) -> int | None:
    """Largest point for which ``ok`` holds (binary search; ``ok`` is monotone in practice)."""
    lo, hi, best = 0, len(points) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if ok(points[mid]):
            best, lo = points[mid], mid + 1
        else:
            hi = mid - 1
    return best


def shorten(text: str, fits: Callable[[str], bool], *, sentences_only: bool = False) -> str:
    """The longest prefix of ``text`` for which ``fits`` holds, cut at a sentence end, else at a
    word end plus "…"; "" if not even one word fits. Never cuts inside a word. With
    ``sentences_only`` it never cuts inside a sentence ("" when not even the first fits)."""
    text = text.strip()
    if fits(text):
        return text
    spans = tokenize(text)
    sentence_ends = [
        end for i, (_, end) in enumerate(spans) if end < len(text) and _ends_sentence(text, spans, i)
    ]
    best = _last_fitting(sentence_ends, lambda end: fits(text[:end].rstrip()))
    if best is not None:
        return text[:best].rstrip()
    if sentences_only:
        return ""
    word_ends = [end for start, end in spans if _has_content(text[start:end])]
    best = _last_fitting(word_ends, lambda end: fits(_with_ellipsis(text[:end])))
    if best is not None:
        return _with_ellipsis(text[:best])
    return ""


def _remove_words(text: str, remove: set[tuple[int, int]]) -> str:
    """``text`` without the given word spans; the spaces left behind are tidied up."""
    if not remove:
        return text
    parts: list[str] = []
    pos = 0
    for start, end in sorted(remove):
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    result = re.sub(r"[ \t]{2,}", " ", "".join(parts))
    result = re.sub(r"[ \t]+\n", "\n", result)
    result = re.sub(r"\n[ \t]+", "\n", result)
    return result.strip()


def _drop_inline_tags(caption: str, keep: int) -> str:
    """Keep the first ``keep`` distinct inline hashtags; drop the words holding the others."""
    kept: set[str] = set()
    remove: set[tuple[int, int]] = set()
    for start, end, tag in inline_hashtags(caption):
        key = tag.casefold()
        if key in kept:
            continue
        if len(kept) < keep:
            kept.add(key)
        else:
            remove.add((start, end))
    # a word holding a dropped tag goes whole, even if it also holds a kept one ("#a,#b")
    return _remove_words(caption, remove)


def _derive_title(fits: Callable[[str], bool], *sources: str) -> str:
    """A title from the first source that gives one: its first sentence without links and
    hashtags, shortened to fit; the last source is used as it is (hashtags)."""
    for source in sources:
        urls = find_urls(source)
        kept = [
            source[s:e]
            for s, e in tokenize(source)
            if not source[s:e].startswith("#") and not any(us <= s < ue for us, ue in urls)
        ]
        text = " ".join(kept)
        spans = tokenize(text)
        for i in range(len(spans)):
            if _ends_sentence(text, spans, i):
                text = text[: spans[i][1]]
                break
        text = shorten(text, fits)
        if text:
            return text
    return ""


def _clean(value: Any) -> str:
    return str(value or "").replace("\r\n", "\n").strip()


# --- adapt ---------------------------------------------------------------------------------


def _where(rules: PlatformRules, fmt: FormatRules) -> str:
    return f"on {rules.display_name} ({fmt.post_type} {fmt.media_type})"


def _shortened_note(what: str, before: str, after: str, limit: TextLimit, extra: str = "") -> str:
    return (
        f"{what} shortened from {limit.count(before)} to {limit.count(after)} {limit.unit_label}"
        f" (limit {limit.describe()}{extra})"
    )


@dataclass
class _Fitting:
    """One draft on its way to a variant: the platform's rules, the fields as they stand and
    the notes of what changed. Each step of :func:`adapt` fits one field."""

    name: str
    rules: PlatformRules
    fmt: FormatRules
    draft: Draft
    caption: str
    hashtags: list[str]
    first_comment: str
    alt_text: str
    title: str
    sounds: list[str]
    notes: list[str] = field(default_factory=list)
    #: the hashtags as normalised, before any gave way (a title's last source)
    original_hashtags: list[str] = field(default_factory=list)
    #: the caption before it was fitted (forbidden characters replaced): a derived title's source
    title_source: str = ""
    #: the caption was shortened to fit, so nothing more is folded into it
    caption_cut: bool = False

    @property
    def where(self) -> str:
        return _where(self.rules, self.fmt)

    @property
    def on(self) -> str:
        return f"on {self.rules.display_name}"

    def note(self, text: str) -> None:
        self.notes.append(text)

    def fits_with(self, text: str, hashtags: list[str]) -> bool:
        """Whether ``text`` with ``hashtags`` after it fits the caption limit."""
        return self.fmt.caption.fits(compose_caption(text, hashtags))

    def variant(self) -> Variant:
        return Variant(
            caption=self.caption,
            hashtags=self.hashtags,
            first_comment=self.first_comment,
            alt_text=self.alt_text,
            title=self.title,
            sounds=self.sounds,
            adaptations=self.notes,
        )


def adapt(
    platform: str,
    draft: Draft | Variant | Mapping[str, Any],
    *,
    post_type: str = "feed",
    media_type: str = "image",
) -> Variant:
    """Adapt ``draft`` to ``platform`` for ``post_type``/``media_type``.

    Raises ValueError for an unknown platform, post type or media type, and
    :class:`UnsupportedFormat` when the platform cannot publish the media type at all.
    Adapting an adapted variant again changes nothing.
    """
    name = normalize_platform(platform)
    rules = get_rules(name)
    fmt = rules.format_for(post_type, media_type)
    d = _as_draft(draft)
    work = _Fitting(
        name=name,
        rules=rules,
        fmt=fmt,
        draft=d,
        caption=_clean(d.caption),
        hashtags=[],
        first_comment=_clean(d.first_comment),
        alt_text=_clean(d.alt_text),
        title=_clean(d.title),
        sounds=[],
    )
    _normalise_sounds(work)
    _normalise_hashtags(work)
    _replace_forbidden_characters(work)
    _fit_hashtags_to_caption(work)
    _fit_first_comment(work)
    _place_hashtags(work)
    _fit_caption_length(work)
    _fold_or_drop_first_comment(work)
    _fit_alt_text(work)
    _fit_title(work)
    _drop_unsupported_sounds(work)
    return work.variant()


def _normalise_sounds(work: _Fitting) -> None:
    given = work.draft.sounds
    work.sounds = list(dict.fromkeys(s.strip() for s in given if s and s.strip()))
    if work.sounds != given:
        work.note("sounds normalised (blank and duplicate entries removed)")


def _normalise_hashtags(work: _Fitting) -> None:
    given = work.draft.hashtags
    work.hashtags = normalize_hashtags(given)
    if work.hashtags != given:
        work.note("hashtags normalised to '#' + letters/digits/_ (invalid and duplicate tags removed)")
    work.original_hashtags = list(work.hashtags)


def _replace_forbidden_characters(work: _Fitting) -> None:
    """Characters the platform forbids (YouTube's '<' and '>') become look-alikes."""
    if work.rules.forbidden_chars:
        shown = " and ".join(f"'{c}'" for c in work.rules.forbidden_chars)
        caption = replace_forbidden(work.name, work.caption)
        if caption != work.caption:
            work.note(f"{shown} replaced in the caption (not allowed {work.on})")
            work.caption = caption
        title = replace_forbidden(work.name, work.title)
        if title != work.title:
            work.note(f"{shown} replaced in the title (not allowed {work.on})")
            work.title = title
    work.title_source = work.caption


def _fit_hashtags_to_caption(work: _Fitting) -> None:
    """No caption, no hashtags; else hashtags not repeated, within the platform's length,
    count and recommended range (counting the caption's own tags)."""
    if not work.fmt.caption_supported:
        if work.caption:
            work.note(f"caption dropped: there is no caption {work.where}")
        if work.hashtags:
            work.note(f"hashtags dropped: there is no caption {work.where}")
        work.caption, work.hashtags = "", []
        return
    inline = _drop_hashtags_in_caption(work)
    _drop_too_long_hashtags(work)
    _keep_hashtag_max(work, inline)
    _keep_recommended_hashtags(work, inline)


def _drop_hashtags_in_caption(work: _Fitting) -> set[str]:
    """Hashtags the caption already holds are not repeated after it; returns the caption's
    own tags (case-folded)."""
    inline = {t.casefold() for _, _, t in inline_hashtags(work.caption)}
    repeated = [t for t in work.hashtags if t.casefold() in inline]
    if repeated:
        work.hashtags = [t for t in work.hashtags if t.casefold() not in inline]
        work.note(f"hashtags already in the caption not repeated: {' '.join(repeated)}")
    return inline


def _drop_too_long_hashtags(work: _Fitting) -> None:
    max_length = work.rules.hashtag_max_length
    if max_length is not None:
        too_long = [t for t in work.hashtags if len(t) - 1 > max_length]
        if too_long:
            work.hashtags = [t for t in work.hashtags if t not in too_long]
            work.note(
                f"hashtags longer than {max_length} characters dropped ({work.on}): {' '.join(too_long)}"
            )


def _keep_hashtag_max(work: _Fitting, inline: set[str]) -> None:
    """At most the platform's number of hashtags, the caption's own included."""
    hashtag_max = work.rules.hashtag_max
    if hashtag_max is not None:
        total = len(inline) + len(work.hashtags)
        if total > hashtag_max:
            work.hashtags = work.hashtags[: max(0, hashtag_max - len(inline))]
            if len(inline) > hashtag_max:
                work.caption = _drop_inline_tags(work.caption, hashtag_max)
            work.note(
                f"hashtags reduced from {total} to {len(_tag_keys(work.caption, work.hashtags))} "
                f"(at most {hashtag_max} {work.on})"
            )


def _keep_recommended_hashtags(work: _Fitting, inline: set[str]) -> None:
    """The caption outranks the hashtags: hashtagCount is a ceiling, the platform's
    recommended range decides how many are kept."""
    low, high = work.rules.hashtag_recommended
    total = len(inline) + len(work.hashtags)
    if work.hashtags and total > high:
        work.hashtags = work.hashtags[: max(0, high - len(inline))]
        work.note(
            f"hashtags reduced from {total} to {len(_tag_keys(work.caption, work.hashtags))} "
            f"(recommended {low}-{high} {work.on}; the caption comes first)"
        )


def _fit_first_comment(work: _Fitting) -> None:
    """A first comment the platform takes is shortened to its own limit."""
    limit = work.fmt.first_comment
    if work.first_comment and work.fmt.first_comment_supported and not limit.fits(work.first_comment):
        before = work.first_comment
        work.first_comment = shorten(before, limit.fits)
        work.note(_shortened_note("first comment", before, work.first_comment, limit))


def _place_hashtags(work: _Fitting) -> None:
    """Hashtags go to the first comment where the platform places them there, or to make
    room in the caption (when the comment has room for them)."""
    if (
        work.hashtags
        and work.fmt.first_comment_supported
        and (
            work.rules.hashtag_placement == "first_comment" or not work.fits_with(work.caption, work.hashtags)
        )
    ):
        with_tags = compose_caption(work.first_comment, work.hashtags)
        if work.fmt.first_comment.fits(with_tags):
            work.first_comment, work.hashtags = with_tags, []
            work.note("hashtags moved to first comment")


def _fit_caption_length(work: _Fitting) -> None:
    """The caption and the hashtags kept after it within the caption limit: hashtags that
    cannot fit even alone go; then whole sentences from the end; when not even the first
    sentence fits beside the hashtags, the hashtags go (one by one) before the caption is cut
    inside a sentence."""
    tags = work.hashtags
    if tags and not work.fits_with("", tags):
        before_n = len(tags)
        while tags and not work.fits_with("", tags):
            tags.pop()
        work.note(f"hashtags reduced from {before_n} to {len(tags)} to fit the caption limit")
    work.caption_cut = not work.fits_with(work.caption, tags)
    if not work.caption_cut:
        return
    before = caption = work.caption

    def fits(text: str) -> bool:
        return work.fits_with(text, tags)

    cut = shorten(caption, fits, sentences_only=True)
    dropped = 0
    while caption and not cut and tags:
        tags.pop()
        dropped += 1
        cut = shorten(caption, fits, sentences_only=True)
    if dropped:
        work.note(f"{dropped} hashtag(s) dropped so that the caption keeps its first sentence")
    if caption and not cut:
        cut = shorten(caption, fits)
    work.caption = cut
    if work.caption != before:
        extra = " including hashtags" if tags else ""
        work.note(_shortened_note("caption", before, work.caption, work.fmt.caption, extra))


def _fold_or_drop_first_comment(work: _Fitting) -> None:
    """Where there is no first comment, it is folded into the caption when it fits there
    (and keeps the hashtags within range), else dropped."""
    if not work.first_comment or work.fmt.first_comment_supported:
        return
    rules = work.rules
    folded = compose_caption(work.caption, [replace_forbidden(work.name, work.first_comment)])
    tag_ok = len(_tag_keys(folded, work.hashtags)) <= min(
        rules.hashtag_max or 10**6, rules.hashtag_recommended[1]
    )
    if (
        work.fmt.caption_supported
        and not work.caption_cut
        and tag_ok
        and work.fits_with(folded, work.hashtags)
    ):
        work.caption = folded
        work.note(f"first comment folded into the caption: no first comment {work.where}")
        _drop_hashtags_in_caption(work)
    else:
        reason = "" if not work.fmt.caption_supported else " and it does not fit in the caption"
        work.note(f"first comment dropped: not supported {work.where}{reason}")
    work.first_comment = ""


def _fit_alt_text(work: _Fitting) -> None:
    if not work.alt_text:
        return
    limit = work.fmt.alt_text
    if not work.fmt.alt_text_supported:
        work.note(f"alt text dropped: not supported {work.where}")
        work.alt_text = ""
    elif limit is not None and not limit.fits(work.alt_text):
        before = work.alt_text
        work.alt_text = shorten(before, limit.fits)
        work.note(_shortened_note("alt text", before, work.alt_text, limit))


def _fit_title(work: _Fitting) -> None:
    """A title the format takes is shortened to its limit, or derived when there is none
    (from the caption, the first comment, the alt text, else the hashtags); a title the format
    does not take is dropped."""
    limit = work.fmt.title
    if not (work.fmt.title_supported and limit is not None):
        if work.title:
            work.note(f"title dropped: not supported {work.where}")
            work.title = ""
        return
    if work.title and not limit.fits(work.title):
        before = work.title
        work.title = shorten(before, limit.fits)
        work.note(_shortened_note("title", before, work.title, limit))
    if not work.title:
        work.title = _derive_title(
            limit.fits,
            work.title_source,
            replace_forbidden(work.name, _clean(work.draft.first_comment)),
            replace_forbidden(work.name, _clean(work.draft.alt_text)),
        ) or shorten(" ".join(work.original_hashtags), limit.fits)
        if work.title:
            work.note("title derived from the caption")


def _drop_unsupported_sounds(work: _Fitting) -> None:
    if work.sounds and not work.fmt.sounds_supported:
        work.note(f"sounds dropped: not supported {work.where}")
        work.sounds = []


# --- validate ------------------------------------------------------------------------------


@dataclass
class _Checking:
    """One variant being checked against a format: the problems found, per field."""

    rules: PlatformRules
    fmt: FormatRules
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return _where(self.rules, self.fmt)

    @property
    def on(self) -> str:
        return f" on {self.rules.display_name}"

    @property
    def forbidden(self) -> str:
        return " or ".join(f"'{c}'" for c in self.rules.forbidden_chars)

    def add(self, key: str, message: str) -> None:
        self.errors[key] = f"{self.errors[key]}; {message}" if key in self.errors else message


def validate_variant(
    platform: str,
    variant: Draft | Variant | Mapping[str, Any],
    *,
    post_type: str = "feed",
    media_type: str = "image",
) -> dict[str, str]:
    """Problems of ``variant`` on ``platform`` as ``{field: message}`` (camelCase field names:
    caption, hashtags, firstComment, altText, title, sounds); empty when it can be published.
    Raises ValueError for an unknown platform, post type or media type."""
    name = normalize_platform(platform)
    rules = get_rules(name)
    try:
        fmt = rules.format_for(post_type, media_type)
    except UnsupportedFormat as exc:
        return {"mediaType": str(exc)}
    check = _Checking(rules, fmt)
    texts, lists = _typed_fields(_raw_fields(variant), check.errors)
    _check_caption(check, texts["caption"], lists["hashtags"])
    _check_first_comment(check, texts["firstComment"])
    _check_alt_text(check, texts["altText"])
    _check_title(check, texts["title"])
    _check_sounds(check, lists["sounds"])
    return check.errors


def _raw_fields(variant: Draft | Variant | Mapping[str, Any]) -> dict[str, Any]:
    """The variant's fields by their camelCase names, as given."""
    if isinstance(variant, (Draft, Variant)):
        return {
            "caption": variant.caption,
            "hashtags": variant.hashtags,
            "firstComment": variant.first_comment,
            "altText": variant.alt_text,
            "title": variant.title,
            "sounds": variant.sounds,
        }
    if isinstance(variant, Mapping):
        return {keys[0]: next((variant[k] for k in keys if k in variant), None) for keys in _KEYS.values()}
    raise TypeError(f"expected a Variant or mapping, got {type(variant).__name__}")


def _typed_fields(
    raw: Mapping[str, Any], errors: dict[str, str]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The text fields and the list fields; one of the wrong type is an error and counts as empty."""
    texts: dict[str, str] = {}
    for key in ("caption", "firstComment", "altText", "title"):
        value = raw.get(key)
        if value is None:
            value = ""
        if not isinstance(value, str):
            errors[key] = f"{key} must be a string"
            value = ""
        texts[key] = value
    lists: dict[str, list[str]] = {}
    for key in ("hashtags", "sounds"):
        value = raw.get(key)
        if value is None:
            value = []
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            errors[key] = f"{key} must be a list of strings"
            value = []
        lists[key] = list(value)
    return texts, lists


def _check_caption(check: _Checking, caption: str, tags: list[str]) -> None:
    """The caption with its hashtags within the limit and without forbidden characters; no
    caption (and so no hashtags) where the format has none."""
    fmt, rules, on = check.fmt, check.rules, check.on
    if not fmt.caption_supported:
        if caption.strip():
            check.add("caption", f"there is no caption {check.where}")
        if tags:
            check.add("hashtags", f"there is no caption {check.where}, so no hashtags")
        return
    problem = fmt.caption.problem(compose_caption(caption, tags), on)
    if problem:
        check.add("caption", f"caption{' with hashtags' if tags else ''} {problem}")
    if any(c in caption for c in rules.forbidden_chars):
        check.add("caption", f"caption must not contain {check.forbidden}{on}")
    _check_hashtags(check, caption, tags)


def _check_hashtags(check: _Checking, caption: str, tags: list[str]) -> None:
    """Each hashtag valid, once and within the length; all of them (the caption's own
    included) within the platform's number."""
    rules, on = check.rules, check.on
    seen: set[str] = set()
    for tag in tags:
        if normalize_hashtag(tag) != tag:
            check.add("hashtags", f"'{tag}' is not a valid hashtag ('#' followed by letters, digits or '_')")
        elif tag.casefold() in seen:
            check.add("hashtags", f"duplicate hashtag '{tag}'")
        elif rules.hashtag_max_length is not None and len(tag) - 1 > rules.hashtag_max_length:
            check.add("hashtags", f"'{tag}' is longer than {rules.hashtag_max_length} characters{on}")
        seen.add(tag.casefold())
    if rules.hashtag_max is not None:
        n = len(_tag_keys(caption, [t for t in tags if normalize_hashtag(t) == t]))
        if n > rules.hashtag_max:
            check.add(
                "hashtags",
                f"at most {rules.hashtag_max} hashtags are allowed{on}; found {n} (caption and hashtags)",
            )


def _check_first_comment(check: _Checking, comment: str) -> None:
    if comment.strip():
        if not check.fmt.first_comment_supported:
            check.add("firstComment", f"first comments are not supported {check.where}")
        elif problem := check.fmt.first_comment.problem(comment, check.on):
            check.add("firstComment", f"first comment {problem}")


def _check_alt_text(check: _Checking, alt: str) -> None:
    if alt.strip():
        if not check.fmt.alt_text_supported:
            check.add("altText", f"alt text is not supported {check.where}")
        elif check.fmt.alt_text is not None and (problem := check.fmt.alt_text.problem(alt, check.on)):
            check.add("altText", f"alt text {problem}")


def _check_title(check: _Checking, title: str) -> None:
    fmt, rules, on = check.fmt, check.rules, check.on
    if fmt.title_supported and fmt.title is not None:
        if not title.strip() and rules.title_required:
            check.add("title", f"a title is required{on}")
        if problem := fmt.title.problem(title, on):
            check.add("title", f"title {problem}")
        if any(c in title for c in rules.forbidden_chars):
            check.add("title", f"title must not contain {check.forbidden}{on}")
    elif title.strip():
        check.add("title", f"titles are not supported {check.where}")


def _check_sounds(check: _Checking, sounds: list[str]) -> None:
    if sounds:
        if not check.fmt.sounds_supported:
            check.add("sounds", f"sounds are not supported {check.where}")
        elif any(not s.strip() for s in sounds):
            check.add("sounds", "sound identifiers must not be blank")


# --- per-platform style ---------------------------------------------------------------------

_EMOJI_RE = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2728]\ufe0f?")
# how many sentences of the caption a short-form platform keeps (its link(s) come on top)
_SHORT_FORM = {"x": 1, "threads": 2, "bluesky": 2}
# Calls to action only Instagram and TikTok users follow (in the engine's five languages).
_APP_HABITS = {
    "link in bio": re.compile(
        r"link in (?:our |the )?bio|enlace de nuestra bio|lien dans notre bio|link in unserer bio|"
        r"link na nossa bio",
        re.IGNORECASE,
    ),
    "double tap": re.compile(r"double[- ]?tap|doble toque|doppeltippen|toque duas vezes", re.IGNORECASE),
}
# Calls for comments, double taps and tags: a Pin is found by search and saved, not commented on.
_ENGAGEMENT_BAIT = re.compile(
    r"\b(?:in the comments|comment below|tell us below|double[- ]tap|tag (?:a|someone|them|a friend)|drop your|"
    r"let us know|en los comentarios|cuéntanos|etiqueta a|en commentaire|dites-le-nous|identifiez|"
    r"in den kommentaren|in die kommentare|markiert|nos comentários|conta pra gente|marque um)\b",
    re.IGNORECASE,
)
# Tags a platform's users expect on a format (data/stock_tags.json): YouTube Shorts' #Shorts.
_STOCK_TAGS: dict = json.loads((Path(__file__).parent / "data" / "stock_tags.json").read_text("utf-8"))


def _information(sentence: str) -> int:
    """How much a sentence says: names, figures and compound words (a hook says little)."""
    tokens = re.findall(r"[\w%'’-]+", sentence)
    return sum(
        1
        for i, t in enumerate(tokens)
        if (i and t[:1].isupper()) or any(c.isdigit() for c in t) or "-" in t.strip("-") or t.endswith("%")
    )


def _remove_sentences(caption: str, drop: list[str]) -> str:
    for p in drop:
        caption = re.sub(r"[ \t]*" + re.escape(p), "", caption, count=1)
    caption = re.sub(r"\n{3,}", "\n\n", caption)
    return re.sub(r"[ \t]+(\n|$)", r"\1", caption).strip()


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order (a line break also ends one), stripped."""
    spans = tokenize(text)
    out: list[str] = []
    start = None
    for i, (s, e) in enumerate(spans):
        if start is None:
            start = s
        if _ends_sentence(text, spans, i) or i == len(spans) - 1:
            out.append(text[start:e].strip())
            start = None
    merged: list[str] = []
    for x in out:  # an emoji (or other symbol) after a sentence's end belongs to that sentence
        if merged and not any(ch.isalnum() for ch in x):
            merged[-1] = f"{merged[-1]} {x}"
        elif x:
            merged.append(x)
    return merged


def _strip_emojis(text: str, keep: int = 0) -> str:
    seen = 0

    def repl(m: re.Match) -> str:
        nonlocal seen
        seen += 1
        return m.group(0) if seen <= keep else ""

    text = _EMOJI_RE.sub(repl, text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r"[ \t]+(\n|$)", r"\1", text).strip()


def style_for_platform(
    platform: str, draft: Draft | Variant | Mapping[str, Any], *, post_type: str = "feed"
) -> tuple[Draft, list[str]]:
    """Shape one generic generated text the way ``platform`` reads (before :func:`adapt`):
    X one short idea, Threads and Bluesky a short conversational pair of sentences, TikTok a
    hook alone on the first line, LinkedIn without emoji walls, Pinterest a keyword-led
    description without emojis or calls for comments and a title taken from it, and the
    stock tags a format expects (#Shorts on YouTube Shorts). Links in the caption are kept as
    links. Used on engine output only, never on a client's edit. Returns the styled draft and
    notes of what changed."""
    name = normalize_platform(platform)
    rules = get_rules(name)
    d = _as_draft(draft)
    caption = _clean(d.caption)
    notes: list[str] = []
    _add_stock_tags(d, rules, post_type, notes)
    if not caption:
        return d, notes
    urls = [caption[s:e] for s, e in find_urls(caption)]
    parts = sentences(caption)
    plain = [p for p in parts if not find_urls(p) and not p.lstrip().startswith("•")]
    if name not in ("instagram", "tiktok"):  # "link in bio" and "double tap" are Instagram/TikTok habits
        caption, parts, plain = _drop_app_habits(caption, parts, plain, rules, notes)
    if name in _SHORT_FORM and plain:
        caption = _condense_to_short_form(caption, parts, plain, urls, rules, notes)
    elif name == "tiktok" and parts:
        caption = _hook_alone_on_first_line(caption, parts, notes)
    elif name == "linkedin":
        caption = _without_emoji_wall(caption, notes)
    elif name == "pinterest":
        caption = _pinterest_description(caption, d, notes)
    d.caption = caption
    return d, notes


def _add_stock_tags(d: Draft, rules: PlatformRules, post_type: str, notes: list[str]) -> None:
    """The tags the format expects go first: they survive when hashtags give way."""
    stock = [
        t
        for t in _STOCK_TAGS.get(rules.name, {}).get(post_type, [])
        if t.casefold() not in {h.casefold() for h in d.hashtags}
    ]
    if stock:
        d.hashtags = [*stock, *d.hashtags]
        notes.append(f"{', '.join(stock)} added: expected on {rules.display_name} ({post_type})")


def _drop_app_habits(
    caption: str, parts: list[str], plain: list[str], rules: PlatformRules, notes: list[str]
) -> tuple[str, list[str], list[str]]:
    """The sentences of a call to action other platforms' users do not follow ("link in bio",
    "double tap"), unless the caption is nothing else; returns the caption, its sentences and
    its plain sentences without them."""
    for habit, pattern in _APP_HABITS.items():
        kept = [p for p in parts if not pattern.search(p)]
        if len(kept) < len(parts) and kept:
            for p in parts:
                if p not in kept:
                    caption = re.sub(r"\n*[ \t]*" + re.escape(p), "", caption).strip()
            article = "an" if rules.display_name[:1] in "AEIOUX" else "a"  # "an X habit"
            notes.append(f"'{habit}' call to action removed (not {article} {rules.display_name} habit)")
            parts = kept
            plain = [p for p in plain if p in kept]
    return caption, parts, plain


def _condense_to_short_form(
    caption: str, parts: list[str], plain: list[str], urls: list[str], rules: PlatformRules, notes: list[str]
) -> str:
    """X, Threads and Bluesky: the first sentence(s), or the one that says the most, never a
    stub of under six words, with the caption's links after them."""
    keep = plain[: _SHORT_FORM[rules.name]]
    best = max(plain, key=_information)  # the sentence that says the most (first on a tie)
    if best not in keep and _information(best) > _information(keep[-1]):
        keep = [*keep[:-1], best]  # one idea with its facts beats a hook alone
    while len(keep) < len(plain) and len(" ".join(keep).split()) < 6:  # one idea, never a stub
        keep = plain[: len(keep) + 1]
    text = " ".join(keep)
    for url in urls:
        if url not in text:
            text = f"{text} {url}"
    if text != caption:
        notes.append(
            f"caption condensed for {rules.display_name}: {len(keep)} of {len(parts)} sentences"
            + (" and the link" if urls else "")
        )
    return text


def _hook_alone_on_first_line(caption: str, parts: list[str], notes: list[str]) -> str:
    """TikTok: the first sentence alone on the first line, above the fold."""
    first = parts[0]
    rest = caption[caption.find(first) + len(first) :].strip()
    if rest and not caption.startswith(first + "\n"):
        notes.append("hook put alone on the first line for TikTok")
        return first + "\n" + rest
    return caption


def _without_emoji_wall(caption: str, notes: list[str]) -> str:
    """LinkedIn: one emoji at most."""
    text = _strip_emojis(caption, keep=1)
    if text != caption:
        notes.append("emojis reduced to one for LinkedIn")
    return text


def _pinterest_description(caption: str, d: Draft, notes: list[str]) -> str:
    """A Pin is found by search and saved, not commented on: no emojis, the keywords first, no
    calls for comments and no first comment, and a title taken from the lead."""
    text = _strip_emojis(caption)
    if text != caption:
        notes.append("emojis removed from the Pinterest description")
        caption = text
    caption, lead = _lead_with_keywords(caption, notes)
    if d.first_comment:
        d.first_comment = ""
        notes.append("first comment dropped: a Pin is found by its words, not by a question")
    if lead:
        clause = re.split(r"(?<=\w)[,.!?;](?:\s|$)", lead[0])[0].strip()
        if len(clause.split()) >= 3 and len(clause) <= 100 and clause != d.title:
            d.title = clause
            notes.append("Pinterest title taken from the description's lead (searchable words)")
    return caption


def _lead_with_keywords(caption: str, notes: list[str]) -> tuple[str, list[str]]:
    """Calls for comments go, and so does a hook that only announces what the next sentences
    say (or says less than they do), unless nothing would be left; returns the caption and
    its lead sentences (without links)."""
    parts = sentences(caption)
    drop = [p for p in parts if _ENGAGEMENT_BAIT.search(p)]
    lead = [p for p in parts if p not in drop and not find_urls(p)]
    if len(lead) > 1 and _hook_says_less(lead[0], lead[1:]):
        drop.append(lead[0])
        lead = lead[1:]
    if drop and len(drop) < len(parts):
        caption = _remove_sentences(caption, drop)
        notes.append("Pinterest description leads with its keywords (hook and calls for comments left out)")
    return caption, lead


def _hook_says_less(hook: str, later: list[str]) -> bool:
    """The hook says no more than the best later sentence, and either says less or only
    announces its words."""
    most = max(_information(p) for p in later)
    if _information(hook) > most:
        return False
    hook_words = {w.casefold() for w in re.findall(r"\w+", hook) if len(w) > 3}
    later_words = {w.casefold() for p in later for w in re.findall(r"\w+", p)}
    return bool(hook_words & later_words) or _information(hook) < most
