"""The webhook endpoints' HTTP layer, shared by both families (each mixes in its base)."""

from __future__ import annotations

from typing import Any, Protocol

from rest_framework.serializers import BaseSerializer, Serializer

from apps.core.errors import ValidationFailed

from . import selectors, services
from . import serializers as s
from .models import DeliveryStatus


class _Validates(Protocol):
    """What these views take from their family base (apps.core.views)."""

    def validated(
        self, serializer_class: type[BaseSerializer[Any]], data: Any = None, **context: Any
    ) -> dict[str, Any]: ...


class WebhookViews:
    id_kind = "webhook"
    scope: str | None = "webhooks"
    read_scope: str | None = "webhooks"
    write_role = "admin"
    sort_fields = {"createdAt": "created_at", "url": "url"}
    default_sort = ("created_at", "desc")
    queryset = selectors.webhook_rows()
    output_serializer: type[Serializer] | None = s.WebhookOutput

    def _webhooks(self):
        return self.get_queryset()

    def _webhook(self, pk):
        return self.lookup(self._webhooks(), pk, "webhook")

    def _fields(self: _Validates, serializer_class: type[BaseSerializer[Any]]) -> dict[str, Any]:
        return dict(self.validated(serializer_class))

    def retrieve(self, request, pk=None):
        return self.respond(s.present_webhook(self._webhook(pk), self.family))

    def create(self, request):
        endpoint = services.webhook_create(
            organization=self.actor.organization, **self._fields(s.WebhookInput)
        )
        return self.respond(s.present_webhook(endpoint, self.family, secret=True), status=201)

    def update(self, request, pk=None):
        endpoint = services.webhook_update(endpoint=self._webhook(pk), **self._fields(s.WebhookUpdateInput))
        return self.respond(s.present_webhook(endpoint, self.family))

    def destroy(self, request, pk=None):
        services.webhook_delete(endpoint=self._webhook(pk))
        return self.respond(None, status=204)

    def test(self, request, pk=None):
        delivery = services.webhook_test(endpoint=self._webhook(pk))
        return self.respond(s.present_delivery(delivery, self.family), status=202)

    def rotate_secret(self, request, pk=None):
        endpoint = services.webhook_rotate_secret(endpoint=self._webhook(pk))
        return self.respond(s.present_webhook(endpoint, self.family, secret=True))


class DeliveryViews:
    id_kind = "delivery"
    scope: str | None = "webhooks"
    read_scope: str | None = "webhooks"
    write_role = "admin"
    sort_fields = {"createdAt": "created_at"}
    default_sort = ("created_at", "desc")

    def _endpoint(self, webhook_pk):
        return self.lookup(
            selectors.webhook_list(organization=self.actor.organization), webhook_pk, "webhook"
        )

    def list(self, request, webhook_pk=None):
        status = request.query_params.get("status") or None
        if status and status not in DeliveryStatus.values:
            raise ValidationFailed(
                f"status must be one of {', '.join(DeliveryStatus.values)}.", {"status": ["Unknown status."]}
            )
        qs = selectors.delivery_list(
            endpoint=self._endpoint(webhook_pk),
            status=status,
            event_type=request.query_params.get("eventType")
            or request.query_params.get("event_type")
            or None,
        )
        return self.respond_list(qs, lambda d: s.present_delivery(d, self.family))

    def _delivery(self, webhook_pk, pk):
        qs = selectors.delivery_list(endpoint=self._endpoint(webhook_pk)).select_related("endpoint")
        return self.lookup(qs, pk, "delivery")

    def retrieve(self, request, webhook_pk=None, pk=None):
        return self.respond(s.present_delivery(self._delivery(webhook_pk, pk), self.family, attempts=True))

    def redeliver(self, request, webhook_pk=None, pk=None):
        delivery = services.delivery_redeliver(delivery=self._delivery(webhook_pk, pk))
        return self.respond(s.present_delivery(delivery, self.family), status=202)
