from __future__ import annotations

from rest_framework import serializers

from apps.brands.api.serializers import GenerationSettingsInput
from apps.core.serializers import StrictSerializer, iso


class ProfileSettingsFields(StrictSerializer):
    autoHashtags = serializers.ListField(child=serializers.CharField(max_length=100), required=False, max_length=30)
    defaultVisibility = serializers.CharField(required=False, max_length=20)
    postingTimes = serializers.ListField(child=serializers.CharField(max_length=5), required=False, max_length=48)
    timezone = serializers.CharField(required=False, max_length=64)


class ProfileOutput(serializers.Serializer):
    id = serializers.CharField()
    platform = serializers.CharField()
    username = serializers.CharField()
    displayName = serializers.CharField()
    connected = serializers.BooleanField()
    connectedAt = serializers.DateTimeField(allow_null=True)
    followerCount = serializers.IntegerField()
    profilePicture = serializers.CharField(allow_null=True)
    brandId = serializers.CharField()
    settings = ProfileSettingsFields()


def settings_of(profile) -> dict:
    return {
        "autoHashtags": profile.settings.get("autoHashtags", []),
        "defaultVisibility": profile.settings.get("defaultVisibility", "public"),
        "postingTimes": profile.settings.get("postingTimes", []),
        "timezone": profile.timezone_name,
    }


def present(profile, request=None) -> dict:
    return {
        "id": str(profile.pk),
        "platform": profile.platform,
        "username": profile.username,
        "displayName": profile.display_name,
        "connected": profile.connected,
        "connectedAt": iso(profile.connected_at),
        "followerCount": profile.follower_count,
        "profilePicture": profile.picture_url or None,
        "brandId": str(profile.brand_id),
        "settings": settings_of(profile),
        "tokenStatus": profile.token_status,
        "sandbox": profile.sandbox,
        "createdAt": iso(profile.created_at),
    }


class ProfileGenerationSettingsInput(GenerationSettingsInput):
    """A profile overrides the brand's settings and the post-level knobs (same keys, same rules)."""

    tone = serializers.CharField(required=False, max_length=100)
    length = serializers.ChoiceField(choices=["short", "medium", "long"], required=False)
    creativity = serializers.IntegerField(required=False, min_value=1, max_value=10)
    include_hashtags = serializers.BooleanField(required=False)
    hashtag_count = serializers.IntegerField(required=False, min_value=0, max_value=30)
    include_emojis = serializers.BooleanField(required=False)
    language = serializers.CharField(required=False, min_length=2, max_length=8)


class ProfileSettingsInput(StrictSerializer):
    displayName = serializers.CharField(required=False, max_length=200, allow_blank=True)
    settings = ProfileSettingsFields(required=False)
    generationSettings = ProfileGenerationSettingsInput(required=False)
    brandId = serializers.CharField(required=False, max_length=64)


class ScheduleSlotsInput(StrictSerializer):
    postingTimes = serializers.ListField(child=serializers.CharField(max_length=5), max_length=48)
    timezone = serializers.CharField(required=False, max_length=64)


class BulkItem(serializers.Serializer):
    id = serializers.CharField(max_length=64)
    displayName = serializers.CharField(required=False, max_length=200, allow_blank=True)
    settings = serializers.DictField(required=False)
    generationSettings = ProfileGenerationSettingsInput(required=False)


class BulkInput(StrictSerializer):
    updates = BulkItem(many=True, allow_empty=False, max_length=100)
