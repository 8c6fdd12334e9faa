"""Family A content: request serializers and the content item representation."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
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
    present_analytics,
    present_intent,
    present_media_item,
    present_publication,
    present_variants,
    publications_of,
    shown_media,
)
from apps.content.serializers import present_agent as shared_present_agent
from apps.core import ids
from apps.core.errors import ValidationFailed
from apps.core.serializers import (
    NamedChoiceField,
    OfferedChoiceField,
    OutputSerializer,
    StrictSerializer,
    iso,
)
from apps.platforms.intents import INTENTS
from apps.platforms.rules import SUPPORTED_PLATFORMS, get_rules

from .. import ports, selectors, states
from ..models import RATIOS, MediaType, PostType

LENGTHS = ("short", "medium", "long")
MAX_WAIT_SECONDS = 60


@extend_schema_field({"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": MAX_WAIT_SECONDS})
class WaitSeconds(serializers.FloatField):
    """Seconds in (0, MAX_WAIT_SECONDS]; anything else (not a number too) is one 400 naming `wait`."""

    def to_internal_value(self, data) -> float:
        try:
            value = float(data)
        except (TypeError, ValueError):
            value = -1.0
        if not 0 < value <= MAX_WAIT_SECONDS:
            raise ValidationFailed(
                f"wait must be more than 0 and at most {MAX_WAIT_SECONDS} seconds.",
                {"wait": [f"Must be in (0, {MAX_WAIT_SECONDS}]."]},
            )
        return value


class WaitQuery(serializers.Serializer):
    """POST /v1/content/generate's query: `wait` (left out or empty: answer at once)."""

    wait = WaitSeconds(
        required=False, help_text=f"Wait up to this many seconds (max {MAX_WAIT_SECONDS}) for the result"
    )


class SettingsInput(StrictSerializer):
    creativity = serializers.IntegerField(required=False, min_value=1, max_value=10)
    tone = serializers.CharField(required=False, max_length=50)
    length = serializers.ChoiceField(choices=LENGTHS, required=False)
    includeHashtags = serializers.BooleanField(required=False)
    hashtagCount = serializers.IntegerField(required=False, min_value=0, max_value=30)
    includeEmojis = serializers.BooleanField(required=False)
    brandId = serializers.CharField(required=False, max_length=64)
    intent = serializers.ChoiceField(
        choices=INTENTS,
        required=False,
        help_text="What the post is for; it sets the register (recall, apology and incident are sober). "
        "Left out: read from the prompt.",
    )
    language = serializers.RegexField(
        r"^[a-z]{2}$",
        required=False,
        trim_whitespace=False,  # the pattern is the whole rule (" en" is refused, as the schema says)
        error_messages={"invalid": "Must be a two-letter ISO 639-1 code, e.g. en."},
    )

    @property
    def openapi_fields(self) -> dict:
        """An engine that writes some languages only refuses the others (apps.content.services)."""
        from ..services import engine_languages

        languages = engine_languages()
        return {"language": {"enum": list(languages)}} if languages else {}

    #: camelCase request names -> the snake_case keys of the settings merge
    NAMES = {
        "creativity": "creativity",
        "tone": "tone",
        "length": "length",
        "includeHashtags": "include_hashtags",
        "hashtagCount": "hashtag_count",
        "includeEmojis": "include_emojis",
        "language": "language",
        "intent": "intent",
    }

    @classmethod
    def to_settings(cls, data: dict) -> dict:
        return {cls.NAMES[k]: v for k, v in data.items() if k in cls.NAMES}


