"""Publishing: OAuth connection state, publications (one content on one profile) and the sandbox's posts."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.core.models import OrgQuerySet, OrgScopedModel

# --- OAuth connect ------------------------------------------------------------------------


class OAuthStateQuerySet(models.QuerySet):
    def unused(self):
        return self.filter(used_at__isnull=True)


class OAuthState(models.Model):
    """One OAuth connect attempt: single use, bound to who began it, expires after 10 min.

    ``state`` is the random value sent to the provider; the callback claims the row with
    a conditional UPDATE on ``used_at`` so a state completes at most once.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: the API credential that began the flow ("key:<uuid>" or "jwt:<org>:<sub>"): the
    #: callback re-checks it (a revoked key or an expired token no longer completes)
    credential_id = models.CharField(max_length=80, blank=True, default="")
    #: a JWT's `exp` (keys do not expire): past it the callback refuses the attempt
    credential_expires_at = models.DateTimeField(null=True, blank=True)
    platform = models.CharField(max_length=20)
    state = models.CharField(max_length=64, unique=True)
    redirect_uri = models.URLField(max_length=2000)
    #: PKCE verifier (empty when the platform's flow does not use PKCE)
    code_verifier = models.CharField(max_length=128, blank=True, default="")
    brand = models.ForeignKey(
        "brands.Brand", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    #: the API family that began the flow ("v1" or "api"): it decides the profileId form
    family = models.CharField(max_length=3, default="v1")
    #: the flow runs against the local sandbox provider (no app credentials at begin)
    sandbox = models.BooleanField(default=False)
    #: Facebook: the Page the user chose to connect (empty: the first Page the account manages)
    page_id = models.CharField(max_length=40, blank=True, default="")
    #: LinkedIn: "organization" connects an organization page the member administers (its id in
    #: page_id, or empty: the only one, or page_required); empty: the member
    account_type = models.CharField(max_length=20, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    profile = models.ForeignKey(
        "profiles.SocialProfile", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = OAuthStateQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["expires_at"], name="oauthstate_expires_idx")]

    def __str__(self) -> str:
        return f"{self.platform} connect {self.pk}"

    def __repr__(self) -> str:  # never print the state or verifier
        return f"<OAuthState {self.pk} {self.platform}>"


class OAuthRedirectOrigin(OrgScopedModel):
    """An origin (``https://app.example.com``) an organization's connect flows may return to,
    besides the deployment's ``OAUTH_ALLOWED_REDIRECT_ORIGINS``."""

    #: organization-wide connect settings: hidden from a brand-limited caller (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ()

    origin = models.CharField(max_length=300)

    class Meta:
        ordering = ["origin"]
        constraints = [models.UniqueConstraint(fields=["organization", "origin"], name="oauth_origin_unique")]
        verbose_name = "OAuth redirect origin"  # not Django's "o auth redirect origin" in the admin

    def __str__(self) -> str:
        return self.origin


# --- publications ---------------------------------------------------------------------------


class PublicationQuerySet(OrgQuerySet):
    def due(self, now):
        return self.filter(status=Publication.SCHEDULED, due_at__lte=now)

    def upcoming(self):
        return self.filter(status__in=(Publication.SCHEDULED, Publication.QUEUED))


class Publication(OrgScopedModel):
    """The state of one content item on one profile.

    `scheduled` (waiting for `due_at`) -> `queued` (claimed by the dispatcher, task sent)
    -> `publishing` (a worker holds the lease) -> `published` | `failed`; a retryable error
    goes back to `scheduled` with a later `due_at`. `outcome_unknown` is set, and committed,
    before the irreversible platform call and cleared when its result is recorded: a row
    found with it set is reconciled with the platform before anything else is tried.

    `processing`: the platform accepted the post and is still working on it (TikTok's
    moderation); `platform_state` keeps its handle (the `publish_id`) and the poller asks
    again at `due_at`, under a lease, until it is `published` or `failed`. Never re-posted.
    `unknown`: the post may exist and we cannot find out (LinkedIn without the partner
    permission to read posts): a person confirms it in the admin, nothing is retried.
    """

    #: publications on its brands' profiles (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("profile__brand",)

    SCHEDULED, QUEUED, PUBLISHING, PUBLISHED, FAILED, CANCELLED = (
        "scheduled",
        "queued",
        "publishing",
        "published",
        "failed",
        "cancelled",
    )
    PROCESSING, UNKNOWN = "processing", "unknown"
    STATUSES = (SCHEDULED, QUEUED, PUBLISHING, PROCESSING, PUBLISHED, FAILED, UNKNOWN, CANCELLED)
    #: statuses in which the publication is not finished (its content stays `publishing`)
    OPEN_STATUSES = (SCHEDULED, QUEUED, PUBLISHING, PROCESSING, UNKNOWN)

    content = models.ForeignKey("content.Content", on_delete=models.CASCADE, related_name="publications")
    profile = models.ForeignKey(
        "profiles.SocialProfile", on_delete=models.CASCADE, related_name="publications"
    )
    #: the profile's platform, copied so the per-platform concurrency cap is one indexed count
    platform = models.CharField(max_length=20, blank=True, default="")
    status = models.CharField(max_length=12, default=SCHEDULED)
    #: when the client wants it out (UTC)
    scheduled_for = models.DateTimeField()
    #: when the dispatcher may next take it (scheduled_for, or later after a retryable error)
    due_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_until = models.DateTimeField(null=True, blank=True)
    #: the worker chunk holding the lease: a chunk calls the platform one row at a time, so
    #: the concurrency cap counts chunks, not rows
    claim = models.UUIDField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    outcome_unknown = models.BooleanField(default=False)
    external_id = models.CharField(max_length=300, blank=True, default="")
    url = models.URLField(max_length=2000, blank=True, default="")
    published_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    #: the post went out but its first comment was refused (the platform's reason)
    first_comment_error = models.TextField(blank=True, default="")
    error_code = models.CharField(max_length=100, blank=True, default="")
    #: who can see the post, as the platform reports it after publishing (YouTube's
    #: status.privacyStatus read back: an unaudited project's upload is private whatever was
    #: asked; TikTok: the privacy_level the creator chose); empty: not known
    visibility = models.CharField(max_length=40, blank=True, default="")
    #: {firstComment, crossPost, notifyFollowers, timezone}
    options = models.JSONField(default=dict, blank=True)
    #: what the platform's client needs to ask about a post it is still processing
    #: ({"publish_id", "kind", "username", "status", "since", "polls"} for TikTok)
    platform_state = models.JSONField(default=dict, blank=True)

    objects = PublicationQuerySet.as_manager()

    class Meta:
        ordering = ["scheduled_for", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["content", "profile"], name="publication_unique_content_profile"),
            models.CheckConstraint(
                condition=Q(
                    status__in=(
                        "scheduled",
                        "queued",
                        "publishing",
                        "processing",
                        "published",
                        "failed",
                        "unknown",
                        "cancelled",
                    )
                ),
                name="publication_status_valid",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "due_at"], name="publication_due_idx"),
            models.Index(fields=["status", "platform"], name="publication_busy_idx"),
            models.Index(fields=["organization", "scheduled_for"], name="publication_org_sched_idx"),
            models.Index(fields=["profile", "scheduled_for"], name="publication_profile_sched_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.content_id} on {self.profile_id}: {self.status}"

    def save(self, *args, **kwargs):
        if not self.platform and self.profile_id:
            self.platform = self.profile.platform
        super().save(*args, **kwargs)


class SandboxPost(OrgScopedModel):
    """A post the built-in sandbox publisher accepted (visible in the admin)."""

    #: sandbox posts of its brands' profiles (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("profile__brand",)

    profile = models.ForeignKey(
        "profiles.SocialProfile", on_delete=models.CASCADE, related_name="sandbox_posts"
    )
    platform = models.CharField(max_length=20)
    #: our publication id: how reconciliation finds a post whose outcome was unknown
    reference = models.CharField(max_length=64, db_index=True)
    external_id = models.CharField(max_length=64, unique=True)
    caption = models.TextField(blank=True, default="")
    title = models.CharField(max_length=300, blank=True, default="")
    first_comment = models.TextField(blank=True, default="")
    media = models.JSONField(default=list, blank=True)
    post_type = models.CharField(max_length=10, default="feed")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.platform} {self.external_id}"


