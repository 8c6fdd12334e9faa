"""Content reads: org-scoped lists with their filters, and waiting for a generation."""

from __future__ import annotations

import time
from typing import Any

from django.db.models import F, Prefetch

from apps.media.models import Kind, MediaAsset

from . import states
from .models import Batch, Campaign, Content, ContentSchedule, Tag, Variant

#: media shown with a content item (backups of edited images stay hidden)
SHOWN_MEDIA = (Kind.GENERATED, Kind.UPLOAD)


def current_media(content: Content):
    return current_media_for([content.pk])


def current_media_for(content_ids):
    """The media currently attached to these contents (not edit backups), in order."""
    return MediaAsset.objects.filter(content_id__in=content_ids, kind__in=SHOWN_MEDIA).order_by(
        "position", "created_at"
    )


def media_for_ratio(assets: list[MediaAsset], ratio: str) -> list[MediaAsset]:
    """Of a content's current media (in order), what a variant of ``ratio`` shows: the
    pictures drawn for that ratio and the shared media (uploads, a video: ``ratio`` "").
    Pictures drawn for other ratios are other platforms'; when none was drawn for this one
    (a content generated before per-platform pictures, or a platform added since) it gets the
    shared media and the first ratio's pictures, as every platform did before."""
    if not any(a.ratio for a in assets):
        return list(assets)
    if any(a.ratio == ratio for a in assets):
        return [a for a in assets if a.ratio in ("", ratio)]
    first = next(a.ratio for a in assets if a.ratio)
    return [a for a in assets if a.ratio in ("", first)]


def _publications():
    """Publishing's rows of a content (`Content.publications`, declared by publishing): read
    through the relation, so content does not import publishing."""
    return Content._meta.get_field("publications").related_model.objects


def _with_media(qs, *, tags: bool = False):
    media = MediaAsset.objects.filter(kind__in=SHOWN_MEDIA).order_by("position", "created_at")
    pubs = _publications().select_related("profile").order_by("scheduled_for", "created_at")
    # the brand decides the allowed actions of content in review (require_approval): joined, not a query per row
    qs = qs.select_related("brand").prefetch_related(
        "variants",
        Prefetch("media_assets", queryset=media, to_attr="shown_media"),
        Prefetch("publications", queryset=pubs, to_attr="publication_list"),
    )
    return qs.prefetch_related("tags") if tags else qs


#: the Content columns a list page presents (both families); the rest stay unread
LIST_FIELDS = (
    "id",
    "organization",
    "brand",
    "profile",
    "campaign",
    "batch",
    "status",
    "status_reason",
    "progress",
    "platforms",
    "prompt",
    "generation_mode",
    "post_type",
    "media_type",
    "dimensions",
    "scheduled_for",
    "published_at",
    "created_at",
    "updated_at",
    # what it is written for (issue 31): `serializers.present_intent`
    "intent",
    "intent_confidence",
    "intent_source",
    # an agent's content (issue 32): `serializers.present_agent`
    "created_via",
    "agent_name",
    "api_key",
    "proposed_for",
    # what an AI made (issue 32)
    "ai_disclosure",
    "ai_disclosure_overridden",
)
#: a shown media item's columns its presentation reads (`serializers.present_media_item`; the
#: files as their stored names)
MEDIA_FIELDS = ("pk", "content_id", "media_type", "file", "thumbnail", "width", "height", "duration", "ratio")
#: a publication's columns its presentation reads (`serializers.present_publication`; the
#: platform is its profile's)
PUBLICATION_FIELDS = (
    "pk",
    "content_id",
    "profile_id",
    "profile__platform",
    "profile__sandbox",
    "status",
    "scheduled_for",
    "published_at",
    "external_id",
    "url",
    "attempts",
    "last_error",
    "first_comment_error",
    "visibility",
)
#: a variant's columns its presentation reads (`serializers.present_variant`)
VARIANT_FIELDS = (
    "content_id",
    "platform",
    "caption",
    "hashtags",
    "first_comment",
    "alt_text",
    "title",
    "sounds",
    "adaptations",
    "ratio",  # which media is this platform's (serializers.media_platforms)
)


def content_rows():
    """Content as a list presents it, of every organization: a list view declares it as its
    `queryset` and the family base scopes it to the caller's (filters: content/filters.py). A
    page of it is made presentable by `content_page` once paged: the brand's approval rule comes
    as a column, not as a brand per row."""
    return Content.objects.only(*LIST_FIELDS).annotate(
        brand_require_approval=F("brand__generation_settings__require_approval")
    )


def content_list(*, organization):
    """`content_rows` of the organization."""
    return content_rows().for_organization(organization)


def content_page(contents: list[Content], *, tags: bool = False) -> list[Content]:
    """A list page's variants, shown media and publications (and with `tags` its tag ids), one
    query each, hung on the rows as `variant_rows`, `shown_media`, `publication_list` (the
    attributes `_with_media`'s prefetches set) and `tag_ids`: plain named rows, not models
    (building a model per variant, media item, publication and its profile was most of a
    page's cost)."""
    by_id: dict[Any, Content] = {c.pk: c for c in contents}
    for content in contents:
        content.variant_rows, content.shown_media, content.publication_list = [], [], []
        if tags:
            content.tag_ids = []
    if not by_id:
        return contents
    if tags:
        tagged = Content.tags.through.objects.filter(content_id__in=list(by_id))
        for content_id, tag_id in tagged.values_list("content_id", "tag_id"):
            by_id[content_id].tag_ids.append(tag_id)
    variants = Variant.objects.filter(content_id__in=list(by_id)).order_by("platform", "pk")
    for row in variants.values_list(*VARIANT_FIELDS, named=True):
        by_id[row.content_id].variant_rows.append(row)
    media = MediaAsset.objects.filter(content_id__in=list(by_id), kind__in=SHOWN_MEDIA).order_by(
        "position", "created_at"
    )
    for asset in media.values_list(*MEDIA_FIELDS, named=True):
        by_id[asset.content_id].shown_media.append(asset)
    pubs = (
        _publications()
        .filter(content_id__in=list(by_id))
        .order_by("scheduled_for", "created_at")
        .values_list(*PUBLICATION_FIELDS, named=True)
    )
    for pub in pubs:
        by_id[pub.content_id].publication_list.append(pub)
    return contents


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


def schedule_rows():
    """Planned posts of every organization (a list view's `queryset`; the base scopes it)."""
    return ContentSchedule.objects.select_related("content")


def schedule_list(*, organization):
    return schedule_rows().for_organization(organization)


def batch_rows():
    """Batches of every organization with their items' progress, as `present_batch` reads them
    (a list view's `queryset`; the base scopes it)."""
    items = Content.objects.only("id", "status", "progress", "batch_id").order_by("created_at")
    return Batch.objects.prefetch_related(Prefetch("contents", queryset=items, to_attr="items"))


def tag_list(*, organization):
    return Tag.objects.for_organization(organization)


def tag_rows():
    """Tags of every organization (a list view's `queryset`; the base scopes it)."""
    return Tag.objects.all()


def campaign_list(*, organization):
    return Campaign.objects.for_organization(organization)


def campaign_rows():
    """Campaigns of every organization (a list view's `queryset`; the base scopes it)."""
    return Campaign.objects.all()


def subject_owned(model, organization, object_id) -> bool:
    """A content or batch a websocket subscribes to exists in `organization` (None: staff)."""
    qs = model.objects.filter(pk=object_id)
    if organization is not None:  # through the organization scoping (a brand-limited caller: its brands)
        qs = model.objects.for_organization(organization).filter(pk=object_id)
    return qs.exists()
