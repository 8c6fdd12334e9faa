"""The transactional outbox: events written in the same transaction as the change."""

from __future__ import annotations

from django.db import models

from apps.core.models import OrgQuerySet, OrgScopedModel


class EventQuerySet(OrgQuerySet):
    def pending(self):
        return self.filter(dispatched_at__isnull=True)


class Event(OrgScopedModel):
    type = models.CharField(max_length=64, db_index=True)
    data = models.JSONField(default=dict)
    #: when the dispatcher fanned it out to the channel layer (and webhooks)
    dispatched_at = models.DateTimeField(null=True, blank=True, db_index=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["dispatched_at", "created_at"], name="event_pending_idx")]

    def __str__(self) -> str:
        return f"{self.type} {self.pk}"
