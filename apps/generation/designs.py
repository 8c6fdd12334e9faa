"""A content's picture in its three layouts (issue 30, "Variety and choice").

The local engine draws a poster in one of three layouts (``local_media.poster.VARIANTS``:
``panel``, ``light``, ``type``), picked by the content's seed. Here a reviewer sees the three
side by side (``design_previews``: the first platform's picture drawn again in each layout,
small, as data URIs: nothing is stored) and picks one (``design_apply``: every platform's
picture drawn again in that layout from its stored spec, replacing the current ones; the
captions stay, the alt text follows what is drawn, the content's history says "design changed
to <layout>"). ``design_next`` is the "new design" action: the layout after the current one.

Only pictures the local designer drew (their spec in ``metadata["design"]``, with a message)
can change layout; an image model's picture, an upload or a video cannot (a RuleViolation)."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from PIL import Image

from apps.content import selectors, states
from apps.content.machine import event_data
from apps.content.models import Content, Variant
from apps.content.services.history import history_record
from apps.core.errors import InvalidSubject, RuleViolation
from apps.events.services import event_record
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_create_from_bytes

from .base import ImageResult
from .image_edits import _redesign
from .local_media.poster import VARIANTS

#: the layouts a reviewer chooses from, in the order they are shown
DESIGNS: tuple[str, ...] = VARIANTS

#: the previews' width in pixels (the three sit side by side on the content page)
PREVIEW_WIDTH = 400


@dataclass(frozen=True)
class DesignPreview:
    design: str  # panel, light or type
    data_uri: str  # a small JPEG of the first platform's picture in this layout
    width: int
    height: int
    current: bool  # the layout the content's pictures are in now


def _spec_of(content: Content, asset: MediaAsset) -> dict[str, Any] | None:
    """The design spec a picture was drawn from: its own, or (a picture whose pixels were
    edited by the image model) its backup's."""
    design = (asset.metadata or {}).get("design")
    if design:
        return dict(design)
    original = (asset.metadata or {}).get("editedFrom")
    if original:
        backup = MediaAsset.objects.filter(pk=original, content=content).first()
        if backup is not None and (backup.metadata or {}).get("design"):
            return dict(backup.metadata["design"])
    return None


def _pictures(content: Content) -> list[tuple[MediaAsset, dict[str, Any]]]:
    """The content's generated pictures with the spec each was drawn from; a RuleViolation
    when there is none whose layout can change."""
    if content.media_type != "image":
        raise RuleViolation("Only a picture has layouts to choose from.", problems={"media": "Not an image."})
    pictures = [
        (asset, _spec_of(content, asset))
        for asset in selectors.current_media(content).filter(kind=Kind.GENERATED, media_type="image")
    ]
    if not pictures or any(spec is None or not spec.get("message") for _, spec in pictures):
        raise RuleViolation(
            "This content's picture was not drawn by the designer: its layout cannot change "
            "(regenerate it to get a designed picture).",
            problems={"media": "No design to redraw."},
        )
    return [(asset, spec) for asset, spec in pictures if spec is not None]


def current_design(content: Content) -> str | None:
    """The layout of the content's first picture (None: no designed picture)."""
    try:
        pictures = _pictures(content)
    except RuleViolation:
        return None
    return str(pictures[0][1].get("variant") or "") or None


def _check_design(design: str) -> str:
    if design not in DESIGNS:
        raise InvalidSubject(
            f"Unknown design '{str(design)[:40]}': use {', '.join(DESIGNS)}.",
            "design",
            f"Must be one of: {', '.join(DESIGNS)}.",
        )
    return design


def design_next(content: Content) -> str:
    """The "new design": the layout after the current one (panel, light, type, panel, ...)."""
    now = str(_pictures(content)[0][1].get("variant") or "")
    return DESIGNS[(DESIGNS.index(now) + 1) % len(DESIGNS)] if now in DESIGNS else DESIGNS[0]


