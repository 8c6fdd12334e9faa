from __future__ import annotations

from .models import InboundWebhook, WebhookDelivery, WebhookEndpoint


def webhook_rows():
    """Webhook endpoints of every organization (a list view's `queryset`; the base scopes it)."""
    return WebhookEndpoint.objects.all()


def webhook_list(*, organization):
    return webhook_rows().for_organization(organization)


def delivery_rows():
    """Deliveries of every organization (the deliveries list's `queryset`; the base scopes it,
    the view narrows it to the path's webhook)."""
    return WebhookDelivery.objects.all()


def inbound_payload(*, provider: str, subject: str, statuses: tuple[str, ...]) -> dict | None:
    """The body of the first webhook recorded from `provider` about `subject` whose status is
    one of `statuses` (a provider's prediction that ended), or None."""
    return (
        InboundWebhook.objects.filter(provider=provider, subject=subject, payload__status__in=statuses)
        .order_by("received_at")
        .values_list("payload", flat=True)
        .first()
    )
