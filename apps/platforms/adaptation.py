"""Adapting generated content to one platform, and validating (client-edited) variants.

Pure Python. :func:`adapt` turns a :class:`Draft` (what the text engine produced) into a
:class:`Variant` that satisfies the platform's rules from :mod:`apps.content.platform_rules`,
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
    where = _where(rules, fmt)
    on = f"on {rules.display_name}"
    d = _as_draft(draft)
    notes: list[str] = []

    caption = _clean(d.caption)
    first_comment = _clean(d.first_comment)
    alt_text = _clean(d.alt_text)
    title = _clean(d.title)

    sounds = list(dict.fromkeys(s.strip() for s in d.sounds if s and s.strip()))
    if sounds != d.sounds:
        notes.append("sounds normalised (blank and duplicate entries removed)")

    tags = normalize_hashtags(d.hashtags)
    if tags != d.hashtags:
        notes.append("hashtags normalised to '#' + letters/digits/_ (invalid and duplicate tags removed)")
    original_tags = list(tags)

    if rules.forbidden_chars:
        shown = " and ".join(f"'{c}'" for c in rules.forbidden_chars)
        new_caption = replace_forbidden(name, caption)
        if new_caption != caption:
            notes.append(f"{shown} replaced in the caption (not allowed {on})")
            caption = new_caption
        new_title = replace_forbidden(name, title)
        if new_title != title:
            notes.append(f"{shown} replaced in the title (not allowed {on})")
            title = new_title
    title_source = caption

    # --- caption and hashtags
    if not fmt.caption_supported:
        if caption:
            notes.append(f"caption dropped: there is no caption {where}")
        if tags:
            notes.append(f"hashtags dropped: there is no caption {where}")
        caption, tags = "", []
    else:
        inline = {t.casefold() for _, _, t in inline_hashtags(caption)}
        repeated = [t for t in tags if t.casefold() in inline]
        if repeated:
            tags = [t for t in tags if t.casefold() not in inline]
            notes.append(f"hashtags already in the caption not repeated: {' '.join(repeated)}")
        if rules.hashtag_max_length is not None:
            too_long = [t for t in tags if len(t) - 1 > rules.hashtag_max_length]
            if too_long:
                tags = [t for t in tags if t not in too_long]
                notes.append(
                    f"hashtags longer than {rules.hashtag_max_length} characters dropped "
                    f"({on}): {' '.join(too_long)}"
                )
        if rules.hashtag_max is not None:
            total = len(inline) + len(tags)
            if total > rules.hashtag_max:
                tags = tags[: max(0, rules.hashtag_max - len(inline))]
                if len(inline) > rules.hashtag_max:
                    caption = _drop_inline_tags(caption, rules.hashtag_max)
                notes.append(
                    f"hashtags reduced from {total} to {len(_tag_keys(caption, tags))} "
                    f"(at most {rules.hashtag_max} {on})"
                )
        # the caption outranks the hashtags: hashtagCount is a ceiling, the platform's
        # recommended range decides how many are kept
        low, high = rules.hashtag_recommended
        total = len(inline) + len(tags)
        if tags and total > high:
            tags = tags[: max(0, high - len(inline))]
            notes.append(
                f"hashtags reduced from {total} to {len(_tag_keys(caption, tags))} "
                f"(recommended {low}-{high} {on}; the caption comes first)"
            )

    # --- first comment within its own limit
    if first_comment and fmt.first_comment_supported and not fmt.first_comment.fits(first_comment):
        before = first_comment
        first_comment = shorten(first_comment, fmt.first_comment.fits)
        notes.append(_shortened_note("first comment", before, first_comment, fmt.first_comment))

    limit = fmt.caption

    def fits_with(text: str, hashtags: list[str]) -> bool:
        return limit.fits(compose_caption(text, hashtags))

    # --- hashtag placement: configured first-comment placement, or to make room
    if (
        tags
        and fmt.first_comment_supported
        and (rules.hashtag_placement == "first_comment" or not fits_with(caption, tags))
    ):
        with_tags = compose_caption(first_comment, tags)
        if fmt.first_comment.fits(with_tags):
            first_comment, tags = with_tags, []
            notes.append("hashtags moved to first comment")

    # --- caption length (hashtags kept in the caption count against the limit)
    if tags and not fits_with("", tags):
        before_n = len(tags)
        while tags and not fits_with("", tags):
            tags.pop()
        notes.append(f"hashtags reduced from {before_n} to {len(tags)} to fit the caption limit")
    caption_cut = not fits_with(caption, tags)
    if caption_cut:
        before = caption
        # whole sentences from the end; when not even the first sentence fits beside the
        # hashtags, the hashtags go (one by one) before the caption is cut inside a sentence
        cut = shorten(caption, lambda text: fits_with(text, tags), sentences_only=True)
        dropped = 0
        while caption and not cut and tags:
            tags.pop()
            dropped += 1
            cut = shorten(caption, lambda text: fits_with(text, tags), sentences_only=True)
        if dropped:
            notes.append(f"{dropped} hashtag(s) dropped so that the caption keeps its first sentence")
        if caption and not cut:
            cut = shorten(caption, lambda text: fits_with(text, tags))
        caption = cut
        if caption != before:
            notes.append(
                _shortened_note("caption", before, caption, limit, " including hashtags" if tags else "")
            )

    # --- first comment where there is none: fold into the caption, else drop
    if first_comment and not fmt.first_comment_supported:
        folded = compose_caption(caption, [replace_forbidden(name, first_comment)])
        tag_ok = len(_tag_keys(folded, tags)) <= min(rules.hashtag_max or 10**6, rules.hashtag_recommended[1])
        if fmt.caption_supported and not caption_cut and tag_ok and fits_with(folded, tags):
            caption = folded
            notes.append(f"first comment folded into the caption: no first comment {where}")
            inline = {t.casefold() for _, _, t in inline_hashtags(caption)}
            repeated = [t for t in tags if t.casefold() in inline]
            if repeated:
                tags = [t for t in tags if t.casefold() not in inline]
                notes.append(f"hashtags already in the caption not repeated: {' '.join(repeated)}")
        else:
            reason = "" if not fmt.caption_supported else " and it does not fit in the caption"
            notes.append(f"first comment dropped: not supported {where}{reason}")
        first_comment = ""

    # --- alt text
    if alt_text:
        if not fmt.alt_text_supported:
            notes.append(f"alt text dropped: not supported {where}")
            alt_text = ""
        elif fmt.alt_text is not None and not fmt.alt_text.fits(alt_text):
            before = alt_text
            alt_text = shorten(alt_text, fmt.alt_text.fits)
            notes.append(_shortened_note("alt text", before, alt_text, fmt.alt_text))

    # --- title
    if fmt.title_supported and fmt.title is not None:
        if title and not fmt.title.fits(title):
            before = title
            title = shorten(title, fmt.title.fits)
            notes.append(_shortened_note("title", before, title, fmt.title))
        if not title:
            title = _derive_title(
                fmt.title.fits,
                title_source,
                replace_forbidden(name, _clean(d.first_comment)),
                replace_forbidden(name, _clean(d.alt_text)),
            ) or shorten(" ".join(original_tags), fmt.title.fits)
            if title:
                notes.append("title derived from the caption")
    elif title:
        notes.append(f"title dropped: not supported {where}")
        title = ""

    # --- sounds
    if sounds and not fmt.sounds_supported:
        notes.append(f"sounds dropped: not supported {where}")
        sounds = []

    return Variant(
        caption=caption,
        hashtags=tags,
        first_comment=first_comment,
        alt_text=alt_text,
        title=title,
        sounds=sounds,
        adaptations=notes,
    )


# --- validate ------------------------------------------------------------------------------


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
    where = _where(rules, fmt)
    on = f" on {rules.display_name}"
    errors: dict[str, str] = {}

    if isinstance(variant, (Draft, Variant)):
        raw: dict[str, Any] = {
            "caption": variant.caption,
            "hashtags": variant.hashtags,
            "firstComment": variant.first_comment,
            "altText": variant.alt_text,
            "title": variant.title,
            "sounds": variant.sounds,
        }
    elif isinstance(variant, Mapping):
        raw = {keys[0]: next((variant[k] for k in keys if k in variant), None) for keys in _KEYS.values()}
    else:
        raise TypeError(f"expected a Variant or mapping, got {type(variant).__name__}")

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
    caption, tags = texts["caption"], lists["hashtags"]

    def add(key: str, message: str) -> None:
        errors[key] = f"{errors[key]}; {message}" if key in errors else message

    forbidden = " or ".join(f"'{c}'" for c in rules.forbidden_chars)

    # caption and hashtags
    if not fmt.caption_supported:
        if caption.strip():
            add("caption", f"there is no caption {where}")
        if tags:
            add("hashtags", f"there is no caption {where}, so no hashtags")
    else:
        problem = fmt.caption.problem(compose_caption(caption, tags), on)
        if problem:
            add("caption", f"caption{' with hashtags' if tags else ''} {problem}")
        if any(c in caption for c in rules.forbidden_chars):
            add("caption", f"caption must not contain {forbidden}{on}")
        seen: set[str] = set()
        for tag in tags:
            if normalize_hashtag(tag) != tag:
                add("hashtags", f"'{tag}' is not a valid hashtag ('#' followed by letters, digits or '_')")
            elif tag.casefold() in seen:
                add("hashtags", f"duplicate hashtag '{tag}'")
            elif rules.hashtag_max_length is not None and len(tag) - 1 > rules.hashtag_max_length:
                add("hashtags", f"'{tag}' is longer than {rules.hashtag_max_length} characters{on}")
            seen.add(tag.casefold())
        if rules.hashtag_max is not None:
            n = len(_tag_keys(caption, [t for t in tags if normalize_hashtag(t) == t]))
            if n > rules.hashtag_max:
                add(
                    "hashtags",
                    f"at most {rules.hashtag_max} hashtags are allowed{on}; found {n} (caption and hashtags)",
                )

    # first comment
    comment = texts["firstComment"]
    if comment.strip():
        if not fmt.first_comment_supported:
            add("firstComment", f"first comments are not supported {where}")
        elif problem := fmt.first_comment.problem(comment, on):
            add("firstComment", f"first comment {problem}")

    # alt text
    alt = texts["altText"]
    if alt.strip():
        if not fmt.alt_text_supported:
            add("altText", f"alt text is not supported {where}")
        elif fmt.alt_text is not None and (problem := fmt.alt_text.problem(alt, on)):
            add("altText", f"alt text {problem}")

    # title
    title = texts["title"]
    if fmt.title_supported and fmt.title is not None:
        if not title.strip() and rules.title_required:
            add("title", f"a title is required{on}")
        if problem := fmt.title.problem(title, on):
            add("title", f"title {problem}")
        if any(c in title for c in rules.forbidden_chars):
            add("title", f"title must not contain {forbidden}{on}")
    elif title.strip():
        add("title", f"titles are not supported {where}")

    # sounds
    sounds = lists["sounds"]
    if sounds:
        if not fmt.sounds_supported:
            add("sounds", f"sounds are not supported {where}")
        elif any(not s.strip() for s in sounds):
            add("sounds", "sound identifiers must not be blank")
    return errors


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
    stock = [
        t
        for t in _STOCK_TAGS.get(name, {}).get(post_type, [])
        if t.casefold() not in {h.casefold() for h in d.hashtags}
    ]
    if stock:
        d.hashtags = [*stock, *d.hashtags]  # first: it survives when hashtags give way
        notes.append(f"{', '.join(stock)} added: expected on {rules.display_name} ({post_type})")
    if not caption:
        return d, notes
    urls = [caption[s:e] for s, e in find_urls(caption)]
    parts = sentences(caption)
    plain = [p for p in parts if not find_urls(p) and not p.lstrip().startswith("•")]
    if name not in ("instagram", "tiktok"):  # "link in bio" and "double tap" are Instagram/TikTok habits
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
    if name in _SHORT_FORM and plain:
        n = _SHORT_FORM[name]
        keep = plain[:n]
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
        caption = text
    elif name == "tiktok" and parts:
        first = parts[0]
        rest = caption[caption.find(first) + len(first) :].strip()
        if rest and not caption.startswith(first + "\n"):
            caption = first + "\n" + rest
            notes.append("hook put alone on the first line for TikTok")
    elif name == "linkedin":
        text = _strip_emojis(caption, keep=1)
        if text != caption:
            notes.append("emojis reduced to one for LinkedIn")
            caption = text
    elif name == "pinterest":
        text = _strip_emojis(caption)
        if text != caption:
            notes.append("emojis removed from the Pinterest description")
            caption = text
        parts = sentences(caption)
        drop = [p for p in parts if _ENGAGEMENT_BAIT.search(p)]
        lead = [p for p in parts if p not in drop and not find_urls(p)]
        if len(lead) > 1 and _information(lead[0]) <= max(_information(p) for p in lead[1:]):
            hook_words = {w.casefold() for w in re.findall(r"\w+", lead[0]) if len(w) > 3}
            later_words = {w.casefold() for p in lead[1:] for w in re.findall(r"\w+", p)}
            # the hook only announces what the next sentences say (or says less): lead with them
            if hook_words & later_words or _information(lead[0]) < max(_information(p) for p in lead[1:]):
                drop.append(lead[0])
                lead = lead[1:]
        if drop and len(drop) < len(parts):
            caption = _remove_sentences(caption, drop)
            notes.append(
                "Pinterest description leads with its keywords (hook and calls for comments left out)"
            )
        if d.first_comment:
            d.first_comment = ""
            notes.append("first comment dropped: a Pin is found by its words, not by a question")
        if lead:
            clause = re.split(r"(?<=\w)[,.!?;](?:\s|$)", lead[0])[0].strip()
            if len(clause.split()) >= 3 and len(clause) <= 100 and clause != d.title:
                d.title = clause
                notes.append("Pinterest title taken from the description's lead (searchable words)")
    d.caption = caption
    return d, notes
