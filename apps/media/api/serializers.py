from __future__ import annotations

from rest_framework import serializers

from apps.core.serializers import OutputSerializer, iso
from apps.core.storage import absolute_url

from ..models import Kind


def present_media(asset, request=None) -> dict:
    return {
        "id": str(asset.pk),
        "kind": asset.kind,
        "type": asset.media_type,
        "url": absolute_url(request, asset.file),
        "thumbnailUrl": absolute_url(request, asset.thumbnail),
        "contentType": asset.content_type,
        "size": asset.size,
        "width": asset.width,
        "height": asset.height,
        "duration": asset.duration,
        "filename": asset.original_filename,
        "brandId": str(asset.brand_id) if asset.brand_id else None,
        "createdAt": iso(asset.created_at),
        # a brand font (issue 30): family, style, the scripts it covers, its OS/2 fsType
        **({"font": (asset.metadata or {}).get("font") or {}} if asset.kind == Kind.FONT else {}),
    }


def present_thumbnail(asset, request=None) -> dict:
    media = present_media(asset, request)
    return {"id": str(asset.pk), "thumbnailUrl": media["thumbnailUrl"], "url": media["url"]}


class ThumbnailOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_thumbnail(instance, self.request)

    id = serializers.UUIDField()
    thumbnailUrl = serializers.URLField()
    url = serializers.URLField()


class MediaOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_media(instance, self.request)

    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=Kind.values)
    type = serializers.ChoiceField(choices=("image", "video", "font"))
    url = serializers.URLField()
    thumbnailUrl = serializers.URLField(allow_null=True)
    contentType = serializers.CharField()
    size = serializers.IntegerField()
    width = serializers.IntegerField(allow_null=True)
    height = serializers.IntegerField(allow_null=True)
    duration = serializers.FloatField(allow_null=True)
    filename = serializers.CharField()
    brandId = serializers.UUIDField(allow_null=True)
    createdAt = serializers.DateTimeField()
    font = serializers.DictField(required=False)
