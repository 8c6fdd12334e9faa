"""Representation pieces both families share: per-platform content and media records."""

from __future__ import annotations

from apps.core.storage import absolute_url
from apps.platforms import rules as platform_rules


def platform_content(variant, *, post_type: str, media_type: str) -> dict:
    """{caption, hashtags, adaptations} plus the fields the platform has for this format
    (firstComment, altText, title, sounds)."""
    out = {"caption": variant.caption, "hashtags": list(variant.hashtags)}
    try:
        fmt = platform_rules.get_format(variant.platform, post_type, media_type)
    except ValueError:
        fmt = None
    optional = (
        ("firstComment", variant.first_comment, fmt is None or fmt.first_comment_supported),
        ("altText", variant.alt_text, fmt is None or fmt.alt_text_supported),
        ("title", variant.title, fmt is None or fmt.title_supported),
        ("sounds", list(variant.sounds), fmt is None or fmt.sounds_supported),
    )
    for key, value, shown in optional:
        if shown or value:
            out[key] = value
    out["adaptations"] = list(variant.adaptations)
    return out


def contents_by_platform(content) -> dict:
    """Per platform (in platform order): a list page's plain `variant_rows` (selectors.content_page)
    or the content's variants."""
    rows = getattr(content, "variant_rows", None)
    return {
        v.platform: platform_content(v, post_type=content.post_type, media_type=content.media_type)
        for v in (content.variants.all() if rows is None else rows)
    }


def shown_media(content) -> list:
    """The content's current media (prefetched as `shown_media` by the selectors)."""
    media = getattr(content, "shown_media", None)
    if media is None:
        from .selectors import SHOWN_MEDIA

        media = list(content.media_assets.filter(kind__in=SHOWN_MEDIA).order_by("position", "created_at"))
    return media


def media_record(asset, request, render_id) -> dict:
    out = {
        "id": render_id(asset.pk),
        "type": asset.media_type,
        "url": absolute_url(request, asset.file),
        "thumbnailUrl": absolute_url(request, asset.thumbnail),
        "dimensions": {"width": asset.width, "height": asset.height},
    }
    if asset.duration:
        out["duration"] = asset.duration
    return out
