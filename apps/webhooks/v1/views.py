from __future__ import annotations

from drf_spectacular.utils import extend_schema

from apps.core.views import ListMixin, V1ViewSet

from .. import filters
from .. import serializers as s
from ..schema import delivery_schema, webhook_schema
from ..viewsets import DeliveryViews, WebhookViews


@webhook_schema("v1")
class WebhookViewSet(WebhookViews, ListMixin, V1ViewSet):
    @extend_schema(request=None, responses={202: s.DeliveryOutput}, operation_id="v1_webhooks_test")
    def test(self, request, pk=None):
        return super().test(request, pk)

    @extend_schema(request=None, responses=s.WebhookOutput, operation_id="v1_webhooks_rotate_secret")
    def rotate_secret(self, request, pk=None):
        return super().rotate_secret(request, pk)


@delivery_schema("v1")
class DeliveryViewSet(DeliveryViews, ListMixin, V1ViewSet):
    filterset_class = filters.DeliveryFilterA

    @extend_schema(
        request=None, responses={202: s.DeliveryOutput}, operation_id="v1_webhook_deliveries_redeliver"
    )
    def redeliver(self, request, webhook_pk=None, pk=None):
        return super().redeliver(request, webhook_pk, pk)
