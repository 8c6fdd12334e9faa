"""Content items, their per-platform variants, campaigns, tags, planned schedules, batches."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models

from apps.core.models import OrgQuerySet, OrgScopedModel, TimeStampedModel

from . import states


class GenerationMode(models.TextChoices):
    PROMPT = "prompt_based", "Prompt-based"
    REFERENCE = "reference_based", "Reference-based"
    MANUAL = "manual_upload", "Manual upload"


class PostType(models.TextChoices):
    FEED = "feed", "Feed"
    STORY = "story", "Story"
    REEL = "reel", "Reel"
    SHORT = "short", "Short"


class MediaType(models.TextChoices):
    IMAGE = "image", "Image"
    VIDEO = "video", "Video"


#: the media types' names, as the API writes them
MEDIA_TYPES = tuple(MediaType.values)


class AIDisclosure(models.TextChoices):
    """What of a content item an AI made (issue 32): carried into the platforms' AI labels."""

    NONE = "none", "Nothing AI-generated"
    TEXT = "text", "AI-generated text"
    MEDIA = "media", "AI-generated media"
    BOTH = "both", "AI-generated text and media"


RATIOS = ("1:1", "16:9", "9:16", "4:5", "3:2", "2:3", "1.91:1")


class Campaign(OrgScopedModel):
    """A campaign or event content can belong to (Family B `/api/events`)."""

    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)
    color = models.CharField(max_length=7, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["organization", "-created_at"], name="campaign_org_created_idx")]

    def __str__(self) -> str:
        return self.name


class Tag(OrgScopedModel):
    name = models.CharField(max_length=100)
    color = models.CharField(max_length=7, blank=True, default="")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "name"], name="tag_unique_name_per_org")
        ]

    def __str__(self) -> str:
        return self.name


class Batch(OrgScopedModel):
    """A batch generation of selected schedules; progress is per item and overall."""

    #: a brand-limited caller sees batches with content of its brands (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("contents__brand",)

    RUNNING, COMPLETED = "running", "completed"

    status = models.CharField(max_length=12, default=RUNNING)
    total = models.PositiveIntegerField(default=0)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: a CSV/XLSX import's file (its SHA-256): the same file uploaded again creates nothing new
    import_key = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "import_key"],
                condition=~models.Q(import_key=""),
                name="batch_unique_import_per_org",
            )
        ]

    def __str__(self) -> str:
        return f"batch {self.pk}"


class ContentQuerySet(OrgQuerySet):
    def with_related(self):
        return self.select_related("brand", "profile").prefetch_related("variants", "media_assets", "tags")


