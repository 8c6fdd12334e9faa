"""Publishing: OAuth connection state (and, with their issue, publications)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

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
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    #: the API credential that began the flow ("key:<uuid>" or "jwt:<org>:<sub>")
    credential_id = models.CharField(max_length=80, blank=True, default="")
    platform = models.CharField(max_length=20)
    state = models.CharField(max_length=64, unique=True)
    redirect_uri = models.URLField(max_length=2000)
    #: PKCE verifier (empty when the platform's flow does not use PKCE)
    code_verifier = models.CharField(max_length=128, blank=True, default="")
    brand = models.ForeignKey("brands.Brand", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    #: the API family that began the flow ("v1" or "api"): it decides the profileId form
    family = models.CharField(max_length=3, default="v1")
    #: the flow runs against the local sandbox provider (no app credentials at begin)
    sandbox = models.BooleanField(default=False)
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


# --- publications (defined in their own module) -------------------------------------------
from .publications import Publication, SandboxPost  # noqa: E402,F401