class MediaInput(StrictSerializer):
    generate = serializers.BooleanField(required=False, default=True)
    # DRF's metaclass takes declared fields off the class: `style` shadows Field.style for mypy only
    style = serializers.ChoiceField(  # type: ignore[assignment]
        choices=("photorealistic", "illustration"), required=False, default="photorealistic"
    )
    count = serializers.IntegerField(required=False, min_value=1, max_value=4, default=1)
    # carousel is read so that the service can refuse it with its own clear message (not offered)
    type = OfferedChoiceField(
        choices=("image", "video", "carousel"), offered=("image", "video"), required=False, default="image"
    )
    postType = serializers.ChoiceField(choices=PostType.values, required=False, default=PostType.FEED)
    dimensions = serializers.ChoiceField(choices=RATIOS, required=False)


def _media_type_rules() -> dict:
    """A platform that publishes only some media types (YouTube: video only) needs a generate
    that names one of them in `media.type` (left out, it is an image): the service refuses the
    rest with a 400. In JSON Schema, per such platform, what is refused: `platforms` contains
    it (OpenAPI 3.0 has no `contains`: "some item is X" is "not every item is other than X")
    and `media.type` is not one of its types. Written as `not` alone: generated clients read an
    `anyOf` as a union of body types (openapi-python-client made a class of the branch)."""
    refused = []
    for platform in SUPPORTED_PLATFORMS:
        types = sorted({media_type for _, media_type in get_rules(platform).formats})
        if "image" in types:
            continue
        refused.append(
            {
                "required": ["platforms"],
                "properties": {"platforms": {"not": {"items": {"not": {"enum": [platform]}}}}},
                "not": {
                    "required": ["media"],
                    "properties": {"media": {"required": ["type"], "properties": {"type": {"enum": types}}}},
                },
            }
        )
    if not refused:
        return {}
    return {"not": refused[0] if len(refused) == 1 else {"anyOf": refused}}


class GenerateInput(StrictSerializer):
    openapi_rules = _media_type_rules()
    prompt = serializers.CharField(max_length=5000)
    platforms = serializers.ListField(
        child=NamedChoiceField(choices=SUPPORTED_PLATFORMS, max_length=30), min_length=1, max_length=10
    )
    settings = SettingsInput(required=False)
    media = MediaInput(required=False)


class PlatformContentInput(StrictSerializer):
    caption = serializers.CharField(required=False, allow_blank=True, max_length=70000, trim_whitespace=False)
    hashtags = serializers.ListField(
        child=serializers.CharField(max_length=150), required=False, max_length=100
    )
    firstComment = serializers.CharField(required=False, allow_blank=True, max_length=10000)
    altText = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    title = serializers.CharField(required=False, allow_blank=True, max_length=300)
    sounds = serializers.ListField(child=serializers.CharField(max_length=200), required=False, max_length=10)


class UpdateInput(StrictSerializer):
    content = serializers.DictField(child=PlatformContentInput(), required=False)
    status = serializers.ChoiceField(
        choices=("draft",),
        required=False,
        error_messages={"invalid_choice": "Only 'draft' can be set; use the actions for other statuses."},
    )
    aiGenerated = serializers.ChoiceField(
        choices=AI_GENERATED_VALUES,
        required=False,
        help_text=AI_GENERATED_INPUT_HELP,
        error_messages={"invalid_choice": "Must be one of none, text, media, both."},
    )
    openapi_rules = {"minProperties": 1, "description": "Give content, status and/or aiGenerated."}

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError({"content": ["Give content, status and/or aiGenerated."]})
        return attrs


