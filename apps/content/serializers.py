"""What both families' content output shares (ids prefixed in A, UUIDs in B): each platform's
variant, the media records, and the publications.

Publications are read through `Content.publications` (a relation publishing declares); their
presenter lives beside the content presenters because content output embeds it, and content
never imports publishing. Presenters are named `present_<resource>` in every app: a family's own
in `<app>/<family>/serializers.py`, what both families share in `<app>/serializers.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from apps.core import ids
from apps.core.links import public_url
from apps.core.serializers import OutputSerializer, StrictSerializer, iso
from apps.core.storage import absolute_url
from apps.platforms import rules as platform_rules
from apps.platforms.intents import INTENTS
from apps.profiles.models import PLATFORMS

#: a publication's statuses (apps.publishing.models.Publication.STATUSES, which content does not
#: import: publishing sits above it; tests/core/test_openapi_enums.py holds the two equal)
PUBLICATION_STATUSES = (
    "scheduled",
    "queued",
    "publishing",
    "processing",
    "published",
    "failed",
    "unknown",
    "cancelled",
)


def present_variant(variant, *, post_type: str, media_type: str) -> dict:
    """{caption, hashtags, adaptations} plus the fields the platform has for this format
    (firstComment, altText, title, sounds)."""
    out = {"caption": variant.caption, "hashtags": list(variant.hashtags)}
    try:
        fmt = platform_rules.get_format(variant.platform, post_type, media_type)
    except ValueError:
        fmt = None
    optional = (
        ("firstComment", variant.first_comment, fmt is None or fmt.first_comment_supported),
        ("altText", variant.alt_text, fmt is None or fmt.alt_text_supported),
        ("title", variant.title, fmt is None or fmt.title_supported),
        ("sounds", list(variant.sounds), fmt is None or fmt.sounds_supported),
    )
    for key, value, shown in optional:
        if shown or value:
            out[key] = value
    out["adaptations"] = list(variant.adaptations)
    return out


def present_variants(content) -> dict:
    """Per platform (in platform order): a list page's plain `variant_rows` (selectors.content_page)
    or the content's variants."""
    rows = getattr(content, "variant_rows", None)
    return {
        v.platform: present_variant(v, post_type=content.post_type, media_type=content.media_type)
        for v in (content.variants.all() if rows is None else rows)
    }


def shown_media(content) -> list:
    """The content's current media (prefetched as `shown_media` by the selectors)."""
    media = getattr(content, "shown_media", None)
    if media is None:
        from .selectors import SHOWN_MEDIA

        media = list(content.media_assets.filter(kind__in=SHOWN_MEDIA).order_by("position", "created_at"))
    return media


def media_platforms(content, assets: list) -> dict:
    """Each shown media item's platforms (by pk): those whose variant publishes it. A picture
    drawn for a ratio goes to the variants of that ratio; an upload or a video to every one
    (``selectors.media_for_ratio``, what publishing sends). Reads the prefetched variants."""
    from .selectors import media_for_ratio

    rows = getattr(content, "variant_rows", None)
    out: dict = {a.pk: [] for a in assets}
    for v in content.variants.all() if rows is None else rows:
        for asset in media_for_ratio(list(assets), v.ratio or ""):
            out[asset.pk].append(v.platform)
    return {pk: sorted(platforms) for pk, platforms in out.items()}


def present_media_item(asset, request, render_id, platforms: list[str] | None = None) -> dict:
    """One shown media item: ``ratio`` the shape it was drawn for (null: shared by every
    platform, e.g. an upload) and, with ``platforms`` (``media_platforms``), where it goes."""
    out = {
        "id": render_id(asset.pk),
        "type": asset.media_type,
        "url": absolute_url(request, asset.file),
        "thumbnailUrl": absolute_url(request, asset.thumbnail),
        "dimensions": {"width": asset.width, "height": asset.height},
        "ratio": asset.ratio or None,
    }
    if platforms is not None:
        out["platforms"] = platforms
    if asset.duration:
        out["duration"] = asset.duration
    return out


#: where a content's intent came from (apps.content.services.intent: DETECTED, SET)
INTENT_SOURCES = ("detected", "set")


