"""The leanest view returning the same JSON as GET /v1/brands: the benchmark's baseline.

Mounted only when POSTFORGE_BENCH_VIEWS=1 (bench/api_list.py sets it)."""

from __future__ import annotations

import math

import orjson
from django.http import HttpResponse

from apps.accounts.models import ApiKey
from apps.brands.models import Brand


def lean_brands(request):
    organization_id = _organization_id(request)
    if organization_id is None:
        return HttpResponse(status=401)
    limit = int(request.GET.get("limit", 20))
    qs = Brand.objects.filter(organization_id=organization_id)
    total = qs.count()
    rows = qs.order_by("-created_at", "-pk").values(
        "id",
        "name",
        "description",
        "voice",
        "tone",
        "primary_color",
        "secondary_color",
        "hashtags",
        "fonts",
        "is_default",
        "created_at",
        "updated_at",
    )[:limit]
    data = [
        {
            "id": f"brd_{r['id'].hex}",
            "name": r["name"],
            "description": r["description"],
            "guidelines": {
                "voice": r["voice"],
                "tone": r["tone"],
                "colors": {"primary": r["primary_color"] or None, "secondary": r["secondary_color"] or None},
                "hashtags": r["hashtags"],
            },
            "assets": {"logo": None, "fonts": r["fonts"]},
            "isDefault": r["is_default"],
            "createdAt": r["created_at"],
            "updatedAt": r["updated_at"],
        }
        for r in rows
    ]
    body = {
        "data": data,
        "pagination": {"page": 1, "limit": limit, "total": total, "pages": math.ceil(total / limit)},
    }
    return HttpResponse(orjson.dumps(body, option=orjson.OPT_UTC_Z), content_type="application/json")


def nodb(request):
    return HttpResponse(b'{"ok":true}', content_type="application/json")


def _organization_id(request):
    """The organization of the request's API key (the lean views' whole authentication)."""
    secret = request.headers.get("Authorization", "").removeprefix("Bearer ")
    key = ApiKey.objects.filter(hashed=ApiKey.hash_secret(secret)).values("organization_id").first()
    return key and key["organization_id"]


def _variants(content_ids) -> dict:
    """Each content's variants by platform, as both families' items show them."""
    from apps.content.models import Variant

    variants: dict = {}
    for v in Variant.objects.filter(content_id__in=content_ids).values(
        "content_id",
        "platform",
        "caption",
        "hashtags",
        "first_comment",
        "alt_text",
        "title",
        "sounds",
        "adaptations",
    ):
        variants.setdefault(v["content_id"], {})[v["platform"]] = {
            "caption": v["caption"],
            "hashtags": v["hashtags"],
            "firstComment": v["first_comment"],
            "altText": v["alt_text"],
            "title": v["title"],
            "sounds": v["sounds"],
            "adaptations": v["adaptations"],
        }
    return variants


def lean_content(request):
    """The leanest view returning GET /v1/content's page: content rows, their variants, shown
    media and publications, each read with .values() (four queries and the count), no models."""
    from apps.content import states
    from apps.content.models import Content
    from apps.content.selectors import SHOWN_MEDIA
    from apps.media.models import MediaAsset
    from apps.publishing.models import Publication

    organization_id = _organization_id(request)
    if organization_id is None:
        return HttpResponse(status=401)
    limit = int(request.GET.get("limit", 20))
    page = int(request.GET.get("page", 1))
    qs = Content.objects.filter(organization_id=organization_id)
    total = qs.count()
    rows = list(
        qs.order_by("-created_at", "-pk").values(
            "id",
            "status",
            "platforms",
            "created_at",
            "scheduled_for",
            "published_at",
            "brand_id",
            "prompt",
            "post_type",
            "media_type",
            "dimensions",
            "progress",
            "status_reason",
        )[(page - 1) * limit : page * limit]
    )
    ids_ = [r["id"] for r in rows]
    variants = _variants(ids_)
    media: dict = {}
    for m in (
        MediaAsset.objects.filter(content_id__in=ids_, kind__in=SHOWN_MEDIA)
        .order_by("position", "created_at")
        .values("content_id", "id", "media_type", "file", "thumbnail", "width", "height", "duration")
    ):
        media.setdefault(m["content_id"], []).append(
            {
                "id": f"med_{m['id'].hex}",
                "type": m["media_type"],
                "url": m["file"],
                "thumbnailUrl": m["thumbnail"],
                "dimensions": {"width": m["width"], "height": m["height"]},
                "duration": m["duration"],
            }
        )
    publications: dict = {}
    for p in Publication.objects.filter(content_id__in=ids_).values(
        "content_id", "id", "platform", "status", "scheduled_for", "published_at", "url", "last_error"
    ):
        publications.setdefault(p["content_id"], []).append(
            {
                "id": f"pub_{p['id'].hex}",
                "platform": p["platform"],
                "status": p["status"],
                "scheduledFor": p["scheduled_for"],
                "publishedAt": p["published_at"],
                "url": p["url"],
                "error": p["last_error"] or None,
            }
        )
    data = [
        {
            "id": f"cnt_{r['id'].hex}",
            "status": states.word_a(r["status"]),
            "platforms": r["platforms"],
            "createdAt": r["created_at"],
            "scheduledFor": r["scheduled_for"],
            "publishedAt": r["published_at"],
            "content": variants.get(r["id"], {}),
            "media": media.get(r["id"], []),
            "brandId": f"brd_{r['brand_id'].hex}",
            "prompt": r["prompt"],
            "postType": r["post_type"],
            "mediaType": r["media_type"],
            "dimensions": r["dimensions"],
            "progress": r["progress"],
            "statusReason": r["status_reason"] or None,
            "publications": publications.get(r["id"], []),
            "allowedActions": states.allowed_actions(r["status"], require_approval=False),
        }
        for r in rows
    ]
    body = {
        "data": data,
        "pagination": {"page": page, "limit": limit, "total": total, "pages": math.ceil(total / limit)},
    }
    return HttpResponse(orjson.dumps(body, option=orjson.OPT_UTC_Z), content_type="application/json")