class RejectInput(StrictSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class EditImageInput(StrictSerializer):
    prompt = serializers.CharField(max_length=2000)


class RegenerateInput(StrictSerializer):
    """`POST .../regenerate` (both families): the whole content again (no body, or `scope: all`),
    optionally for another intent (issue 31), or a new design of its picture with the words kept
    (`scope: image`, issue 30)."""

    intent = serializers.ChoiceField(
        choices=INTENTS,
        required=False,
        allow_blank=True,
        help_text="With `scope: all`: what to write the post for (the words and the picture), recorded "
        "as set; empty: read it from the brief again. Left out: the recorded intent is kept (a set one) "
        "or read again.",
    )

    scope = serializers.ChoiceField(
        choices=("all", "image"),
        default="all",
        help_text=(
            "`all` (default): generate the text and media again (202, back to pending). `image`: "
            "a new design: the pictures drawn again in another layout, the text kept (200, only "
            "in review; the history records it)."
        ),
    )
    design = serializers.ChoiceField(
        choices=ports.DESIGNS,
        required=False,
        help_text=(
            "With `scope: image`: the layout to draw (panel, light or type). Left out: the one "
            "after the current layout."
        ),
    )

    def validate(self, attrs):
        if "design" in attrs and attrs.get("scope") != "image":
            raise serializers.ValidationError({"design": ["Only with scope 'image'."]})
        if "intent" in attrs and attrs.get("scope") == "image":
            raise serializers.ValidationError(
                {
                    "intent": [
                        "Only with scope 'all': a new design keeps the words and what they were written for."
                    ]
                }
            )
        return attrs


class BatchOperation(StrictSerializer):
    """One operation of `POST /v1/content/batch`. An operation that breaks this shape (a
    method other than update/delete, an unknown key, a `data` PUT would refuse) makes the
    batch a 400 naming its index; a well-formed one that fails (content not found, a state
    that refuses it) is an error in its own result and the others still run."""

    method = serializers.ChoiceField(choices=("update", "delete"))
    id = serializers.CharField(help_text="The content id")
    # DRF's metaclass takes declared fields off the class: `data` shadows Serializer.data for mypy only
    data = UpdateInput(  # type: ignore[assignment]
        required=False, help_text="For `update`: the body of PUT /v1/content/{id}"
    )


@extend_schema_field(BatchOperation)
class BatchOperationField(serializers.DictField):
    pass


class BatchInput(StrictSerializer):
    operations = serializers.ListField(child=BatchOperationField(), min_length=1, max_length=100)

    def validate_operations(self, operations):
        errors = {}
        for index, operation in enumerate(operations):
            checked = BatchOperation(data=operation)
            if not checked.is_valid():
                errors[str(index)] = checked.errors
        if errors:
            raise serializers.ValidationError(errors)
        return operations  # as sent: each is parsed again when it runs (content_batch_apply)


class MediaRecord(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.ChoiceField(choices=MediaType.values)
    url = serializers.URLField()
    thumbnailUrl = serializers.URLField(allow_null=True)
    dimensions = serializers.DictField(child=serializers.IntegerField())
    duration = serializers.FloatField(required=False)
    ratio = serializers.CharField(
        allow_null=True,
        help_text="The aspect ratio this picture was drawn for (each platform gets its own picture in "
        "its own shape, one render per distinct ratio); null for media shared by every platform "
        "(an upload, a video).",
    )
    platforms = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="The content's platforms whose variant publishes this media (their variant's ratio "
        "is the picture's; shared media goes to all).",
    )


class PlatformContentOutput(serializers.Serializer):
    """One platform's variant (`serializers.present_variant`): the optional fields appear where the
    platform has them for this format, or when they hold a value."""

    caption = serializers.CharField()
    hashtags = serializers.ListField(child=serializers.CharField())
    firstComment = serializers.CharField(required=False)
    altText = serializers.CharField(required=False)
    title = serializers.CharField(required=False)
    sounds = serializers.ListField(child=serializers.CharField(), required=False)
    adaptations = serializers.ListField(
        child=serializers.CharField(), help_text="What was changed for the platform"
    )


class ContentAnalyticsOutput(serializers.Serializer):
    """The newest metrics summed over the content's posts (`analytics.selectors.latest_for_content`)."""

    views = serializers.IntegerField()
    likes = serializers.IntegerField()
    comments = serializers.IntegerField()
    shares = serializers.IntegerField()
    metricsUpdatedAt = serializers.DateTimeField(allow_null=True)
    engagementRate = serializers.FloatField(allow_null=True)
    engagementRateBasis = serializers.CharField(allow_null=True)


class ContentOutput(OutputSerializer):
    """The content item (declared for the schema and `fields=`; `present` renders it)."""

    def present(self, instance) -> dict:
        return present_content(instance, self.request)

    def load(self, items: list) -> None:
        selectors.content_page(items)

    id = serializers.CharField()
    status = serializers.ChoiceField(choices=states.STATUS_WORDS_A)
    platforms = serializers.ListField(child=serializers.ChoiceField(choices=SUPPORTED_PLATFORMS))
    createdAt = serializers.DateTimeField()
    scheduledFor = serializers.DateTimeField(required=False)
    agent = AgentOutput(
        required=False, help_text="Present on content an AI agent made through the MCP server"
    )
    publishedAt = serializers.DateTimeField(required=False)
    content = serializers.DictField(child=PlatformContentOutput(), help_text="Per platform")
    media = MediaRecord(many=True)
    analytics = ContentAnalyticsOutput(required=False)
    brandId = serializers.CharField()
    prompt = serializers.CharField()
    intent = IntentOutput(
        help_text="What the post is written for: change it with POST .../regenerate {intent}"
    )
    postType = serializers.ChoiceField(choices=PostType.values)
    mediaType = serializers.ChoiceField(choices=MediaType.values)
    dimensions = serializers.CharField()
    progress = serializers.IntegerField()
    statusReason = serializers.CharField(required=False)
    aiGenerated = serializers.ChoiceField(choices=AI_GENERATED_VALUES, help_text=AI_GENERATED_HELP)
    aiGeneratedOverridden = serializers.BooleanField(help_text=AI_GENERATED_OVERRIDDEN_HELP)
    publications = PublicationOutput(many=True)
    allowedActions = serializers.ListField(child=serializers.ChoiceField(choices=states.CLIENT_ACTIONS))


class BatchError(serializers.Serializer):
    code = serializers.CharField(help_text="The error code a single request would have answered")
    message = serializers.CharField()


class BatchResult(serializers.Serializer):
    #: echoed from the operation; null when the operation sent none (or not a string)
    id = serializers.CharField(allow_null=True)
    method = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=("ok", "error"))
    error = BatchError(required=False)
    details = serializers.DictField(required=False)


