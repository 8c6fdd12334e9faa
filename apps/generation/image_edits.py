"""Editing a content's current image with the image model (the previous one is kept as a backup)."""

from __future__ import annotations

from django.db import transaction

from apps.content import selectors, states
from apps.content.models import Content
from apps.events.services import event_record
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_create_from_bytes

from .engines import get_engine


def edit_image(content_id, prompt: str) -> MediaAsset | None:
    """Edit the current image with the image model; the previous one is kept as a backup."""
    engine = get_engine()
    content = Content.objects.filter(pk=content_id).first()
    if content is None or content.status != states.REVIEW:
        return None
    current = selectors.current_media(content).filter(media_type="image").first()
    if current is None:
        return None
    with current.file.open("rb") as fh:
        original = fh.read()
    result = engine.edit_image(image=original, prompt=prompt, seed=content.seed)
    with transaction.atomic():
        locked = Content.objects.select_for_update().get(pk=content.pk)
        if locked.status != states.REVIEW:
            return None
        MediaAsset.objects.filter(pk=current.pk).update(kind=Kind.BACKUP)
        edited = media_create_from_bytes(
            organization=locked.organization_id,
            data=result.data,
            content_type=result.content_type,
            kind=Kind.GENERATED,
            brand=locked.brand,
            width=result.width,
            height=result.height,
            content=locked,
            position=current.position,
            metadata={"editedFrom": str(current.pk), "prompt": prompt},
        )
        event_record(
            organization=locked.organization_id,
            type="content.updated",
            data={
                "contentId": str(locked.pk),
                "status": locked.status,
                "imageEdited": True,
                "mediaId": str(edited.pk),
            },
        )
    return edited
