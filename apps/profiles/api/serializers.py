from __future__ import annotations

from rest_framework import serializers
from rest_framework.fields import empty

from apps.brands.api.serializers import GenerationSettingsInput
from apps.core.errors import ValidationFailed
from apps.core.exceptions import details_in
from apps.core.serializers import NamedChoiceField, OutputSerializer, StrictSerializer, iso
from apps.platforms.features import feature_platform, features_allowed
from apps.platforms.gates import capabilities

from ..models import PLATFORMS, TOKEN_STATUSES
from ..services import HHMM, VISIBILITIES, settings_normalized

#: what a profile posts as (``account_type_of``)
ACCOUNT_TYPES = ["account", "page", "organization", "member"]
#: what apps.profiles.services checks: `HH:MM` times and an IANA time zone
SLOT_FIELDS = {
    "postingTimes": {"items": {"type": "string", "pattern": HHMM.pattern}},
    "timezone": {"$ref": "#/components/schemas/Timezone"},
}


class SlotDays(serializers.IntegerField):
    """Days ahead, 1 to 31, read as `int()` reads them; anything else (an empty value too) is one
    400 naming `days`."""

    def get_value(self, dictionary):
        return dictionary.get(self.field_name, empty)  # an empty value is a value (refused), not left out

    def to_internal_value(self, data) -> int:
        try:
            value = int(data)
        except (TypeError, ValueError):
            value = -1
        if not 1 <= value <= 31:
            raise ValidationFailed("days must be between 1 and 31.", {"days": ["Must be 1-31."]})
        return value


class SlotsQuery(serializers.Serializer):
    """GET and PUT /api/profiles/{id}/schedule-slots: how many `days` of upcoming slots to list."""

    days = SlotDays(
        required=False, default=7, min_value=1, max_value=31, help_text="Days of upcoming slots to list"
    )


class ProfileSettingsFields(StrictSerializer):
    autoHashtags = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, max_length=30
    )
    #: the service checks it (its own message); not trimmed, so what the enum leaves out is refused
    defaultVisibility = NamedChoiceField(
        choices=VISIBILITIES, required=False, max_length=20, trim_whitespace=False
    )
    postingTimes = serializers.ListField(
        child=serializers.CharField(max_length=5), required=False, max_length=48
    )
    timezone = serializers.CharField(required=False, max_length=64)
    openapi_fields = SLOT_FIELDS


class ProfileFields(OutputSerializer):
    """What both families present of a profile (Family A's output is this, with prefixed ids)."""

    def present(self, instance) -> dict:
        return present_profile(instance, self.request)

    id = serializers.CharField()
    platform = serializers.ChoiceField(choices=PLATFORMS)
    username = serializers.CharField()
    displayName = serializers.CharField()
    connected = serializers.BooleanField()
    connectedAt = serializers.DateTimeField(allow_null=True)
    followerCount = serializers.IntegerField()
    profilePicture = serializers.CharField(allow_null=True)
    brandId = serializers.CharField()
    settings = ProfileSettingsFields()
    sandbox = serializers.BooleanField(help_text="Connected  to the built-in sandbox, not the platform")
    tokenExpiresAt = serializers.DateTimeField(
        allow_null=True,
        help_text="When the grant's token expires (null: it does not, or it is renewed by itself); "
        "LinkedIn's cannot be renewed without the member: reconnect before then",
    )
    #: per feature: whether the grant allows it and the permissions it lacks
    features = serializers.ListField(child=serializers.DictField(), required=False)
    capabilities = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="What the operator's app review lets this profile do ({capability, allowed, reason}): "
        "YouTube and TikTok public posts before their audits, Pinterest Trial access, X's Free tier",
    )
    pages = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="Facebook: the Pages ({id, name}) the connecting account manages; a LinkedIn organization page: "
        "the pages the connecting member administers; connect again with `pageId` to add another as its own profile",
    )
    accountType = serializers.ChoiceField(
        choices=ACCOUNT_TYPES,
        help_text="What the profile posts as: `page` (a Facebook Page), `organization` (a LinkedIn organization "
        "page), `member` (a LinkedIn member's own profile), `account` (the platform's account)",
    )


class ProfileOutput(ProfileFields):
    """Family B's profile: also its grant's state and when it came."""

    tokenStatus = serializers.ChoiceField(
        choices=TOKEN_STATUSES,
        help_text="`expired`: the platform refused to refresh the grant; reconnect the profile",
    )
    createdAt = serializers.DateTimeField()


