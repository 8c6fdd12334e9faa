"""The brand's voice as the engines take it, from the effective settings."""

from __future__ import annotations

from .base import BrandVoice


def voice_from(values: dict, brand) -> BrandVoice:
    guidelines = values.get("guidelines") or {}
    return BrandVoice(
        name=brand.name,
        voice=values.get("brand_voice") or brand.voice,
        tone=values.get("tone") or "friendly",
        system_prompt=values.get("system_prompt", ""),
        caption_style=values.get("caption_style", ""),
        themes=tuple(values.get("themes") or ()),
        audience=values.get("audience", ""),
        hashtags=tuple(values.get("hashtags") or ()),
        do=tuple(guidelines.get("do") or ()),
        dont=tuple(guidelines.get("dont") or ()),
        primary_color=brand.primary_color or "#1E66F5",
        secondary_color=brand.secondary_color or "#F5A97F",
    )
