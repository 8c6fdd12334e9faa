"""Content reads: org-scoped lists with their filters, and waiting for a generation."""

from __future__ import annotations

import time

from django.db.models import Prefetch

from apps.core.errors import ValidationFailed
from apps.media.models import Kind, MediaAsset

from . import platform_rules, states
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


def parse_statuses(raw: str | None, *, family: str) -> list[str] | None:
    """`status=a,b` in the family's words -> model statuses; an unknown word is a 400 naming the allowed."""
    if not raw:
        return None
    word = states.word_a if family == "v1" else states.word_b
    to_model = states.FROM_FAMILY_A if family == "v1" else states.FROM_FAMILY_B
    allowed = [word(s) for s in states.STATUSES]
    wanted = [w.strip() for w in raw.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in allowed]
    if unknown or not wanted:
        raise ValidationFailed(f"Unknown status: {', '.join(unknown) or raw}.", {"status": [f"Allowed: {', '.join(allowed)}."]})
    return [to_model.get(w, w) for w in wanted]


def parse_platform(raw: str | None) -> str | None:
    if not raw:
        return None
    try:
        return platform_rules.normalize_platform(raw)
    except ValueError:
        raise ValidationFailed(f"Unknown platform '{raw}'.", {"platform": [f"Must be one of {', '.join(platform_rules.SUPPORTED_PLATFORMS)}."]}) from None


def content_list(*, organization, statuses: list[str] | None = None, platform: str | None = None, profile_id=None,
                 created_from=None, created_to=None, tag_id=None, campaign_id=None, tags: bool = False):
    qs = Content.objects.for_organization(organization)
    if statuses:
        qs = qs.filter(status__in=statuses)
    if platform:
        # `platforms` is a JSON list of lowercase names; quoting the name matches one element exactly
        qs = qs.filter(platforms__icontains=f'"{platform}"')
    if profile_id:
        qs = qs.filter(profile_id=profile_id)
    if created_from:
        qs = qs.filter(created_at__gte=created_from)
    if created_to:
        qs = qs.filter(created_at__lte=created_to)
    if tag_id:
        qs = qs.filter(tags__id=tag_id)
    if campaign_id:
        qs = qs.filter(campaign_id=campaign_id)
    return _with_media(qs, tags=tags)


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


def schedule_list(*, organization, status: str | None = None, profile_id=None):
    qs = ContentSchedule.objects.for_organization(organization).select_related("content")
    if status:
        allowed = (ContentSchedule.PLANNED, ContentSchedule.GENERATING, ContentSchedule.GENERATED, ContentSchedule.FAILED)
        if status not in allowed:
            raise ValidationFailed(f"Unknown status '{status}'.", {"status": [f"Allowed: {', '.join(allowed)}."]})
        qs = qs.filter(status=status)
    if profile_id:
        qs = qs.filter(profile_id=profile_id)
    return qs


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
