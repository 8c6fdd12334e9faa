from __future__ import annotations

from rest_framework import serializers

from apps.brands.fields import LinkTrackingField
from apps.core import ids
from apps.core.serializers import HexColorField, OutputSerializer, StrictSerializer, iso
from apps.core.storage import absolute_url

from ..link_tracking import link_tracking_of


class ColorsSerializer(StrictSerializer):
    primary = HexColorField(required=False, allow_blank=True)
    secondary = HexColorField(required=False, allow_blank=True)


class GuidelinesSerializer(StrictSerializer):
    voice = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    tone = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=20)
    colors = ColorsSerializer(required=False)
    hashtags = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, max_length=60
    )


def logo_of(brand, request) -> str | None:
    """The logo URL the client gave, else the uploaded logo asset's URL, else None."""
    if brand.logo_url:
        return brand.logo_url
    return absolute_url(request, brand.logo.file) if brand.logo_id else None


class AssetsSerializer(StrictSerializer):
    logo = serializers.CharField(required=False, allow_blank=True, allow_null=True, max_length=2000)
    fonts = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=20)
    #: what the view reads: an https URL, an uploaded asset's id (one that names nothing is a
    #: 400), or empty/null to clear it
    openapi_fields = {
        "logo": {
            "anyOf": [
                {"type": "string", "format": "uri", "pattern": "^https://"},
                {"type": "string", "pattern": f"^{ids.PREFIXES['asset']}_[0-9a-f]{{32}}$"},
                {"type": "string", "maxLength": 0},
            ],
            "description": "An https URL, or the assetId of an image uploaded to this brand "
            "(POST /v1/brands/{id}/assets); empty or null removes the logo",
        }
    }


class BrandInput(StrictSerializer):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    guidelines = GuidelinesSerializer(required=False)
    assets = AssetsSerializer(required=False)
    #: tracked links (UTM templates, short links): README "Tracked links"
    linkTracking = LinkTrackingField(required=False)

    def to_fields(self) -> dict:
        data = self.validated_data
        fields: dict = {}
        for key in ("name", "description"):
            if key in data:
                fields[key] = data[key]
        g = data.get("guidelines") or {}
        for src, dst in (("voice", "voice"), ("tone", "tone"), ("hashtags", "hashtags")):
            if src in g:
                fields[dst] = g[src]
        colors = g.get("colors") or {}
        if "primary" in colors:
            fields["primary_color"] = colors["primary"]
        if "secondary" in colors:
            fields["secondary_color"] = colors["secondary"]
        a = data.get("assets") or {}
        if "fonts" in a:
            fields["fonts"] = a["fonts"]
        if "logo" in a:
            fields["logo_ref"] = a["logo"]
        if "linkTracking" in data:
            fields["link_tracking"] = data["linkTracking"]
        return fields


class BrandUpdateInput(BrandInput):
    name = serializers.CharField(max_length=200, required=False)


class ColorsOutput(serializers.Serializer):
    primary = serializers.CharField(allow_null=True)
    secondary = serializers.CharField(allow_null=True)


class GuidelinesOutput(serializers.Serializer):
    voice = serializers.CharField()
    tone = serializers.ListField(child=serializers.CharField())
    colors = ColorsOutput()
    hashtags = serializers.ListField(child=serializers.CharField())


class AssetsOutput(serializers.Serializer):
    logo = serializers.URLField(allow_null=True)
    fonts = serializers.ListField(child=serializers.CharField())


class BrandOutput(OutputSerializer):
    """Declared for the schema; `present` renders it by hand (lists are hot paths).

    Its own output shapes, not the input serializers: an unset colour or logo is `null`."""

    def present(self, instance) -> dict:
        return present_brand(instance, self.request)

    id = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    guidelines = GuidelinesOutput()
    assets = AssetsOutput()
    linkTracking = serializers.DictField()
    isDefault = serializers.BooleanField()
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


def present_brand(brand, request=None) -> dict:
    return {
        "id": ids.render(brand.pk, "brand"),
        "name": brand.name,
        "description": brand.description,
        "guidelines": {
            "voice": brand.voice,
            "tone": brand.tone,
            "colors": {"primary": brand.primary_color or None, "secondary": brand.secondary_color or None},
            "hashtags": brand.hashtags,
        },
        "assets": {"logo": logo_of(brand, request), "fonts": brand.fonts},
        "linkTracking": link_tracking_of(brand.link_tracking),
        "isDefault": brand.is_default,
        "createdAt": iso(brand.created_at),
        "updatedAt": iso(brand.updated_at),
    }


class AssetOutput(serializers.Serializer):
    assetId = serializers.CharField()
    type = serializers.ChoiceField(choices=("image", "video", "font"))
    url = serializers.URLField()
    metadata = serializers.DictField()


def present_asset(asset, request=None) -> dict:
    return {
        "assetId": ids.render(asset.pk, "asset"),
        "type": asset.media_type,
        "url": absolute_url(request, asset.file),
        "metadata": {
            "filename": asset.original_filename,
            "size": asset.size,
            "dimensions": {"width": asset.width, "height": asset.height},
            "contentType": asset.content_type,
            "thumbnailUrl": absolute_url(request, asset.thumbnail),
            **({"duration": asset.duration} if asset.duration else {}),
            # a brand font (issue 30): family, style, the scripts it covers, its OS/2 fsType
            **({"font": (asset.metadata or {}).get("font") or {}} if asset.kind == "font" else {}),
        },
    }