class IntentOutput(serializers.Serializer):
    """What the content is written for (issue 31): the intent its generation used, as the one
    classifier read it from the brief (`detected`) or as a person or the request set it (`set`)."""

    value = serializers.ChoiceField(
        choices=INTENTS,
        allow_blank=True,
        help_text="The intent the words and the picture were written for; empty when the classifier "
        "was unsure (written with no hook and a neutral call to action) or the text was not generated",
    )
    confidence = serializers.FloatField(
        allow_null=True,
        min_value=0,
        max_value=1,
        help_text="How sure the classifier was (0 to 1; from 0.6 it is sure enough to write for the "
        "intent); 1 when set; null when not recorded (imported text)",
    )
    # DRF's metaclass takes declared fields off the class: `source` shadows Field.source for mypy only
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=INTENT_SOURCES,
        allow_blank=True,
        help_text="detected: read from the brief; set: chosen in settings.intent or on regenerate; "
        "empty: not recorded (imported text)",
    )


def present_intent(content) -> dict:
    """{value, confidence, source} of the intent recorded on ``content`` (IntentOutput)."""
    return {
        "value": content.intent,
        "confidence": content.intent_confidence,
        "source": content.intent_source,
    }


class FamilyIdField(serializers.CharField):
    """An id in its family's form (documentation only: the presenter writes the value): Family
    A's `pub_<hex>` is a string, Family B's a UUID (`format: uuid`, so a generated client parses
    it as the UUID it compares with the ids of the other objects)."""

    def __init__(self, kind: str, **kwargs: Any) -> None:
        assert kind in ids.PREFIXES, kind
        self.kind = kind
        super().__init__(**kwargs)


class FamilyIdFieldExtension(OpenApiSerializerFieldExtension):
    target_class = FamilyIdField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        if str(getattr(auto_schema, "path", "")).startswith("/api/"):
            return {"type": "string", "format": "uuid"}
        return {"type": "string"}


class PublicationOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_publication(instance, family=self.view.family)

    id = FamilyIdField("publication")
    contentId = FamilyIdField("content")
    profileId = FamilyIdField("profile")
    platform = serializers.ChoiceField(choices=PLATFORMS)
    status = serializers.ChoiceField(choices=PUBLICATION_STATUSES)
    scheduledFor = serializers.DateTimeField()
    publishedAt = serializers.DateTimeField(allow_null=True)
    externalId = serializers.CharField(allow_null=True)
    url = serializers.CharField(allow_null=True)
    attempts = serializers.IntegerField()
    lastError = serializers.CharField(allow_null=True)
    firstCommentError = serializers.CharField(allow_null=True)
    visibility = serializers.CharField(
        allow_null=True,
        help_text="Who can see the post, as the platform reported it after publishing, in its own words "
        "(YouTube: public, unlisted or private, read back from status.privacyStatus: a project Google "
        "has not audited gets private whatever was asked; TikTok: the privacy_level sent, e.g. "
        "SELF_ONLY); null: not published or not known",
    )
    sandbox = serializers.BooleanField(help_text="true: published to the test sandbox, not the platform")


def _profile_platform(pub) -> str:
    """The platform of the publication's profile: a list page's row carries it as a column."""
    platform = getattr(pub, "profile__platform", None)
    return pub.profile.platform if platform is None else platform


def present_publication(pub, *, family: str) -> dict:
    """A publication (a model, or a list page's row of `selectors.PUBLICATION_FIELDS`)."""
    a = family == "v1"
    return {
        "id": ids.render(pub.pk, "publication") if a else str(pub.pk),
        "contentId": ids.render(pub.content_id, "content") if a else str(pub.content_id),
        "profileId": ids.render(pub.profile_id, "profile") if a else str(pub.profile_id),
        "platform": _profile_platform(pub),
        "status": pub.status,
        "scheduledFor": iso(pub.scheduled_for),
        "publishedAt": iso(pub.published_at),
        "externalId": pub.external_id or None,
        "url": public_url(pub.url),
        "attempts": pub.attempts,
        "lastError": pub.last_error or None,
        "firstCommentError": pub.first_comment_error or None,
        "visibility": getattr(pub, "visibility", "") or None,
        "sandbox": _profile_sandbox(pub),
    }


def _profile_sandbox(pub) -> bool:
    """Whether the publication's profile is a sandbox one (a list row carries it as a column)."""
    sandbox = getattr(pub, "profile__sandbox", None)
    return bool(pub.profile.sandbox if sandbox is None else sandbox)


