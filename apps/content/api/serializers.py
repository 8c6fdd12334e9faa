"""Family B content, schedules, tags, events (campaigns) and batches: inputs and representations."""

from __future__ import annotations

from rest_framework import serializers

from apps.content.serializers import (
    AI_GENERATED_HELP,
    AI_GENERATED_INPUT_HELP,
    AI_GENERATED_OVERRIDDEN_HELP,
    AI_GENERATED_VALUES,
    AgentOutput,
    IntentOutput,
    PublicationOutput,
    media_platforms,
    present_ai_generated,
    present_intent,
    present_media_item,
    present_publication,
    present_variants,
    publications_of,
    shown_media,
)
from apps.content.serializers import present_agent as shared_present_agent
from apps.core.serializers import (
    HexColorField,
    NamedChoiceField,
    OfferedChoiceField,
    OutputSerializer,
    StrictSerializer,
    iso,
)
from apps.platforms.intents import INTENTS
from apps.platforms.rules import SUPPORTED_PLATFORMS

from .. import selectors, services, states
from ..models import RATIOS, GenerationMode, MediaType, PostType
from ..v1.serializers import (  # noqa: F401  (the same inputs in both families)
    EditImageInput,
    MediaRecord,
    PlatformContentInput,
    PlatformContentOutput,
    RegenerateInput,
    RejectInput,
)

MEDIA_CHOICES = ("image", "video", "carousel")  # carousel is refused by the service with a clear message
#: what the schema offers (carousel is read only to be refused: not implemented)
MEDIA_OFFERED = ("image", "video")


class PostSettingsInput(StrictSerializer):
    """Settings of this one post (the rest come from the profile and the brand)."""

    intent = serializers.ChoiceField(
        choices=INTENTS,
        required=False,
        help_text="What the post is for; it sets the register (recall, apology and incident are sober). "
        "Left out: read from the prompt.",
    )


class _GenerationFields(StrictSerializer):
    settings = PostSettingsInput(required=False)
    generationMode = serializers.ChoiceField(
        choices=GenerationMode.values, required=False, default=GenerationMode.PROMPT
    )
    postType = serializers.ChoiceField(choices=PostType.values, required=False, default=PostType.FEED)
    media = OfferedChoiceField(choices=MEDIA_CHOICES, offered=MEDIA_OFFERED, required=False, default="image")
    dimensions = serializers.ChoiceField(choices=RATIOS, required=False)
    referenceImageId = serializers.CharField(required=False, max_length=64)
    mediaId = serializers.CharField(required=False, max_length=64)
    tagIds = serializers.ListField(child=serializers.CharField(max_length=64), required=False, max_length=50)
    campaignId = serializers.CharField(required=False, max_length=64)


class CreateInput(_GenerationFields):
    socialProfileId = serializers.CharField(max_length=64)
    platform = NamedChoiceField(choices=SUPPORTED_PLATFORMS, required=False, max_length=30)
    prompt = serializers.CharField(max_length=5000)


class GenerateInput(_GenerationFields):
    profileId = serializers.CharField(max_length=64)
    task = serializers.CharField(max_length=5000)


class MultiPlatformInput(_GenerationFields):
    # one content item per profile: the service refuses a profile named twice
    openapi_fields = {"profileIds": {"uniqueItems": True}}
    profileIds = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=10
    )
    prompt = serializers.CharField(max_length=5000)


class UpdateInput(StrictSerializer):
    content = serializers.DictField(child=PlatformContentInput(), required=False)
    status = serializers.ChoiceField(
        choices=("draft",),
        required=False,
        error_messages={"invalid_choice": "Only 'draft' can be set; use the actions for other statuses."},
    )
    tagIds = serializers.ListField(child=serializers.CharField(max_length=64), required=False, max_length=50)
    campaignId = serializers.CharField(required=False, allow_null=True, max_length=64)
    aiGenerated = serializers.ChoiceField(
        choices=AI_GENERATED_VALUES,
        required=False,
        help_text=AI_GENERATED_INPUT_HELP,
        error_messages={"invalid_choice": "Must be one of none, text, media, both."},
    )
    openapi_rules = {
        "minProperties": 1,
        "description": "Give content, status, tagIds, campaignId or aiGenerated.",
    }

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError(
                {"content": ["Give content, status, tagIds, campaignId or aiGenerated."]}
            )
        return attrs


class ScheduleInput(StrictSerializer):
    socialProfileId = serializers.CharField(max_length=64)
    scheduledDate = serializers.DateField()
    task = serializers.CharField(max_length=5000)
    generationMode = serializers.ChoiceField(
        choices=GenerationMode.values, required=False, default=GenerationMode.PROMPT
    )
    platform = NamedChoiceField(choices=SUPPORTED_PLATFORMS, required=False, max_length=30)
    postType = serializers.ChoiceField(choices=PostType.values, required=False, default=PostType.FEED)
    media = OfferedChoiceField(choices=MEDIA_CHOICES, offered=MEDIA_OFFERED, required=False, default="image")
    dimensions = serializers.ChoiceField(choices=RATIOS, required=False)