def lean_content_b(request):
    """The leanest view returning GET /api/content's page (Family B's items: every field of
    `content.api.serializers.present_content`, tag ids, offset paging): content rows, their
    variants, shown media, publications and tag links, each read with .values(), no models."""
    from apps.content import states
    from apps.content.models import Content
    from apps.content.selectors import SHOWN_MEDIA
    from apps.media.models import MediaAsset
    from apps.publishing.models import Publication

    organization_id = _organization_id(request)
    if organization_id is None:
        return HttpResponse(status=401)
    limit = int(request.GET.get("limit", 20))
    offset = int(request.GET.get("offset", 0))
    qs = Content.objects.filter(organization_id=organization_id)
    total = qs.count()
    rows = list(
        qs.order_by("-created_at", "-pk").values(
            "id",
            "status",
            "platforms",
            "post_type",
            "profile_id",
            "media_type",
            "dimensions",
            "generation_mode",
            "prompt",
            "brand_id",
            "progress",
            "status_reason",
            "campaign_id",
            "batch_id",
            "scheduled_for",
            "published_at",
            "created_at",
            "updated_at",
        )[offset : offset + limit]
    )
    ids_ = [r["id"] for r in rows]
    variants = _variants(ids_)
    media: dict = {}
    for m in (
        MediaAsset.objects.filter(content_id__in=ids_, kind__in=SHOWN_MEDIA)
        .order_by("position", "created_at")
        .values("content_id", "id", "media_type", "file", "thumbnail", "width", "height", "duration")
    ):
        item = {
            "id": str(m["id"]),
            "type": m["media_type"],
            "url": m["file"],
            "thumbnailUrl": m["thumbnail"],
            "dimensions": {"width": m["width"], "height": m["height"]},
        }
        if m["duration"]:
            item["duration"] = m["duration"]
        media.setdefault(m["content_id"], []).append(item)
    tags: dict = {}
    for content_id, tag_id in Content.tags.through.objects.filter(content_id__in=ids_).values_list(
        "content_id", "tag_id"
    ):
        tags.setdefault(content_id, []).append(str(tag_id))
    publications: dict = {}
    for p in Publication.objects.filter(content_id__in=ids_).values(
        "content_id",
        "id",
        "profile_id",
        "platform",
        "status",
        "scheduled_for",
        "published_at",
        "external_id",
        "url",
        "attempts",
        "last_error",
        "first_comment_error",
    ):
        publications.setdefault(p["content_id"], []).append(
            {
                "id": str(p["id"]),
                "contentId": str(p["content_id"]),
                "profileId": str(p["profile_id"]),
                "platform": p["platform"],
                "status": p["status"],
                "scheduledFor": p["scheduled_for"],
                "publishedAt": p["published_at"],
                "externalId": p["external_id"] or None,
                "url": p["url"] or None,
                "attempts": p["attempts"],
                "lastError": p["last_error"] or None,
                "firstCommentError": p["first_comment_error"] or None,
            }
        )

    def uuid_or_none(value):
        return str(value) if value else None

    data = [
        {
            "id": str(r["id"]),
            "status": states.word_b(r["status"]),
            "platform": r["platforms"][0] if r["platforms"] else None,
            "platforms": r["platforms"],
            "postType": r["post_type"],
            "socialProfileId": uuid_or_none(r["profile_id"]),
            "media": r["media_type"],
            "dimensions": r["dimensions"],
            "generationMode": r["generation_mode"],
            "prompt": r["prompt"],
            "brandId": str(r["brand_id"]),
            "progress": r["progress"],
            "statusReason": r["status_reason"] or None,
            "content": variants.get(r["id"], {}),
            "mediaAssets": media.get(r["id"], []),
            "tagIds": sorted(tags.get(r["id"], [])),
            "campaignId": uuid_or_none(r["campaign_id"]),
            "batchId": uuid_or_none(r["batch_id"]),
            "scheduledFor": r["scheduled_for"],
            "publishedAt": r["published_at"],
            "createdAt": r["created_at"],
            "updatedAt": r["updated_at"],
            "publications": publications.get(r["id"], []),
            "allowedActions": states.allowed_actions(r["status"], require_approval=False),
        }
        for r in rows
    ]
    body = {
        "data": data,
        "pagination": {
            "limit": limit,
            "offset": offset,
            "total": total,
            "hasNext": offset + len(rows) < total,
            "hasPrev": offset > 0,
        },
    }
    return HttpResponse(orjson.dumps(body, option=orjson.OPT_UTC_Z), content_type="application/json")
