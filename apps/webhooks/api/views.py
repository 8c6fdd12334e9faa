from __future__ import annotations

from drf_spectacular.utils import extend_schema

from apps.core.views import ApiViewSet, ListMixin

from .. import filters
from .. import serializers as s
from ..schema import delivery_schema, webhook_schema
from ..viewsets import DeliveryViews, WebhookViews


@webhook_schema("api")
class WebhookViewSet(WebhookViews, ListMixin, ApiViewSet):
    @extend_schema(request=None, responses={202: s.DeliveryOutput}, operation_id="api_webhooks_test")
    def test(self, request, pk=None):
        return super().test(request, pk)

    @extend_schema(request=None, responses=s.WebhookOutput, operation_id="api_webhooks_rotate_secret")
    def rotate_secret(self, request, pk=None):
        return super().rotate_secret(request, pk)

    search_fields = ("url",)


@delivery_schema("api")
class DeliveryViewSet(DeliveryViews, ListMixin, ApiViewSet):
    filterset_class = filters.DeliveryFilter

    @extend_schema(
        request=None, responses={202: s.DeliveryOutput}, operation_id="api_webhook_deliveries_redeliver"
    )
    def redeliver(self, request, webhook_pk=None, pk=None):
        return super().redeliver(request, webhook_pk, pk)
