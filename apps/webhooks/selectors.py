from __future__ import annotations

from .models import WebhookDelivery, WebhookEndpoint


def webhook_list(*, organization):
    return WebhookEndpoint.objects.for_organization(organization)


def delivery_list(*, endpoint, status: str | None = None, event_type: str | None = None):
    qs = WebhookDelivery.objects.filter(endpoint=endpoint)
    if status:
        qs = qs.filter(status=status)
    if event_type:
        qs = qs.filter(event_type=event_type)
    return qs
