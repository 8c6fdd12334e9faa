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
    #: what the event is about, `content:<hex>` (apps.events.dispatch.subject_of): a subject's
    #: events are sent in order, each with the subject's next `sequence`
    subject = models.CharField(max_length=80, blank=True, default="")

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["dispatched_at", "created_at"], name="event_pending_idx"),
            models.Index(fields=["subject", "dispatched_at"], name="event_subject_pending_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.pk}"


class SubjectSequence(models.Model):
    """The last `sequence` sent for one subject. Its row is also the subject's lock: a dispatch
    holds it (in subject order) from the claim to the end of the send, so two dispatches never
    send one subject's events at the same time, and numbers follow the order of sending."""

    subject = models.CharField(max_length=80, primary_key=True)
    last = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.subject} #{self.last}"
