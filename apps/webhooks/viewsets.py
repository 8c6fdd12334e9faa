"""The webhook endpoints' HTTP layer, shared by both families (each mixes in its base)."""

from __future__ import annotations

from typing import Any, Protocol

from rest_framework.serializers import BaseSerializer, Serializer

from . import permissions, selectors, services
from . import serializers as s


class _Validates(Protocol):
    """What these views take from their family base (apps.core.views)."""

    def validated(
        self, serializer_class: type[BaseSerializer[Any]], data: Any = None, **context: Any
    ) -> dict[str, Any]: ...


class WebhookViews:
    id_kind = "webhook"
    policy = permissions.WEBHOOKS
    sort_fields = {"createdAt": "created_at", "url": "url"}
    default_sort = ("created_at", "desc")
    queryset = selectors.webhook_rows()
    output_serializer: type[Serializer] | None = s.WebhookOutput

    def _fields(self: _Validates, serializer_class: type[BaseSerializer[Any]]) -> dict[str, Any]:
        return dict(self.validated(serializer_class))

    def retrieve(self, request, pk=None):
        return self.respond(s.present_webhook(self.get_object(), self.family))

    def create(self, request):
        endpoint = services.webhook_create(
            organization=self.actor.organization, **self._fields(s.WebhookInput)
        )
        return self.respond(s.present_webhook(endpoint, self.family, secret=True), status=201)

    def update(self, request, pk=None):
        endpoint = services.webhook_update(endpoint=self.get_object(), **self._fields(s.WebhookUpdateInput))
        return self.respond(s.present_webhook(endpoint, self.family))

    def destroy(self, request, pk=None):
        services.webhook_delete(endpoint=self.get_object())
        return self.respond(None, status=204)

    def test(self, request, pk=None):
        delivery = services.webhook_test(endpoint=self.get_object())
        return self.respond(s.present_delivery(delivery, self.family), status=202)

    def rotate_secret(self, request, pk=None):
        endpoint = services.webhook_rotate_secret(endpoint=self.get_object())
        return self.respond(s.present_webhook(endpoint, self.family, secret=True))


class DeliveryViews:
    id_kind = "delivery"
    policy = permissions.WEBHOOKS
    sort_fields = {"createdAt": "created_at"}
    default_sort = ("created_at", "desc")
    queryset = selectors.delivery_rows()
    output_serializer: type[Serializer] | None = s.DeliveryOutput

    def get_queryset(self):
        """The deliveries of the path's webhook, which must be of the caller's organization (else
        a 404 naming it)."""
        endpoint = self.lookup(
            selectors.webhook_list(organization=self.actor.organization), self.kwargs["webhook_pk"], "webhook"
        )
        return super().get_queryset().filter(endpoint=endpoint)

    def get_detail_queryset(self):
        return self.get_queryset().select_related("endpoint")

    def retrieve(self, request, webhook_pk=None, pk=None):
        return self.respond(s.present_delivery(self.get_object(), self.family, attempts=True))

    def redeliver(self, request, webhook_pk=None, pk=None):
        delivery = services.delivery_redeliver(delivery=self.get_object())
        return self.respond(s.present_delivery(delivery, self.family), status=202)
