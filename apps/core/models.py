"""Base models: UUID keys, timestamps, and organization scoping."""

from __future__ import annotations

import uuid
from typing import Self

from django.db import models


class TimeStampedModel(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class OrgQuerySet(models.QuerySet):
    def for_organization(self, organization: models.Model | uuid.UUID) -> Self:
        """The rows of ``organization`` (an Organization or its id), of the caller's brands
        when the request is brand-limited (apps.core.scoping)."""
        from .scoping import brand_filter

        limit = brand_filter(self.model)
        if limit is None:
            return self.filter(organization=organization)
        return self.filter(limit, organization=organization)


class OrgScopedModel(TimeStampedModel):
    """A row a client owns. Every read goes through ``for_organization``."""

    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="+")

    objects = OrgQuerySet.as_manager()

    class Meta:
        abstract = True


class IdempotencyRecord(models.Model):
    """The first response to a POST carrying an ``Idempotency-Key`` (kept 24 h)."""

    credential = models.CharField(max_length=80)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True)
    body = models.BinaryField(null=True)
    content_type = models.CharField(max_length=100, default="application/json")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    #: while in progress: past this, the request is taken to have died and a retry runs again
    lease_until = models.DateTimeField(null=True, blank=True)
    #: what the request did, written in the transaction that did it (``{"kind": "content",
    #: "ids": [...], "status": 202}``): a retry after the lease answers with it instead of
    #: running again
    effect = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["credential", "key"], name="idempotency_unique_key")]

    def __str__(self) -> str:
        return f"{self.credential} {self.key}"
