from __future__ import annotations

from rest_framework import serializers

from apps.core import ids
from apps.core.serializers import StrictSerializer, iso

from ..api.serializers import ProfileSettingsFields, settings_of


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


def present(profile, request=None) -> dict:
    return {
        "id": ids.render(profile.pk, "profile"),
        "platform": profile.platform,
        "username": profile.username,
        "displayName": profile.display_name,
        "connected": profile.connected,
        "connectedAt": iso(profile.connected_at),
        "followerCount": profile.follower_count,
        "profilePicture": profile.picture_url or None,
        "brandId": ids.render(profile.brand_id, "brand"),
        "settings": settings_of(profile),
    }


class ProfileSettingsInput(StrictSerializer):
    displayName = serializers.CharField(required=False, max_length=200, allow_blank=True)
    settings = ProfileSettingsFields(required=False)
