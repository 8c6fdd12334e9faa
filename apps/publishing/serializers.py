"""What both families' publishing endpoints share: the connect flow's redirect URI and the
redirect origins (ids prefixed in A, UUIDs in B)."""

from __future__ import annotations

from rest_framework import serializers

from apps.core import ids
from apps.core.serializers import NamedChoiceField, OutputSerializer, StrictSerializer

#: where a connect flow may send the browser back: a service checks the origin is allowed
REDIRECT_URI = {
    "format": "uri",
    "pattern": "^https://",
    "description": "An https URL on an allowed redirect origin (the organization's own, "
    "OAUTH_ALLOWED_REDIRECT_ORIGINS or PUBLIC_BASE_URL)",
}
#: a Facebook Page's or LinkedIn organization page's numeric id, or empty (the only Page; several: page_required)
PAGE_ID = {"pattern": "^[0-9]*$"}
#: `https://host[:port]` with nothing after it (apps.publishing.oauth.normalize_redirect_origin)
ORIGIN = {
    "pattern": r"^https://(?:[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?\.){0,4}[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?"
    r"(?::[1-9][0-9]{0,3})?$"
}


class ConnectTargetFields(StrictSerializer):
    """A connect's fields in both families: where the flow returns, the brand, and the Page."""

    redirectUri = serializers.CharField(max_length=2000)
    brandId = serializers.CharField(required=False, allow_null=True, max_length=64)
    pageId = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=40,
        trim_whitespace=False,
        help_text="Facebook, or a LinkedIn organization page: the id of the Page to connect (default: the only "
        "Page; several and none named: the callback answers `error=page_required` naming them); the profile lists "
        "them all in `pages`",
    )
    accountType = NamedChoiceField(
        choices=["member", "organization"],
        required=False,
        max_length=20,
        help_text="LinkedIn: `organization` connects an organization page the member administers (Community "
        "Management API; implied by `pageId`), `member` (default) the member's own profile",
    )
    openapi_fields = {"redirectUri": REDIRECT_URI, "pageId": PAGE_ID}


class RedirectOriginInput(StrictSerializer):
    origin = serializers.CharField(max_length=300)
    openapi_fields = {"origin": ORIGIN}


class RedirectOriginOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_redirect_origin(instance, self.view.family)

    id = serializers.CharField()
    origin = serializers.CharField()
    createdAt = serializers.DateTimeField()


def present_redirect_origin(row, family: str) -> dict:
    return {
        "id": ids.render(row.pk, "redirect_origin") if family == "v1" else str(row.pk),
        "origin": row.origin,
        "createdAt": row.created_at.isoformat().replace("+00:00", "Z"),
    }


class BlueskyConnectInput(StrictSerializer):
    """A Bluesky account: its handle (or DID) and an app password made for Postforge."""

    handle = serializers.CharField(max_length=253, help_text="e.g. acme.bsky.social")
    appPassword = serializers.CharField(
        max_length=64,
        trim_whitespace=False,
        help_text="An app password (bsky.app: Settings > Privacy and security > App passwords); "
        "stored encrypted, revocable at Bluesky",
    )
    brandId = serializers.CharField(required=False, allow_null=True, max_length=64)


# --- TikTok: the creator's choices each post carries, and what the composer shows -------------


class TikTokChoicesInput(StrictSerializer):
    """TikTok's content sharing guidelines: the creator picks the privacy level (no default) from
    creator_info's privacy_level_options and consents to each post."""

    privacyLevel = serializers.ChoiceField(
        choices=["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"],
        required=False,
        help_text="Required for a TikTok profile: one of the creator's current privacyLevelOptions "
        "(GET the profile's tiktok/creator-info); an app TikTok has not audited posts SELF_ONLY only",
    )
    consent = serializers.BooleanField(
        required=False,
        help_text="Required, true, for a TikTok profile: the creator agreed to post this content to TikTok",
    )
    disableComment = serializers.BooleanField(required=False)
    disableDuet = serializers.BooleanField(required=False, help_text="Video posts only")
    disableStitch = serializers.BooleanField(required=False, help_text="Video posts only")


#: both families' containsSyntheticMedia option (YouTube's label, and TikTok's is_aigc)
SYNTHETIC_HELP = (
    "YouTube's altered or synthetic content label (containsSyntheticMedia) and TikTok's "
    "AI-generated content label (is_aigc); default: true for generated video, false for uploaded"
)
TIKTOK_HELP = (
    "TikTok only, required when a profile is on TikTok: the creator's privacy level and consent "
    "(and the interaction toggles) for this post"
)


class CreatorInfoOutput(serializers.Serializer):
    profileId = serializers.CharField()
    nickname = serializers.CharField()
    username = serializers.CharField()
    avatarUrl = serializers.CharField(allow_blank=True)
    privacyLevelOptions = serializers.ListField(
        child=serializers.CharField(), help_text="What the creator may choose from, with none preselected"
    )
    maxVideoPostDurationSec = serializers.IntegerField(allow_null=True)
    commentDisabled = serializers.BooleanField()
    duetDisabled = serializers.BooleanField()
    stitchDisabled = serializers.BooleanField()
    appAudited = serializers.BooleanField(
        help_text="false: TikTok has not audited this app, every post is SELF_ONLY (TIKTOK_APP_AUDITED)"
    )
    notice = serializers.CharField(allow_null=True, help_text="What holds this profile's posts back")


def present_creator_info(profile, info, *, family: str) -> dict:
    return {
        "profileId": ids.render(profile.pk, "profile") if family == "v1" else str(profile.pk),
        "nickname": info["nickname"],
        "username": info["username"],
        "avatarUrl": info["avatar_url"],
        "privacyLevelOptions": info["privacy_level_options"],
        "maxVideoPostDurationSec": info["max_video_post_duration_sec"],
        "commentDisabled": info["comment_disabled"],
        "duetDisabled": info["duet_disabled"],
        "stitchDisabled": info["stitch_disabled"],
        "appAudited": info["app_audited"],
        "notice": info["notice"],
    }