class BatchOutput(serializers.Serializer):
    results = BatchResult(many=True)


def present_content(content, request=None, *, analytics: bool = False) -> dict:
    out = {
        "id": ids.render(content.pk, "content"),
        "status": states.word_a(content.status),
        "platforms": list(content.platforms),
        "createdAt": iso(content.created_at),
    }
    if content.scheduled_for:
        out["scheduledFor"] = iso(content.scheduled_for)
    if content.published_at:
        out["publishedAt"] = iso(content.published_at)
    out["content"] = present_variants(content)
    media = shown_media(content)
    where = media_platforms(content, media)
    out["media"] = [
        present_media_item(m, request, lambda pk: ids.render(pk, "media"), where[m.pk]) for m in media
    ]
    if analytics:
        # the newest snapshot of each publication, summed; zeros and a null metricsUpdatedAt before any
        out["analytics"] = present_analytics(content)
    out.update(
        {
            "brandId": ids.render(content.brand_id, "brand"),
            "prompt": content.prompt,
            "intent": present_intent(content),
            "postType": content.post_type,
            "mediaType": content.media_type,
            "dimensions": content.dimensions,
            "progress": content.progress,
        }
    )
    if content.status_reason:
        out["statusReason"] = content.status_reason
    out.update(present_ai_generated(content))
    agent = shared_present_agent(content, lambda pk: ids.render(pk, "apikey"))
    if agent:
        out["agent"] = agent  # an AI agent's content (issue 32): which key and agent made it
    out["publications"] = [present_publication(p, family="v1") for p in publications_of(content)]
    out["allowedActions"] = content.allowed_actions
    return out
