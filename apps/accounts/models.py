"""Organizations, memberships with roles, and API keys."""

from __future__ import annotations

import hashlib
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.text import slugify


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    ADMIN = "admin", "Admin"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"
    #: a client reviewer: reads and approves or rejects its brands' content, nothing else (the
    #: policies name what it may do: `Policy.reviewer_reads`, `Policy.reviewer_actions`)
    REVIEWER = "reviewer", "Client reviewer"


ROLE_RANK = {Role.REVIEWER: 0, Role.VIEWER: 0, Role.EDITOR: 1, Role.ADMIN: 2, Role.OWNER: 3}

#: the help of the brand restriction of a membership or an API key
BRANDS_HELP = "The ids of the brands this member or key is limited to; empty means every brand."

SCOPES = ("content:read", "content:write", "publish", "profiles", "brands", "analytics", "webhooks")


class Organization(models.Model):
    """A tenant. Every client-owned row carries one."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    # The identity provider's id for this organization (the JWT org claim).
    external_id = models.CharField(max_length=200, unique=True, null=True, blank=True)
    #: the billing plan (a key of settings.PLANS) and what set it: the billing provider's
    #: customer and subscription, and the time of the provider event that last changed it
    #: (an older event arriving late changes nothing)
    plan = models.CharField(max_length=40, default="", blank=True, help_text="Empty means PLAN_DEFAULT.")
    billing_customer_id = models.CharField(max_length=200, unique=True, null=True, blank=True)
    billing_subscription_id = models.CharField(max_length=200, blank=True, default="")
    billing_status = models.CharField(max_length=40, blank=True, default="")
    plan_changed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name)[:90] or uuid.uuid4().hex[:12]
        super().save(*args, **kwargs)


class Membership(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.EDITOR)
    brand_ids = models.JSONField(default=list, blank=True, help_text=BRANDS_HELP)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organization", "user"], name="membership_unique")]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} ({self.role})"


class ApiKeyQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True)


class ApiKey(models.Model):
    """A bearer credential. The secret is shown once; only its SHA-256 is stored."""

    PREFIX = "pf_live_"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100, default="API key")
    # First 12 characters after the marker, indexed for lookup.
    lookup = models.CharField(max_length=16, db_index=True)
    hashed = models.CharField(max_length=64, unique=True)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.ADMIN)
    scopes = models.JSONField(default=list, blank=True, help_text="Empty means every scope of the role.")
    brand_ids = models.JSONField(default=list, blank=True, help_text=BRANDS_HELP)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.PREFIX}{self.lookup}…)"

    @staticmethod
    def hash_secret(secret: str) -> str:
        return hashlib.sha256(secret.encode()).hexdigest()

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])