class ShortLink(OrgScopedModel):
    """A Postforge short link (`/l/<code>`) to a tracked URL in one published post.

    Made at publish time for each link of the post's text when the brand turns short links on;
    the target is fixed when made (the redirect goes only there: no open redirect)."""

    code = models.CharField(max_length=16, unique=True)
    publication = models.ForeignKey(Publication, on_delete=models.CASCADE, related_name="short_links")
    #: the link as written in the caption, and the UTM-tagged URL the code redirects to
    original_url = models.TextField()
    target_url = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["publication", "original_url"], name="shortlink_one_per_url")
        ]

    def __str__(self) -> str:
        return f"/l/{self.code}"


class LinkClickDay(models.Model):
    """Clicks on a short link: a count per day, referrer platform and country, nothing about
    the person (no IP, no user agent, no time of day)."""

    link = models.ForeignKey(ShortLink, on_delete=models.CASCADE, related_name="click_days")
    day = models.DateField()
    #: the platform the Referer's host belongs to, "other", or "direct" (no Referer)
    referrer = models.CharField(max_length=20)
    #: ISO 3166 alpha-2 from the configured header (LINK_COUNTRY_HEADER), else ""
    country = models.CharField(max_length=2, blank=True, default="")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["link", "day", "referrer", "country"], name="linkclickday_one_row_per_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.referrer} {self.country}: {self.count}"
