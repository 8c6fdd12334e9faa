"""Social profiles connected over OAuth, with their settings and posting slots."""

from __future__ import annotations

from django.db import models

from apps.core.models import OrgQuerySet, OrgScopedModel


class Platform(models.TextChoices):
    INSTAGRAM = "instagram", "Instagram"
    FACEBOOK = "facebook", "Facebook"
    TIKTOK = "tiktok", "TikTok"
    YOUTUBE = "youtube", "YouTube"
    LINKEDIN = "linkedin", "LinkedIn"
    X = "x", "X"
    THREADS = "threads", "Threads"
    PINTEREST = "pinterest", "Pinterest"
    BLUESKY = "bluesky", "Bluesky"


#: the platforms' names, as the API writes them
PLATFORMS = tuple(Platform.values)
#: a profile's grant: usable, refused by the platform on refresh, or revoked
TOKEN_STATUSES = ("valid", "expired", "revoked")

PLATFORM_ALIASES = {"twitter": "x"}


def normalize_platform(value: str) -> str | None:
    value = (value or "").strip().lower()
    value = PLATFORM_ALIASES.get(value, value)
    return value if value in Platform.values else None


class ProfileQuerySet(OrgQuerySet):
    def connected(self):
        return self.filter(connected=True)


class SocialProfile(OrgScopedModel):
    #: its brands' profiles (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ("brand",)
    brand = models.ForeignKey("brands.Brand", on_delete=models.PROTECT, related_name="profiles")
    platform = models.CharField(max_length=20, choices=Platform.choices)
    external_id = models.CharField(max_length=200)
    username = models.CharField(max_length=200)
    display_name = models.CharField(max_length=200, blank=True, default="")
    connected = models.BooleanField(default=True)
    connected_at = models.DateTimeField(null=True, blank=True)
    follower_count = models.PositiveIntegerField(default=0)
    picture_url = models.URLField(max_length=1000, blank=True, default="")
    #: {autoHashtags, defaultVisibility, postingTimes, timezone}
    settings = models.JSONField(default=dict, blank=True)
    #: profile-level generation settings (same keys as the brand's), override the brand
    generation_settings = models.JSONField(default=dict, blank=True)
    #: OAuth tokens, encrypted at rest (apps.publishing.crypto)
    access_token_enc = models.TextField(blank=True, default="")
    refresh_token_enc = models.TextField(blank=True, default="")
    token_expires_at = models.DateTimeField(null=True, blank=True)
    token_scopes = models.CharField(max_length=1000, blank=True, default="")
    token_status = models.CharField(max_length=20, default="valid")  # one of TOKEN_STATUSES
    #: why the token is expired or revoked (the platform's words), shown wherever the status is
    token_error = models.CharField(max_length=500, blank=True, default="")
    #: the platform's id of the person who granted access, when it is not the account's own
    #: (Meta: the user's app-scoped id, which deauthorize and data-deletion callbacks name)
    platform_user_id = models.CharField(max_length=200, blank=True, default="", db_index=True)
    #: a credential the platform has instead of a refreshable grant (Bluesky's app password),
    #: encrypted at rest like the tokens
    secret_enc = models.TextField(blank=True, default="")
    #: what the platform client needs besides the tokens (Bluesky: the PDS; LinkedIn: the
    #: organization; token-expiry warnings already sent)
    platform_data = models.JSONField(default=dict, blank=True)
    #: the sandbox publisher is used when the platform has no app credentials
    sandbox = models.BooleanField(default=False)

    objects = ProfileQuerySet.as_manager()

    class Meta:
        ordering = ["platform", "username"]
        indexes = [models.Index(fields=["organization", "-created_at"], name="profile_org_created_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "platform", "external_id"], name="profile_unique_account_per_org"
            )
        ]

    def __str__(self) -> str:
        return f"{self.platform}:{self.username}"

    @property
    def timezone_name(self) -> str:
        return self.settings.get("timezone") or "UTC"

    @property
    def posting_times(self) -> list[str]:
        return list(self.settings.get("postingTimes") or [])
