from __future__ import annotations

from rest_framework import serializers

from apps.brands.fields import LinkTrackingField
from apps.core.serializers import FreeFormField, HexColorField, OutputSerializer, StrictSerializer, iso
from apps.core.storage import absolute_url

from ..link_tracking import link_tracking_of


class BrandInput(StrictSerializer):
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=100, required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    primaryColor = HexColorField(required=False, allow_blank=True)
    secondaryColor = HexColorField(required=False, allow_blank=True)
    settings = FreeFormField(required=False)
    metadata = FreeFormField(required=False)
    #: tracked links (UTM templates, short links): README "Tracked links"
    linkTracking = LinkTrackingField(required=False)

    def to_fields(self) -> dict:
        names = {
            "primaryColor": "primary_color",
            "secondaryColor": "secondary_color",
            "linkTracking": "link_tracking",
        }
        return {names.get(k, k): v for k, v in self.validated_data.items()}


class BrandUpdateInput(BrandInput):
    name = serializers.CharField(max_length=200, required=False)


class BrandOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_brand(instance, self.request)

    id = serializers.UUIDField()
    name = serializers.CharField()
    slug = serializers.CharField()
    description = serializers.CharField()
    primaryColor = serializers.CharField(allow_null=True)
    secondaryColor = serializers.CharField(allow_null=True)
    logoUrl = serializers.URLField(allow_null=True)
    settings = serializers.DictField()
    metadata = serializers.DictField()
    linkTracking = serializers.DictField()
    isDefault = serializers.BooleanField()
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


def present_brand(brand, request=None) -> dict:
    return {
        "id": str(brand.pk),
        "name": brand.name,
        "slug": brand.slug,
        "description": brand.description,
        "primaryColor": brand.primary_color or None,
        "secondaryColor": brand.secondary_color or None,
        "logoUrl": brand.logo_url or (absolute_url(request, brand.logo.file) if brand.logo_id else None),
        "settings": brand.settings,
        "metadata": brand.metadata,
        "linkTracking": link_tracking_of(brand.link_tracking),
        "isDefault": brand.is_default,
        "createdAt": iso(brand.created_at),
        "updatedAt": iso(brand.updated_at),
    }


class GuidelinesInput(StrictSerializer):
    do = serializers.ListField(child=serializers.CharField(max_length=500), required=False, max_length=50)
    dont = serializers.ListField(child=serializers.CharField(max_length=500), required=False, max_length=50)


class GenerationSettingsInput(StrictSerializer):
    """The spec's brand generation settings, snake_case as the spec names them."""

    system_prompt = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    caption_style = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    brand_voice = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    temperature = serializers.FloatField(required=False, min_value=0, max_value=1)
    themes = serializers.ListField(child=serializers.CharField(max_length=200), required=False, max_length=50)
    audience = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    hashtags = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, max_length=60
    )
    guidelines = GuidelinesInput(required=False)
    require_approval = serializers.BooleanField(required=False)
    auto_publish = serializers.BooleanField(required=False)
    default_platform_settings = FreeFormField(required=False)


class GuidelinesOutput(serializers.Serializer):
    do = serializers.ListField(child=serializers.CharField())
    dont = serializers.ListField(child=serializers.CharField())


class GenerationSettingsOutput(serializers.Serializer):
    system_prompt = serializers.CharField()
    caption_style = serializers.CharField()
    brand_voice = serializers.CharField()
    temperature = serializers.FloatField()
    themes = serializers.ListField(child=serializers.CharField())
    audience = serializers.CharField()
    hashtags = serializers.ListField(child=serializers.CharField())
    guidelines = GuidelinesOutput()
    require_approval = serializers.BooleanField()
    auto_publish = serializers.BooleanField()
    default_platform_settings = serializers.DictField(help_text="Free-form, stored for the client as given")


class ProfileIdsInput(StrictSerializer):
    profileIds = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=100
    )