class IdeasInput(StrictSerializer):
    brandId = serializers.CharField(required=False, max_length=64)
    profileId = serializers.CharField(required=False, max_length=64)
    topic = serializers.CharField(required=False, allow_blank=True, max_length=500)
    count = serializers.IntegerField(required=False, min_value=1, max_value=10, default=5)
    openapi_rules = {
        "not": {"required": ["brandId", "profileId"]},
        "description": "Give brandId or profileId, not both.",
    }

    def validate(self, attrs):
        if attrs.get("brandId") and attrs.get("profileId"):
            raise serializers.ValidationError({"brandId": ["Give brandId or profileId, not both."]})
        return attrs


class OptimizeInput(StrictSerializer):
    caption = serializers.CharField(max_length=70000, trim_whitespace=False)
    platform = NamedChoiceField(choices=SUPPORTED_PLATFORMS, max_length=30)
    hashtags = serializers.ListField(
        child=serializers.CharField(max_length=150), required=False, max_length=100
    )
    postType = serializers.ChoiceField(choices=PostType.values, required=False, default=PostType.FEED)
    mediaType = serializers.ChoiceField(choices=("image", "video"), required=False, default="image")


class TagInput(StrictSerializer):
    name = serializers.CharField(max_length=100)
    color = HexColorField(required=False, allow_blank=True)


class TagUpdateInput(TagInput):
    name = serializers.CharField(max_length=100, required=False)


class EventInput(StrictSerializer):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    startsOn = serializers.DateField(required=False, allow_null=True)
    endsOn = serializers.DateField(required=False, allow_null=True)
    color = HexColorField(required=False, allow_blank=True)

    NAMES = {
        "name": "name",
        "description": "description",
        "startsOn": "starts_on",
        "endsOn": "ends_on",
        "color": "color",
    }

    @classmethod
    def to_fields(cls, data: dict) -> dict:
        return {cls.NAMES[k]: v for k, v in data.items()}


class EventUpdateInput(EventInput):
    name = serializers.CharField(max_length=200, required=False)


class BatchGenerateInput(StrictSerializer):
    scheduleIds = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=100
    )


# --- representations -----------------------------------------------------------------------


class ContentOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_content(instance, self.request)

    def load(self, items: list) -> None:
        selectors.content_page(items, tags=True)

    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=states.STATUS_WORDS_B)
    platform = serializers.ChoiceField(choices=SUPPORTED_PLATFORMS, help_text="The first of `platforms`")
    platforms = serializers.ListField(child=serializers.ChoiceField(choices=SUPPORTED_PLATFORMS))
    postType = serializers.ChoiceField(choices=PostType.values)
    socialProfileId = serializers.UUIDField(allow_null=True)
    media = serializers.ChoiceField(choices=MediaType.values)
    dimensions = serializers.CharField()
    generationMode = serializers.ChoiceField(choices=GenerationMode.values)
    prompt = serializers.CharField()
    intent = IntentOutput(
        help_text="What the post is written for: change it with POST .../regenerate {intent}"
    )
    brandId = serializers.UUIDField()
    progress = serializers.IntegerField()
    statusReason = serializers.CharField(allow_null=True)
    aiGenerated = serializers.ChoiceField(choices=AI_GENERATED_VALUES, help_text=AI_GENERATED_HELP)
    aiGeneratedOverridden = serializers.BooleanField(help_text=AI_GENERATED_OVERRIDDEN_HELP)
    agent = AgentOutput(
        required=False, help_text="Present on content an AI agent made through the MCP server"
    )
    content = serializers.DictField(child=PlatformContentOutput(), help_text="Per platform")
    mediaAssets = MediaRecord(many=True)
    tagIds = serializers.ListField(child=serializers.UUIDField())
    campaignId = serializers.UUIDField(allow_null=True)
    batchId = serializers.UUIDField(allow_null=True)
    scheduledFor = serializers.DateTimeField(allow_null=True)
    publishedAt = serializers.DateTimeField(allow_null=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()
    publications = PublicationOutput(many=True)
    allowedActions = serializers.ListField(child=serializers.ChoiceField(choices=states.CLIENT_ACTIONS))


def _uuid(value) -> str | None:
    return str(value) if value else None


def tag_ids_of(content) -> list:
    """The content's tag ids: a list page's `tag_ids` (selectors.content_page), else its
    prefetched tags."""
    found = getattr(content, "tag_ids", None)
    return [t.pk for t in content.tags.all()] if found is None else found


def present_content(content, request=None, *, status: str | None = None) -> dict:
    """`status` overrides the status word (create answers `generating`, as the spec shows)."""
    out = {
        "id": str(content.pk),
        "status": status or states.word_b(content.status),
        "platform": content.platforms[0] if content.platforms else None,
        "platforms": list(content.platforms),
        "postType": content.post_type,
        "socialProfileId": _uuid(content.profile_id),
        "media": content.media_type,
        "dimensions": content.dimensions,
        "generationMode": content.generation_mode,
        "prompt": content.prompt,
        "intent": present_intent(content),
        "brandId": str(content.brand_id),
        "progress": content.progress,
        "statusReason": content.status_reason or None,
        **present_ai_generated(content),
        "content": present_variants(content),
        "mediaAssets": _media_assets(content, request),
        "tagIds": sorted(str(pk) for pk in tag_ids_of(content)),
        "campaignId": _uuid(content.campaign_id),
        "batchId": _uuid(content.batch_id),
        "scheduledFor": iso(content.scheduled_for),
        "publishedAt": iso(content.published_at),
        "createdAt": iso(content.created_at),
        "updatedAt": iso(content.updated_at),
        "publications": [present_publication(p, family="api") for p in publications_of(content)],
        "allowedActions": content.allowed_actions,
    }
    agent = shared_present_agent(content, _uuid)
    if agent:
        out["agent"] = agent  # an AI agent's content (issue 32): which key and agent made it
    return out


class ScheduleOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_schedule(instance)

    id = serializers.UUIDField()
    socialProfileId = serializers.UUIDField()
    scheduledDate = serializers.DateField()
    task = serializers.CharField()
    generationMode = serializers.ChoiceField(choices=GenerationMode.values)
    platform = serializers.ChoiceField(choices=SUPPORTED_PLATFORMS)
    postType = serializers.ChoiceField(choices=PostType.values)
    media = serializers.ChoiceField(choices=MediaType.values)
    dimensions = serializers.CharField()
    status = serializers.ChoiceField(choices=("planned", "generating", "generated", "failed"))
    contentId = serializers.UUIDField(allow_null=True)
    createdAt = serializers.DateTimeField()


def present_schedule(schedule) -> dict:
    return {
        "id": str(schedule.pk),
        "socialProfileId": str(schedule.profile_id),
        "scheduledDate": schedule.scheduled_date.isoformat(),
        "task": schedule.task,
        "generationMode": schedule.generation_mode,
        "platform": schedule.platform,
        "postType": schedule.post_type,
        "media": schedule.media_type,
        "dimensions": schedule.dimensions,
        "status": schedule.status,
        "contentId": _uuid(schedule.content_id),
        "createdAt": iso(schedule.created_at),
    }


class TagOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_tag(instance)

    id = serializers.UUIDField()
    name = serializers.CharField()
    color = serializers.CharField(allow_null=True)
    createdAt = serializers.DateTimeField()


def present_tag(tag) -> dict:
    return {"id": str(tag.pk), "name": tag.name, "color": tag.color or None, "createdAt": iso(tag.created_at)}


class EventOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_event(instance)

    id = serializers.UUIDField()
    name = serializers.CharField()
    description = serializers.CharField()
    startsOn = serializers.DateField(allow_null=True)
    endsOn = serializers.DateField(allow_null=True)
    color = serializers.CharField(allow_null=True)
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


def present_event(campaign) -> dict:
    return {
        "id": str(campaign.pk),
        "name": campaign.name,
        "description": campaign.description,
        "startsOn": campaign.starts_on.isoformat() if campaign.starts_on else None,
        "endsOn": campaign.ends_on.isoformat() if campaign.ends_on else None,
        "color": campaign.color or None,
        "createdAt": iso(campaign.created_at),
        "updatedAt": iso(campaign.updated_at),
    }


class BatchItemOutput(serializers.Serializer):
    contentId = serializers.UUIDField()
    status = serializers.ChoiceField(choices=states.STATUS_WORDS_B)
    progress = serializers.IntegerField()


class BatchOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_batch(instance)

    batchId = serializers.UUIDField()
    status = serializers.ChoiceField(choices=("running", "completed"))
    total = serializers.IntegerField()
    completed = serializers.IntegerField()
    failed = serializers.IntegerField()
    progress = serializers.IntegerField()
    items = BatchItemOutput(many=True)
    createdAt = serializers.DateTimeField()
    finishedAt = serializers.DateTimeField(allow_null=True)


def present_batch(batch) -> dict:
    """A batch and its items' progress (the items `selectors.batch_rows` read, else a query)."""
    items = getattr(batch, "items", None)
    rows = (
        None if items is None else [{"id": c.pk, "status": c.status, "progress": c.progress} for c in items]
    )
    progress = services.batch_progress(batch, rows)
    items = [{**i, "status": states.word_b(i["status"])} for i in progress["items"]]
    return {
        **progress,
        "items": items,
        "createdAt": iso(batch.created_at),
        "finishedAt": iso(batch.finished_at),
    }


class IdeasOutput(serializers.Serializer):
    topic = serializers.CharField()
    ideas = serializers.ListField(child=serializers.CharField())
    brandId = serializers.UUIDField()
    profileId = serializers.UUIDField(allow_null=True)


class OptimizeOutput(serializers.Serializer):
    platform = serializers.ChoiceField(choices=SUPPORTED_PLATFORMS)
    caption = serializers.CharField()
    hashtags = serializers.ListField(child=serializers.CharField())
    firstComment = serializers.CharField()
    changes = serializers.ListField(child=serializers.CharField())
    count = serializers.DictField()


def _media_assets(content, request) -> list[dict]:
    """The content's shown media, each naming the platforms it is published on."""
    media = shown_media(content)
    where = media_platforms(content, media)
    return [present_media_item(m, request, str, where[m.pk]) for m in media]
