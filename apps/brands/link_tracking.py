"""A brand's tracked-link settings: UTM templates (brand-wide and per platform) and short links.

Stored on ``Brand.link_tracking`` in one camelCase shape that both API families read and write:

    {"enabled": true,
     "utm": {"utm_source": "{platform}", "utm_medium": "social", "utm_campaign": "{campaign}"},
     "platforms": {"x": {"utm_medium": "tweet"}},
     "shortLinks": true}

Placeholders a template value may use: ``{platform}``, ``{brand}`` (the brand's slug),
``{content_id}`` and ``{campaign}`` (the content's campaign, else its first tag, else empty).
"""

from __future__ import annotations

import re
from typing import Any

from apps.core.errors import ValidationFailed

PLACEHOLDERS = ("platform", "brand", "content_id", "campaign")
DEFAULT_UTM: dict[str, str] = {
    "utm_source": "{platform}",
    "utm_medium": "social",
    "utm_campaign": "{campaign}",
}
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
PLATFORMS = ("x", "instagram", "facebook", "linkedin", "tiktok", "youtube", "pinterest", "threads", "bluesky")


def link_tracking_defaults() -> dict[str, Any]:
    return {"enabled": False, "utm": dict(DEFAULT_UTM), "platforms": {}, "shortLinks": False}


def _template(value: Any, where: str, problems: dict[str, list[str]]) -> dict[str, str]:
    if not isinstance(value, dict):
        problems[where] = ["Must be an object of query parameter name to template."]
        return {}
    if len(value) > 20:
        problems[where] = ["At most 20 parameters."]
        return {}
    out: dict[str, str] = {}
    for key, template in value.items():
        if isinstance(key, str) and not key.strip():
            continue  # an empty parameter name means nothing: dropped
        if not isinstance(key, str) or len(key) > 1000:
            problems[f"{where}.{str(key)[:50]}"] = [
                "A parameter name is a string of at most 1000 characters."
            ]
            continue
        if not isinstance(template, str) or len(template) > 200:
            problems[f"{where}.{key}"] = ["A template is a string of at most 200 characters."]
            continue
        if "{" in _PLACEHOLDER.sub("", template) or "}" in _PLACEHOLDER.sub("", template):
            problems[f"{where}.{key}"] = ["A brace opens or closes a placeholder, e.g. {platform}."]
            continue
        unknown = [p for p in _PLACEHOLDER.findall(template) if p not in PLACEHOLDERS]
        if unknown:
            problems[f"{where}.{key}"] = [
                f"Unknown placeholder {{{unknown[0]}}}; use {', '.join('{' + p + '}' for p in PLACEHOLDERS)}."
            ]
            continue
        out[key] = template
    return out


def link_tracking_clean(*, value: Any, current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The settings `value` (a partial update over `current`) validated, or a 400 naming each problem."""
    if not isinstance(value, dict):
        raise ValidationFailed("linkTracking must be an object.", {"linkTracking": ["Must be an object."]})
    merged = {**link_tracking_defaults(), **(current or {})}
    problems: dict[str, list[str]] = {}
    unknown = sorted(set(value) - {"enabled", "utm", "platforms", "shortLinks"})
    if unknown:
        problems[f"linkTracking.{unknown[0]}"] = ["Unknown field; use enabled, utm, platforms, shortLinks."]
    for flag in ("enabled", "shortLinks"):
        if flag in value:
            if not isinstance(value[flag], bool):
                problems[f"linkTracking.{flag}"] = ["Must be true or false."]
            else:
                merged[flag] = value[flag]
    if "utm" in value:
        merged["utm"] = _template(value["utm"], "linkTracking.utm", problems)
    if "platforms" in value:
        platforms = value["platforms"]
        if not isinstance(platforms, dict):
            problems["linkTracking.platforms"] = ["Must be an object keyed by platform."]
        else:
            cleaned: dict[str, dict[str, str]] = {}
            for platform, template in platforms.items():
                if platform not in PLATFORMS:
                    problems[f"linkTracking.platforms.{platform}"] = [
                        f"Unknown platform; use one of {', '.join(PLATFORMS)}."
                    ]
                    continue
                cleaned[platform] = _template(template, f"linkTracking.platforms.{platform}", problems)
            merged["platforms"] = cleaned
    if problems:
        raise ValidationFailed("linkTracking is invalid.", problems)
    return merged


def link_tracking_of(link_tracking: dict[str, Any] | None) -> dict[str, Any]:
    """The stored settings with the defaults filled in (what the APIs answer)."""
    return {**link_tracking_defaults(), **(link_tracking or {})}


def utm_template_for(link_tracking: dict[str, Any] | None, platform: str) -> dict[str, str]:
    """The brand template with the platform's own parameters over it (an empty value removes one)."""
    conf = link_tracking_of(link_tracking)
    merged = {**conf["utm"], **(conf["platforms"].get(platform) or {})}
    return {k: v for k, v in merged.items() if v != ""}
