"""Webhooks: inbound system webhooks (/webhook/<provider>); outbound models arrive with their issue."""

from __future__ import annotations

from django.db import models


class InboundWebhook(models.Model):
    """A verified webhook a provider sent us, kept so that a replay of it changes nothing.

    Unique per (provider, the provider's event id: `webhook-id` for Replicate).
    """

    provider = models.CharField(max_length=32)
    event_id = models.CharField(max_length=200)
    #: what the webhook is about, e.g. the Replicate prediction id
    subject = models.CharField(max_length=200, blank=True, default="", db_index=True)
    payload = models.JSONField(default=dict)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["received_at"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "event_id"], name="inbound_webhook_once_per_event"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.event_id}"
