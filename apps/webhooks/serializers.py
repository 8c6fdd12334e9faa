"""Inputs and renderings shared by both families (ids: prefixed in A, UUIDs in B)."""

from __future__ import annotations

from rest_framework import serializers

from apps.core import ids
from apps.core.serializers import NamedChoiceField, OutputSerializer, StrictSerializer, iso

from .models import DeliveryStatus
from .services import EVENT_TYPES


def _event():
    """An event name, or `*` for every event (the service checks them and names the unknown ones)."""
    return NamedChoiceField(choices=("*", *EVENT_TYPES), max_length=64)


_B64 = "[A-Za-z0-9+/]"
#: what apps.webhooks.services.secret_validate accepts: `whsec_` and the base64 of 24 to 64 bytes
#: (8 to 21 groups of four characters, the last one possibly padded, 65 bytes and more excluded)
SECRET_PATTERN = (
    rf"^(?:whsec_(?:(?:{_B64}{{4}}){{8,20}}(?:{_B64}{{4}}|{_B64}{{2}}==|{_B64}{{3}}=)?"
    rf"|(?:{_B64}{{4}}){{21}}(?:{_B64}{{2}}==)?))?$"
)


class WebhookInput(StrictSerializer):
    url = serializers.CharField(max_length=2000)
    events = serializers.ListField(child=_event(), min_length=1, max_length=50)
    secret = serializers.CharField(required=False, allow_blank=True, max_length=200, trim_whitespace=False)
    active = serializers.BooleanField(required=False)
    #: the service also checks that the host resolves to public addresses only (apps.webhooks.ssrf)
    openapi_fields = {
        "url": {
            "format": "uri",
            "pattern": "^https://",
            "description": "An https URL whose host resolves to public addresses only",
        },
        "secret": {
            "pattern": SECRET_PATTERN,
            "description": "whsec_ and the base64 of 24 to 64 bytes (empty: a new one is made on create, the current one kept on update)",
        },
    }


class WebhookUpdateInput(WebhookInput):
    url = serializers.CharField(max_length=2000, required=False)
    events = serializers.ListField(child=_event(), min_length=1, max_length=50, required=False)


class WebhookOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_webhook(instance, self.view.family)

    id = serializers.CharField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=("*", *EVENT_TYPES)))
    active = serializers.BooleanField()
    disabledReason = serializers.CharField(allow_null=True)
    disabledAt = serializers.DateTimeField(allow_null=True)
    secret = serializers.CharField(required=False, help_text="only on create and rotate-secret")
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class DeliveryOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_delivery(instance, self.view.family)

    id = serializers.CharField()
    webhookId = serializers.CharField()
    eventId = serializers.CharField()
    eventType = serializers.ChoiceField(choices=EVENT_TYPES)
    status = serializers.ChoiceField(choices=DeliveryStatus.values)
    attemptCount = serializers.IntegerField()
    nextAttemptAt = serializers.DateTimeField(allow_null=True)
    lastStatusCode = serializers.IntegerField(allow_null=True)
    payload = serializers.DictField()
    attempts = serializers.ListField(child=serializers.DictField(), required=False)
    createdAt = serializers.DateTimeField()


def _id(value, kind: str, family: str):
    return ids.render(value, kind) if family == "v1" else str(value)


def present_webhook(endpoint, family: str, *, secret: bool = False) -> dict:
    out = {
        "id": _id(endpoint.pk, "webhook", family),
        "url": endpoint.url,
        "events": endpoint.events,
        "active": endpoint.active,
        "disabledReason": endpoint.disabled_reason or None,
        "disabledAt": iso(endpoint.disabled_at) if endpoint.disabled_at else None,
        "createdAt": iso(endpoint.created_at),
        "updatedAt": iso(endpoint.updated_at),
    }
    if secret:
        out["secret"] = endpoint.secret
    return out


def present_attempt(attempt) -> dict:
    return {
        "startedAt": iso(attempt.started_at),
        "statusCode": attempt.status_code,
        "latencyMs": attempt.latency_ms,
        "responseBody": attempt.response_body,
        "error": attempt.error or None,
    }


def present_delivery(delivery, family: str, *, attempts: bool = False) -> dict:
    out = {
        "id": _id(delivery.pk, "delivery", family),
        "webhookId": _id(delivery.endpoint_id, "webhook", family),
        "eventId": delivery.message_id,
        "eventType": delivery.event_type,
        "status": delivery.status,
        "attemptCount": delivery.attempt_count,
        "nextAttemptAt": iso(delivery.next_attempt_at) if delivery.next_attempt_at else None,
        "lastStatusCode": delivery.last_status_code,
        "payload": delivery.payload,
        "createdAt": iso(delivery.created_at),
    }
    if attempts:
        out["attempts"] = [present_attempt(a) for a in delivery.attempts.all()]
    return out
