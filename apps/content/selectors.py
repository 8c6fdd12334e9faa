"""Content reads: org-scoped lists with their filters, and waiting for a generation."""

from __future__ import annotations

import time

from django.db.models import Prefetch

from apps.media.models import Kind, MediaAsset

from . import states
from .models import Batch, Campaign, Content, ContentSchedule, Tag

#: media shown with a content item (backups of edited images stay hidden)
SHOWN_MEDIA = (Kind.GENERATED, Kind.UPLOAD)


def current_media(content: Content):
    return current_media_for([content.pk])


def current_media_for(content_ids):
    """The media currently attached to these contents (not edit backups), in order."""
    return MediaAsset.objects.filter(content_id__in=content_ids, kind__in=SHOWN_MEDIA).order_by("position", "created_at")


def _publications():
    """Publishing's rows of a content (`Content.publications`, declared by publishing): read
    through the relation, so content does not import publishing."""
    return Content._meta.get_field("publications").related_model.objects


def _with_media(qs, *, tags: bool = False):
    media = MediaAsset.objects.filter(kind__in=SHOWN_MEDIA).order_by("position", "created_at")
    pubs = _publications().select_related("profile").order_by("scheduled_for", "created_at")
    # the brand decides the allowed actions of content in review (require_approval): joined, not a query per row
    qs = qs.select_related("brand").prefetch_related("variants", Prefetch("media_assets", queryset=media, to_attr="shown_media"),
                             Prefetch("publications", queryset=pubs, to_attr="publication_list"))
    return qs.prefetch_related("tags") if tags else qs


def content_list(*, organization, tags: bool = False):
    """A content list of the organization with what each item's representation needs (its
    filters: content/filters.py)."""
    return _with_media(Content.objects.for_organization(organization), tags=tags)


def content_get(*, organization, tags: bool = False):
    """The queryset one content is looked up in (with what its representation needs)."""
    return _with_media(Content.objects.for_organization(organization), tags=tags)


def content_wait(*, content: Content, seconds: float, interval: float = 0.1) -> Content:
    """Poll until the content leaves pending/generating or `seconds` pass; return it fresh."""
    deadline = time.monotonic() + seconds
    while True:
        status = Content.objects.filter(pk=content.pk).values_list("status", flat=True).first()
        if status not in (states.PENDING, states.GENERATING) or time.monotonic() >= deadline:
            break
        time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
    return content_get(organization=content.organization_id).get(pk=content.pk)


def schedule_list(*, organization):
    return ContentSchedule.objects.for_organization(organization).select_related("content")


def batch_list(*, organization):
    items = Content.objects.only("id", "status", "progress", "batch_id").order_by("created_at")
    return Batch.objects.for_organization(organization).prefetch_related(Prefetch("contents", queryset=items, to_attr="items"))


def tag_list(*, organization):
    return Tag.objects.for_organization(organization)


def campaign_list(*, organization):
    return Campaign.objects.for_organization(organization)


def subject_owned(model, organization, object_id) -> bool:
    """A content or batch a websocket subscribes to exists in `organization` (None: staff)."""
    qs = model.objects.filter(pk=object_id)
    if organization is not None:
        qs = qs.filter(organization=organization)
    return qs.exists()