def _draw(content: Content, asset: MediaAsset, spec: dict[str, Any], design: str) -> ImageResult:
    return _redesign(content, asset, spec, {"variant": design})


def design_previews(content: Content, *, width: int = PREVIEW_WIDTH) -> list[DesignPreview]:
    """The first platform's picture drawn in each layout, scaled to ``width`` (JPEG data URIs)."""
    asset, spec = _pictures(content)[0]
    now = str(spec.get("variant") or "")
    previews = []
    for design in DESIGNS:
        result = _draw(content, asset, spec, design)
        with Image.open(io.BytesIO(result.data)) as img:
            small = img.convert("RGB")
            small.thumbnail((width, round(width * img.height / img.width)), Image.Resampling.LANCZOS)
            buf = io.BytesIO()
            small.save(buf, "JPEG", quality=85)
        uri = "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
        previews.append(DesignPreview(design, uri, small.width, small.height, design == now))
    return previews


def design_apply(content_id: Any, design: str, *, actor: Any = None) -> list[MediaAsset] | None:
    """Draw every platform's picture of the content again in ``design``, replacing the current
    pictures (and their edit backups); the text stays, the alt text that described the old
    picture describes the new one, the history says "design changed to <design>". Only in
    `review` (like an image edit); None when the content left `review` while drawing."""
    _check_design(design)
    content = Content.objects.filter(pk=content_id).first()
    if content is None or content.status != states.REVIEW:
        return None
    pictures = _pictures(content)
    before = str(pictures[0][1].get("variant") or "")
    drawn = [(asset, _draw(content, asset, spec, design)) for asset, spec in pictures]
    with transaction.atomic():
        locked = Content.objects.select_for_update().get(pk=content.pk)
        if locked.status != states.REVIEW:
            return None
        old = [asset.pk for asset, _ in drawn]
        if MediaAsset.objects.filter(pk__in=old, kind=Kind.GENERATED).count() != len(old):
            return None  # another edit replaced a picture meanwhile
        created = []
        for asset, result in drawn:
            metadata: dict[str, Any] = {"contentId": str(locked.pk), "chosenDesign": design}
            if result.design:
                metadata["design"] = dict(result.design)
            if result.alt_text:
                metadata["altText"] = result.alt_text
            created.append(
                media_create_from_bytes(
                    organization=locked.organization_id,
                    data=result.data,
                    content_type=result.content_type,
                    kind=Kind.GENERATED,
                    brand=locked.brand,
                    width=result.width,
                    height=result.height,
                    content=locked,
                    position=asset.position,
                    metadata=metadata,
                    ratio=asset.ratio,
                )
            )
            old_alt = _old_alt(locked, asset)
            if old_alt and result.alt_text:
                # the alt text follows what is now drawn on the variants that still carried the
                # generated one (a reviewer's own alt text is left alone)
                Variant.objects.filter(content=locked, alt_text=old_alt).update(alt_text=result.alt_text)
        # the replaced pictures go, with the backups of their edits (undo has nothing to go back to)
        MediaAsset.objects.filter(content=locked, kind=Kind.BACKUP).delete()
        MediaAsset.objects.filter(pk__in=old).delete()
        history_record(
            content=locked,
            actor=actor,
            action="design",
            changes={"design": {"before": before, "after": design}},
            note=f"design changed to {design}",
        )
        locked.save(update_fields=["updated_at"])
        event_record(
            organization=locked.organization_id,
            type="content.updated",
            data=event_data(locked, imageEdited=True, design=design, mediaId=str(created[0].pk)),
        )
    return created


def _old_alt(content: Content, asset: MediaAsset) -> str:
    alt = (asset.metadata or {}).get("altText", "")
    if alt:
        return str(alt)
    original = (asset.metadata or {}).get("editedFrom")
    backup = MediaAsset.objects.filter(pk=original, content=content).first() if original else None
    return str((backup.metadata or {}).get("altText", "")) if backup is not None else ""