def account_type_of(profile) -> str:
    """`page`, `organization`, `member` or `account` (what the profile posts as)."""
    if profile.platform == "facebook":
        return "page"
    if profile.platform == "linkedin":
        return "organization" if profile.external_id.startswith("urn:li:organization:") else "member"
    return "account"


def settings_of(profile) -> dict:
    return {
        "autoHashtags": profile.settings.get("autoHashtags", []),
        "defaultVisibility": profile.settings.get("defaultVisibility", "public"),
        "postingTimes": profile.settings.get("postingTimes", []),
        "timezone": profile.timezone_name,
    }


def present_profile_detail(profile, request=None) -> dict:
    """One profile on its own: also which features its grant allows."""
    return {
        **present_profile(profile, request),
        "features": features_allowed(
            feature_platform(profile.platform, profile.external_id), profile.token_scopes
        ),
        "capabilities": capabilities(profile.platform, sandbox=profile.sandbox),
        **pages_of(profile),
    }


def pages_of(profile) -> dict:
    """Facebook: ``{"pages": [...]}``, the Pages the connecting account manages; a LinkedIn
    organization page: the pages the connecting member administers (other profiles: nothing)."""
    if profile.platform == "facebook":
        return {"pages": list(profile.settings.get("facebookPages") or [])}
    if account_type_of(profile) == "organization":
        return {"pages": list(profile.settings.get("linkedinPages") or [])}
    return {}


def present_profile(profile, request=None) -> dict:
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
        "tokenExpiresAt": iso(profile.token_expires_at),
        "accountType": account_type_of(profile),
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
    """Generation settings may come nested under `generationSettings` or flat at the top level
    (as `/api/brands/:id/settings` takes them); a key given both ways is a 400."""

    displayName = serializers.CharField(required=False, max_length=200, allow_blank=True)
    settings = ProfileSettingsFields(required=False)
    generationSettings = ProfileGenerationSettingsInput(required=False)
    brandId = serializers.CharField(required=False, max_length=64)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            return super().to_internal_value(data)
        generation_keys = set(ProfileGenerationSettingsInput().fields) - set(self.fields)
        flat = {k: v for k, v in data.items() if k in generation_keys}
        if not flat:
            return super().to_internal_value(data)
        nested = data.get("generationSettings")
        if nested is not None and not isinstance(nested, dict):
            return super().to_internal_value(data)
        both = sorted(set(flat) & set(nested or {}))
        if both:
            raise serializers.ValidationError(
                {k: ["Given both flat and under generationSettings; give it once."] for k in both}
            )
        merged = {k: v for k, v in data.items() if k not in flat}
        merged["generationSettings"] = {**(nested or {}), **flat}
        try:
            return super().to_internal_value(merged)
        except serializers.ValidationError as exc:
            detail = exc.detail
            inner = detail.get("generationSettings") if isinstance(detail, dict) else None
            if isinstance(inner, dict):  # report flat keys at the path the client used
                for key in [k for k in inner if k in flat]:
                    detail[key] = inner.pop(key)
                if not inner:
                    detail.pop("generationSettings")
            raise


class ScheduleSlotsInput(StrictSerializer):
    postingTimes = serializers.ListField(child=serializers.CharField(max_length=5), max_length=48)
    timezone = serializers.CharField(required=False, max_length=64)
    openapi_fields = SLOT_FIELDS


class BulkItem(StrictSerializer):
    """One item of `/api/profiles/bulk`: the same fields and rules as the single update."""

    id = serializers.CharField(max_length=64)
    displayName = serializers.CharField(required=False, max_length=200, allow_blank=True)
    settings = ProfileSettingsFields(required=False)
    generationSettings = ProfileGenerationSettingsInput(required=False)

    def validate(self, attrs):
        # what the schemas state of an item's settings (a time zone of their list, HH:MM times,
        # a visibility of its list) is the request's shape, as every other field's value here:
        # a 400 naming the item; what an item meets (a profile not found) is that item's result
        try:
            settings_normalized(attrs.get("settings") or {})
        except ValidationFailed as exc:
            raise serializers.ValidationError({"settings": details_in(exc, "api")}) from None
        return attrs


class BulkInput(StrictSerializer):
    updates = BulkItem(many=True, allow_empty=False, max_length=100)  # type: ignore[call-arg]  # many=True: a ListSerializer
    openapi_fields = {"updates": {"minItems": 1}}