def publications_of(content) -> list:
    """Prefetched by the content selectors (`publication_list`); a fresh query otherwise."""
    cached = getattr(content, "publication_list", None)
    if cached is not None:
        return cached
    return list(content.publications.select_related("profile").order_by("scheduled_for", "created_at"))


#: reads a content item's latest analytics (GET /v1/content/{id}): the analytics app registers
#: its reader in its `ready` (content sits below analytics and never imports it)
_analytics_readers: list[Callable[[Any], dict[str, Any]]] = []


def register_analytics_reader(reader: Callable[[Any], dict[str, Any]]) -> None:
    _analytics_readers[:] = [reader]


def present_analytics(content) -> dict[str, Any] | None:
    """The content's analytics as its registered reader sums them; None without a reader."""
    return _analytics_readers[0](content) if _analytics_readers else None


# --- outside approver's links (both families) ------------------------------------------------


class ApprovalLinkInput(StrictSerializer):
    """A link for this content (and the other `contentIds`, of the same organization)."""

    contentIds = serializers.ListField(
        child=serializers.CharField(max_length=64), required=False, max_length=49, default=list
    )
    expiresInDays = serializers.IntegerField(min_value=1, max_value=30, required=False, default=7)
    label = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")  # type: ignore[assignment]


class ApprovalLinkOutput(OutputSerializer):
    id = serializers.CharField()
    url = serializers.URLField(help_text="Opens the approval page without a login; keep it private.")
    contentIds = serializers.ListField(child=serializers.CharField())
    label = serializers.CharField()  # type: ignore[assignment]
    expiresAt = serializers.DateTimeField()
    revokedAt = serializers.DateTimeField(allow_null=True)
    createdAt = serializers.DateTimeField()


def present_approval_link(link, *, family: str) -> dict:
    from django.conf import settings

    from .services import token_for

    a = family == "v1"
    return {
        "id": ids.render(link.pk, "approval_link") if a else str(link.pk),
        "url": f"{settings.PUBLIC_BASE_URL}/approve/{token_for(link)}/",
        "contentIds": [
            ids.render(pk, "content") if a else str(pk) for pk in link.contents.values_list("pk", flat=True)
        ],
        "label": link.label,
        "expiresAt": iso(link.expires_at),
        "revokedAt": iso(link.revoked_at),
        "createdAt": iso(link.created_at),
    }


class AgentOutput(serializers.Serializer):
    """Who made an AI agent's content through the MCP server (issue 32), and the time it proposed."""

    via = serializers.CharField(help_text="`mcp`: made by an AI agent through the MCP server")
    name = serializers.CharField(help_text="The agent: the MCP client's name and version")
    apiKeyId = serializers.CharField(allow_null=True, help_text="The API key it used")
    proposedFor = serializers.DateTimeField(allow_null=True, help_text="The time it proposed (not scheduled)")


def present_agent(content: Any, render_key: Callable[[Any], str | None]) -> dict[str, Any] | None:
    """The agent block of a content made through the MCP server; None for any other content."""
    if not content.created_via:
        return None
    return {
        "via": content.created_via,
        "name": content.agent_name,
        "apiKeyId": render_key(content.api_key_id) if content.api_key_id else None,
        "proposedFor": iso(content.proposed_for),
    }


#: both families' `aiGenerated` (issue 32): what of the content an AI made
AI_GENERATED_VALUES = ("none", "text", "media", "both")
AI_GENERATED_HELP = (
    "What of the content an AI made: none, text, media or both. Computed when its generation "
    "finishes (text an engine wrote: text; media a model made: media; the client's own upload and "
    "text: none) unless a person set it (`aiGeneratedOverridden`). Publishing carries it into the "
    "platforms' AI labels: media or both sets YouTube's containsSyntheticMedia and TikTok's is_aigc "
    "on a video (an explicit containsSyntheticMedia option wins)."
)
AI_GENERATED_OVERRIDDEN_HELP = (
    "A person set `aiGenerated` (PUT/PATCH, the admin): later generations keep it. false: computed."
)
AI_GENERATED_INPUT_HELP = (
    "Say what of the content an AI made (none, text, media or both): a person's override, kept "
    "by later generations; allowed in any status. Example: `both`."
)


def present_ai_generated(content) -> dict:
    """Both families' two fields of what an AI made (issue 32)."""
    return {"aiGenerated": content.ai_disclosure, "aiGeneratedOverridden": content.ai_disclosure_overridden}
