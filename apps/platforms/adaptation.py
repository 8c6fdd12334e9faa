"""Adapting generated content to one platform: a :class:`Draft` (what the text engine
produced) becomes a :class:`Variant` that satisfies the platform's rules
(:mod:`apps.platforms.rules`), with every change it made listed in ``Variant.adaptations``.

:func:`adapt` is a list of steps, one per field (hashtags, first comment, caption length,
alt text, title, sounds), each reading and changing one :class:`_Fitting`. How a caption is
shortened and composed with its hashtags is :mod:`apps.platforms.captions`; a variant is
checked by :func:`apps.platforms.validation.validate_variant`, and an engine's text is shaped
the way each platform reads by :func:`apps.platforms.style.style_for_platform`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .captions import (
    clean_text,
    compose_caption,
    derive_title,
    drop_inline_hashtags,
    hashtag_keys,
    inline_hashtags,
    normalize_hashtags,
    replace_forbidden,
    shorten,
    shorten_keeping_facts,
)
from .rules import FormatRules, PlatformRules, get_rules, normalize_platform
from .text import TextLimit

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


FIELD_KEYS = {
    "caption": ("caption",),
    "hashtags": ("hashtags",),
    "first_comment": ("firstComment", "first_comment"),
    "alt_text": ("altText", "alt_text"),
    "title": ("title",),
    "sounds": ("sounds",),
}


def _fields_from_mapping(data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr, keys in FIELD_KEYS.items():
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


def as_draft(obj: Any) -> Draft:
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


# --- adapt ---------------------------------------------------------------------------------


def on_format(rules: PlatformRules, fmt: FormatRules) -> str:
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
        return on_format(self.rules, self.fmt)

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
    d = as_draft(draft)
    work = _Fitting(
        name=name,
        rules=rules,
        fmt=fmt,
        draft=d,
        caption=clean_text(d.caption),
        hashtags=[],
        first_comment=clean_text(d.first_comment),
        alt_text=clean_text(d.alt_text),
        title=clean_text(d.title),
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
                work.caption = drop_inline_hashtags(work.caption, hashtag_max)
            work.note(
                f"hashtags reduced from {total} to {len(hashtag_keys(work.caption, work.hashtags))} "
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
            f"hashtags reduced from {total} to {len(hashtag_keys(work.caption, work.hashtags))} "
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
    cannot fit even alone go; then the sentences that carry no fact (decoration); then the
    hashtags, one by one, before a sentence that carries a fact (a code, a date, the link); then
    fact sentences from the end (the first stays); the caption is cut inside a sentence only
    when not even that fits. A caption that fits is never touched."""
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

    cut = shorten_keeping_facts(caption, fits, drop_facts=False)
    dropped = 0
    while caption and not cut and tags:
        tags.pop()
        dropped += 1
        cut = shorten_keeping_facts(caption, fits, drop_facts=False)
    if dropped:
        work.note(f"{dropped} hashtag(s) dropped so that the caption keeps its first sentence and its facts")
    if caption and not cut:
        cut = shorten_keeping_facts(caption, fits)
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
    tag_ok = len(hashtag_keys(folded, work.hashtags)) <= min(
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
        work.title = derive_title(
            limit.fits,
            work.title_source,
            replace_forbidden(work.name, clean_text(work.draft.first_comment)),
            replace_forbidden(work.name, clean_text(work.draft.alt_text)),
        ) or shorten(" ".join(work.original_hashtags), limit.fits)
        if work.title:
            work.note("title derived from the caption")


def _drop_unsupported_sounds(work: _Fitting) -> None:
    if work.sounds and not work.fmt.sounds_supported:
        work.note(f"sounds dropped: not supported {work.where}")
        work.sounds = []
