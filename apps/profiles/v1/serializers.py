from __future__ import annotations

from rest_framework import serializers

from apps.core import ids
from apps.core.serializers import StrictSerializer, iso

from ..api import serializers as api_serializers
from ..api.serializers import ProfileSettingsFields, account_type_of, settings_of


def present_profile(profile, request=None) -> dict:
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
        "sandbox": profile.sandbox,
        "tokenExpiresAt": iso(profile.token_expires_at),
        "accountType": account_type_of(profile),
    }


class ProfileOutput(api_serializers.ProfileFields):
    # one output shape, two id forms: Family A presents prefixed ids
    def present(self, instance) -> dict:
        return present_profile(instance, self.request)


class ProfileSettingsInput(StrictSerializer):
    displayName = serializers.CharField(required=False, max_length=200, allow_blank=True)
    settings = ProfileSettingsFields(required=False)
