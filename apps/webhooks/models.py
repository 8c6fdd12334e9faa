"""Webhooks: inbound system webhooks (/webhook/<provider>) and outbound registrations and deliveries."""

from __future__ import annotations

from django.db import models

from apps.core.models import OrgQuerySet, OrgScopedModel, TimeStampedModel


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
    #: when its effect was applied (null: waiting for its task, or for the sweep if that was lost)
    processed_at = models.DateTimeField(null=True, blank=True)
    #: what the effect did ("applied", "ignored", "plan pro", "no matching publication", ...)
    outcome = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["received_at"]
        indexes = [models.Index(fields=["processed_at", "received_at"], name="inbound_unprocessed_idx")]
        constraints = [
            models.UniqueConstraint(fields=["provider", "event_id"], name="inbound_webhook_once_per_event"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.event_id}"


class WebhookEndpoint(OrgScopedModel):
    """A customer's outbound webhook registration (`whk_...`)."""

    #: hidden from a brand-limited caller: an endpoint carries every brand's events (apps.core.scoping)
    brand_scope_paths: tuple[str, ...] = ()

    url = models.URLField(max_length=2000)
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=200)
    #: after a rotation the old secret keeps signing alongside until this moment
    previous_secret = models.CharField(max_length=200, blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    active = models.BooleanField(default=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    #: the first failed attempt since the last success (5 days of that disables the endpoint)
    failing_since = models.DateTimeField(null=True, blank=True)
    #: its last 2xx answer (kept to the minute): an endpoint that has not answered lately is
    #: probed by one attempt before it gets WEBHOOK_ENDPOINT_CONCURRENCY in flight
    answered_at = models.DateTimeField(null=True, blank=True)

    objects = OrgQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.url

    def subscribed(self, event_type: str) -> bool:
        return "*" in self.events or event_type in self.events


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class WebhookDelivery(TimeStampedModel):
    """One message to one endpoint (`dlv_...`), tried until it succeeds or runs out of retries.

    The backlog lives here, not in the broker: a task only ever carries a delivery id and
    claims the row with a lease; the beat sweep re-enqueues due rows and expired leases."""

    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(
        "events.Event", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: the `evt_...` id in the body and in `webhook-id`: the same across attempts and redeliveries
    message_id = models.CharField(max_length=64)
    event_type = models.CharField(max_length=64, db_index=True)
    payload = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    leased_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)

    objects = OrgQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="webhook_delivery_once_per_event"),
        ]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due_idx"),
            models.Index(fields=["endpoint", "status"], name="webhook_delivery_endpoint_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.message_id}"


class WebhookAttempt(models.Model):
    """One HTTP attempt of a delivery: what came back, how long it took, what went wrong."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    started_at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(default=0)
    response_body = models.TextField(blank=True, default="")
    error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["started_at", "id"]

    def __str__(self) -> str:
        # the admin shows it above each row of a delivery's attempt log
        outcome = f"HTTP {self.status_code}" if self.status_code is not None else (self.error or "no answer")
        return f"{outcome} in {self.latency_ms} ms"