class Content(OrgScopedModel):
    #: a brand-limited caller sees its brands' content (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("brand",)
    brand = models.ForeignKey("brands.Brand", on_delete=models.PROTECT, related_name="contents")
    #: the profile it was generated for (Family B's socialProfileId); publishing targets are Publications
    profile = models.ForeignKey(
        "profiles.SocialProfile", null=True, blank=True, on_delete=models.SET_NULL, related_name="contents"
    )
    platforms = models.JSONField(default=list)
    prompt = models.TextField()
    generation_mode = models.CharField(
        max_length=20, choices=GenerationMode.choices, default=GenerationMode.PROMPT
    )
    post_type = models.CharField(max_length=10, choices=PostType.choices, default=PostType.FEED)
    media_type = models.CharField(max_length=10, choices=MediaType.choices, default=MediaType.IMAGE)
    dimensions = models.CharField(max_length=8, default="1:1")
    #: post-level generation settings (the top layer of the merge)
    settings = models.JSONField(default=dict, blank=True)
    #: what the post is written for (issue 31): the intent the generation used ('' when the
    #: classifier was unsure: no hook and a neutral call to action), the classifier's confidence
    #: (1.0 when a person or the request set it) and where it came from (`detected` by
    #: apps.platforms.intents.classify_intent, `set` in settings.intent; '' for text not generated)
    intent = models.CharField(max_length=20, blank=True, default="")
    intent_confidence = models.FloatField(null=True, blank=True)
    intent_source = models.CharField(max_length=10, blank=True, default="")
    #: {generate, style, count}
    media_request = models.JSONField(default=dict, blank=True)
    #: the reference image (reference_based) or the client's media (manual_upload)
    source_media = models.ForeignKey(
        "media.MediaAsset", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=12, default=states.DRAFT, db_index=True)
    status_reason = models.TextField(blank=True, default="")
    progress = models.PositiveSmallIntegerField(default=0)
    seed = models.PositiveIntegerField(default=0)
    generation_count = models.PositiveIntegerField(default=0)
    #: the running generation's lease (renewed by its heartbeat), claim token and attempts
    #: (claims of this run, including re-claims after a worker died); see pipeline.claim
    generation_lease_until = models.DateTimeField(null=True, blank=True, db_index=True)
    generation_claim = models.UUIDField(null=True, blank=True)
    generation_attempts = models.PositiveSmallIntegerField(default=0)
    generation_started_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.CharField(max_length=200, blank=True, default="")
    #: an AI agent's content (issue 32, apps/agents): made through the MCP server (`mcp`), by
    #: which API key and which agent (the MCP client's name); it always needs a person's approval
    created_via = models.CharField(max_length=10, blank=True, default="")
    agent_name = models.CharField(max_length=200, blank=True, default="")
    api_key = models.ForeignKey(
        "accounts.ApiKey", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: the time an agent proposed; nothing is scheduled until a person approves and schedules
    proposed_for = models.DateTimeField(null=True, blank=True)
    generated_at = models.DateTimeField(null=True, blank=True)
    #: what an AI made (issue 32): computed when a generation finishes
    #: (services.disclosure.ai_disclosure_compute) unless a person set it
    #: (`ai_disclosure_overridden`), which no later generation undoes
    ai_disclosure = models.CharField(max_length=5, choices=AIDisclosure.choices, default=AIDisclosure.NONE)
    ai_disclosure_overridden = models.BooleanField(default=False)
    scheduled_for = models.DateTimeField(null=True, blank=True, db_index=True)
    published_at = models.DateTimeField(null=True, blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="contents")
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="contents"
    )
    batch = models.ForeignKey(
        Batch, null=True, blank=True, on_delete=models.SET_NULL, related_name="contents"
    )

    objects = ContentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ai_disclosure__in=AIDisclosure.values), name="content_ai_disclosure_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["organization", "-created_at"], name="content_org_created_idx"),
            models.Index(fields=["organization", "status", "-created_at"], name="content_org_status_idx"),
        ]

    def __str__(self) -> str:
        import textwrap

        return f"{textwrap.shorten(self.prompt, 48, placeholder='…') or self.prompt[:48]} ({self.status})"

    # what a list page presents, hung on the rows by the selectors (content_page, _with_media)
    variant_rows: list
    shown_media: list
    publication_list: list
    tag_ids: list

    @property
    def requires_approval(self) -> bool:
        """The brand requires approval before schedule or publish (reads the brand: lists
        select it with the content, or annotate its setting as `brand_require_approval`)."""
        if self.created_via == "mcp":  # an agent's content waits for a person, whatever the brand says
            return True
        if "brand_require_approval" in self.__dict__:
            return bool(self.__dict__["brand_require_approval"])
        return self.brand.require_approval

    @property
    def deletable(self) -> bool:
        """Content cannot be deleted while a platform call may be under way."""
        return self.status != states.PUBLISHING

    @property
    def allowed_actions(self) -> list[str]:
        # only `review` depends on the brand: other statuses do not load it
        require_approval = self.status == states.REVIEW and self.requires_approval
        return states.allowed_actions(self.status, require_approval=require_approval)


class ReviewItem(Content):
    """Content waiting in `review`: the staff console's review queue (a proxy: same table)."""

    class Meta:
        proxy = True
        verbose_name = "review queue item"
        verbose_name_plural = "review queue"


