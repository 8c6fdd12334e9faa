"""Checking a variant (a client's edit, or what adaptation made) against one platform's rules:
``{field: message}``, empty when it can be published."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .adaptation import FIELD_KEYS, Draft, Variant, on_format
from .captions import compose_caption, hashtag_keys, normalize_hashtag
from .rules import FormatRules, PlatformRules, UnsupportedFormat, get_rules, normalize_platform


@dataclass
class _Checking:
    """One variant being checked against a format: the problems found, per field."""

    rules: PlatformRules
    fmt: FormatRules
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return on_format(self.rules, self.fmt)

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
        return {
            keys[0]: next((variant[k] for k in keys if k in variant), None) for keys in FIELD_KEYS.values()
        }
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
        n = len(hashtag_keys(caption, [t for t in tags if normalize_hashtag(t) == t]))
        if n > rules.hashtag_max:
            allowed = "1 hashtag is" if rules.hashtag_max == 1 else f"{rules.hashtag_max} hashtags are"
            check.add("hashtags", f"at most {allowed} allowed{on}; found {n} (caption and hashtags)")


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
