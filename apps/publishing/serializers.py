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


# --- the pre-flight check (issue 32): what both families ask and answer -------------------------

PREFLIGHT_HELP = (
    "Whether each target profile would accept the post now and at its scheduled time: text in the "
    "platform's unit, media type, size, duration, aspect ratio, frame rate and codec, the profile's "
    "grant (first comment, alt text), its token's expiry, TikTok's creator_info and the operator's "
    "app-level gates. Each problem names a machine `code`, its `subject`, the platform's `rule` and "
    "the `source` the rule is read from. Scheduling runs the same check and answers 409 with this "
    "report when a profile is not ok (an admin may send `force: true`)."
)


class PreflightProblemOutput(serializers.Serializer):
    code = serializers.ChoiceField(
        choices=[
            "platform_not_targeted",
            "variant_missing",
            "format_unsupported",
            "text_rule",
            "media_type",
            "media_size",
            "media_duration",
            "media_aspect_ratio",
            "media_frame_rate",
            "media_codec",
            "feature_not_granted",
            "profile_disconnected",
            "token_expired",
            "token_expires_before_schedule",
            "app_gate",
            "tiktok_privacy_level",
            "tiktok_consent",
            "tiktok_creator_info_unavailable",
            "tiktok_duration",
            "tiktok_interaction_disabled",
        ]
    )
    subject = serializers.CharField(
        help_text="What the problem is about: a field (caption, firstComment), media[i], profile"
    )
    rule = serializers.CharField(help_text="The platform's rule, with this post's figure")
    # the field is named `source` (the metaclass takes it out of the class attributes)
    source = serializers.CharField(  # type: ignore[assignment]
        help_text="Where the rule is written (the platform's documentation, or Postforge's)"
    )


class PreflightProfileOutput(serializers.Serializer):
    profileId = serializers.CharField()
    platform = serializers.CharField()
    ok = serializers.BooleanField()
    problems = PreflightProblemOutput(many=True)


class PreflightOutput(serializers.Serializer):
    ok = serializers.BooleanField(help_text="Every profile would accept the post")
    scheduledFor = serializers.DateTimeField(
        help_text="The time checked (the token's expiry is held against it)"
    )
    profiles = PreflightProfileOutput(many=True)


def present_preflight(reports: list, when, family: str) -> dict:
    return {
        "ok": all(r["ok"] for r in reports),
        "scheduledFor": when.isoformat().replace("+00:00", "Z"),
        "profiles": [
            {**r, "profileId": ids.render(r["profileId"], "profile") if family == "v1" else r["profileId"]}
            for r in reports
        ],
    }


class DraftVariantInput(StrictSerializer):
    caption = serializers.CharField(required=False, allow_blank=True, max_length=70000, trim_whitespace=False)
    hashtags = serializers.ListField(
        child=serializers.CharField(max_length=200), required=False, max_length=200
    )
    firstComment = serializers.CharField(
        required=False, allow_blank=True, max_length=70000, trim_whitespace=False
    )
    altText = serializers.CharField(required=False, allow_blank=True, max_length=70000, trim_whitespace=False)
    title = serializers.CharField(required=False, allow_blank=True, max_length=70000, trim_whitespace=False)


class DraftFields(StrictSerializer):
    """A post not yet created: its text (one for every platform, or per platform), format and media."""

    text = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=70000,
        trim_whitespace=False,
        help_text="The caption for every platform without its own entry in `variants`",
    )
    variants = serializers.DictField(
        child=DraftVariantInput(), required=False, help_text="Per platform (instagram, x...): its text fields"
    )
    postType = serializers.ChoiceField(
        choices=["feed", "story", "reel", "short"], required=False, default="feed"
    )
    mediaType = serializers.ChoiceField(choices=["image", "video"], required=False, default="image")
    mediaIds = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=35,
        help_text="Uploaded media (POST the media endpoint first), in order",
    )
    scheduledFor = serializers.CharField(required=False, max_length=64)
    timezone = serializers.CharField(required=False, max_length=64)


FORCE_HELP = (
    "Admins only: schedule even though the pre-flight check finds problems (without it such a "
    "request is a 409 carrying the check's report in `details.profiles`)"
)


# --- CSV/XLSX import (issue 32) ------------------------------------------------------------------

IMPORT_UPLOAD = {
    "multipart/form-data": {
        "type": "object",
        "properties": {
            "file": {
                "type": "string",
                "format": "binary",
                "description": "A CSV (UTF-8) or XLSX file with a header row; the template is at "
                "/content-import-template.csv",
            }
        },
        "required": ["file"],
        "additionalProperties": False,
    }
}
IMPORT_HELP = (
    "Import posts from a CSV or XLSX file (columns: text or prompt, platforms or profile_ids, date, time, "
    "timezone, media_urls or media_ids, first_comment, tags, brand_id). Every row is checked first, the "
    "pre-flight check included: any problem answers 400 with `rows: [{row, column, problem}]` and creates "
    "nothing. Then the whole file becomes one batch (text rows scheduled, or in review when the brand "
    "requires approval; prompt rows generated), with `batch.progress` events on the websocket. The same "
    "file uploaded again answers 200 with the batch it made (`replayed: true`), creating nothing."
)


class ImportOutput(serializers.Serializer):
    batchId = serializers.CharField()
    replayed = serializers.BooleanField(help_text="This file was imported before: nothing new was created")
    contents = serializers.IntegerField(help_text="Content items the import made")
    scheduled = serializers.IntegerField(help_text="Of which scheduled on their profiles")
    generating = serializers.IntegerField(help_text="Of which generating from their prompt")


def present_import(result, family: str) -> dict:
    return {
        "batchId": ids.render(result.batch.pk, "batch") if family == "v1" else str(result.batch.pk),
        "replayed": result.replayed,
        "contents": result.contents,
        "scheduled": result.scheduled,
        "generating": result.generating,
    }