class Variant(TimeStampedModel):
    """The content as it goes out on one platform, adapted to that platform's rules."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="variants")
    platform = models.CharField(max_length=20)
    caption = models.TextField(blank=True, default="")
    hashtags = models.JSONField(default=list, blank=True)
    first_comment = models.TextField(blank=True, default="")
    alt_text = models.TextField(blank=True, default="")
    title = models.CharField(max_length=300, blank=True, default="")
    sounds = models.JSONField(default=list, blank=True)
    #: what adaptation changed, in words
    adaptations = models.JSONField(default=list, blank=True)
    #: aspect ratio this platform gets for the content's post type
    ratio = models.CharField(max_length=8, blank=True, default="")

    class Meta:
        ordering = ["platform"]
        constraints = [
            models.UniqueConstraint(fields=["content", "platform"], name="variant_unique_platform")
        ]

    def __str__(self) -> str:
        return f"{self.platform}: {self.caption[:30]}"


class ContentSchedule(OrgScopedModel):
    """A planned post (Family B `/api/content/schedules`): a date and a task, generated later."""

    #: planned posts of its brands' profiles (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("profile__brand",)

    PLANNED, GENERATING, GENERATED, FAILED = "planned", "generating", "generated", "failed"

    profile = models.ForeignKey("profiles.SocialProfile", on_delete=models.CASCADE, related_name="planned")
    scheduled_date = models.DateField()
    task = models.TextField()
    generation_mode = models.CharField(
        max_length=20, choices=GenerationMode.choices, default=GenerationMode.PROMPT
    )
    platform = models.CharField(max_length=20)
    post_type = models.CharField(max_length=10, choices=PostType.choices, default=PostType.FEED)
    media_type = models.CharField(max_length=10, choices=MediaType.choices, default=MediaType.IMAGE)
    dimensions = models.CharField(max_length=8, default="1:1")
    status = models.CharField(max_length=12, default=PLANNED)
    content = models.OneToOneField(
        Content, null=True, blank=True, on_delete=models.SET_NULL, related_name="planned_schedule"
    )

    class Meta:
        ordering = ["scheduled_date", "created_at"]
        indexes = [models.Index(fields=["organization", "scheduled_date"], name="schedule_org_date_idx")]

    def __str__(self) -> str:
        return f"{self.scheduled_date} {self.platform}: {self.task[:30]}"


class Prediction(TimeStampedModel):
    """One asynchronous provider job (a Replicate prediction) of a generation run.

    The pipeline submits one per output (text, each image, the video); the provider's webhook
    stores the final body (`received`), a task turns it into text or media (`done`), and the
    last one to finish moves the content to review.
    """

    SUBMITTED, RECEIVED, DONE = "submitted", "received", "done"

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="predictions")
    provider = models.CharField(max_length=32)
    external_id = models.CharField(max_length=200)
    kind = models.CharField(max_length=10)  # text, image, video
    position = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=10, default=SUBMITTED)
    #: the provider's final prediction body, as its webhook delivered it
    payload = models.JSONField(default=dict, blank=True)
    #: the text result (kind text); media are kept as MediaAsset rows
    output = models.JSONField(default=dict, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "external_id"], name="prediction_once_per_provider_id"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.kind} {self.external_id}"


class ContentHistory(models.Model):
    """What happened to a content item, by whom: text edits (with their diff), approvals and
    rejections from the console, the API and an outside approver's link."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="history")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    #: who: a staff username, "api key <name>", a token's subject
    actor = models.CharField(max_length=200, blank=True, default="")
    action = models.CharField(max_length=40)  # edit, approve, reject, ...
    #: per platform, per field: {"before": ..., "after": ..., "diff": unified diff lines}
    changes = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "content history"

    def __str__(self) -> str:
        return f"{self.action} by {self.actor or 'someone'}"


class ReviewOpen(models.Model):
    """A staff member opened a content item's page (the review queue's "not opened yet")."""

    content = models.ForeignKey(Content, on_delete=models.CASCADE, related_name="review_opens")
    user = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opened_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["content", "user"], name="review_open_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} opened {self.content_id}"


class ApprovalLink(OrgScopedModel):
    """A signed, expiring, revocable link that lets someone outside the organization approve or
    ask for changes to one content item or a set, without a login (issue 21)."""

    #: links of its brands' content (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("contents__brand",)

    contents = models.ManyToManyField(Content, related_name="approval_links")
    label = models.CharField(max_length=200, blank=True, default="")  # who it is for, in words
    created_by = models.CharField(max_length=200, blank=True, default="")
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    #: the texts and media the link was made for: a change kills the link
    fingerprint = models.CharField(max_length=64)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"approval link {self.pk}"
