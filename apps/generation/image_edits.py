"""Editing a content's current image (the previous one is kept as a backup).

A designed image (the local engine's, its spec in the media's metadata) is edited on its layers
too: "headline \"...\"", "primary colour #...", "layout quote", "background gradient" draw the
design again from its spec with the change (type re-fitted, contrast re-checked, alt text
rewritten from what is drawn); the other clauses ("brighter, crop to 4:5") are pixel edits by
the image model, applied after."""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction

from apps.content import selectors, states
from apps.content.machine import event_data
from apps.content.models import Content, Variant
from apps.events.services import event_record
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_create_from_bytes

from .base import ImageRequest, ImageResult, PostDesign
from .engines import get_engine
from .local_media.layer_edits import apply_changes, parse_layer_edits
from .local_media.posts import make_post_image
from .media_design import brand_logo, brand_photo


def _redesign(content: Content, current: MediaAsset, design: dict, changes: dict) -> ImageResult:
    """The designed image drawn again from its spec with ``changes``."""
    spec = apply_changes({k: v for k, v in design.items() if k not in _PLACEMENT}, changes)
    colours = spec.get("colours") or {}
    brand_voice = _voice(content, colours)
    request = ImageRequest(
        prompt=content.prompt,
        width=current.width or 1080,
        height=current.height or 1080,
        style=design.get("style") or "illustration",
        brand=brand_voice,
        seed=int(design.get("seed") or 0),
        format="JPEG" if current.content_type == "image/jpeg" else "PNG",
        design=PostDesign(
            spec=spec,
            platform=design.get("platform", ""),
            post_type=design.get("postType", "feed"),
            language=design.get("language", "en"),
            logo=brand_logo(content),
            photo=brand_photo(content),
            fonts=tuple(design.get("fonts") or ()),
            slide=int(design.get("slide") or 0),
            slides=int(design.get("slides") or 1),
        ),
    )
    data, content_type, alt, notes, stored = make_post_image(request)
    return ImageResult(data, request.width, request.height, content_type, alt, notes, stored)


#: what the stored design records about where it was drawn, not what it draws
_PLACEMENT = ("platform", "postType", "language", "slide", "slides", "style", "seed", "font")


def _voice(content: Content, colours: dict):
    from apps.brands.services import effective_settings

    from .voice import voice_from

    values, _ = effective_settings(brand=content.brand, profile=content.profile, post=content.settings)
    voice = voice_from(values, content.brand)
    return dataclasses.replace(
        voice,
        primary_color=colours.get("primary") or voice.primary_color,
        secondary_color=colours.get("secondary") or voice.secondary_color,
    )


def edit_image(content_id, prompt: str) -> MediaAsset | None:
    """Edit the current image (layers, then pixels); the previous one is kept as a backup."""
    engine = get_engine()
    content = Content.objects.filter(pk=content_id).first()
    if content is None or content.status != states.REVIEW:
        return None
    current = selectors.current_media(content).filter(media_type="image").first()
    if current is None:
        return None
    design = (current.metadata or {}).get("design")
    changes, pixel_prompt = parse_layer_edits(prompt) if design else ({}, prompt)
    result: ImageResult | None = None
    if changes and design:
        result = _redesign(content, current, design, changes)
    if pixel_prompt or result is None:
        if result is None:
            with current.file.open("rb") as fh:
                original = fh.read()
        else:
            original = result.data
        edited = engine.edit_image(image=original, prompt=pixel_prompt or prompt, seed=content.seed)
        # pixels changed on top of the layers: the design can no longer be drawn again as is
        result = dataclasses.replace(edited, alt_text=result.alt_text if result else "", design=None)
    with transaction.atomic():
        locked = Content.objects.select_for_update().get(pk=content.pk)
        if locked.status != states.REVIEW:
            return None
        MediaAsset.objects.filter(pk=current.pk).update(kind=Kind.BACKUP)
        metadata: dict[str, Any] = {"editedFrom": str(current.pk), "prompt": prompt}
        if result.design:
            metadata["design"] = dict(result.design)
        edited_asset = media_create_from_bytes(
            organization=locked.organization_id,
            data=result.data,
            content_type=result.content_type,
            kind=Kind.GENERATED,
            brand=locked.brand,
            width=result.width,
            height=result.height,
            content=locked,
            position=current.position,
            metadata=metadata,
            ratio=current.ratio,  # still the picture of the platforms of its shape
        )
        if result.alt_text and current.position == 0:
            # the alt text follows what is now drawn, on the variants that still carried the
            # generated one (a reviewer's own alt text is left alone)
            old_alt = (current.metadata or {}).get("altText", "")
            if old_alt:
                Variant.objects.filter(content=locked, alt_text=old_alt).update(alt_text=result.alt_text)
            MediaAsset.objects.filter(pk=edited_asset.pk).update(
                metadata={**metadata, "altText": result.alt_text}
            )
        event_record(
            organization=locked.organization_id,
            type="content.updated",
            data=event_data(locked, imageEdited=True, mediaId=str(edited_asset.pk)),
        )
    return edited_asset
