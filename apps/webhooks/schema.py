"""OpenAPI annotations of the webhook views, per family (operation ids must differ)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from . import serializers as s


def webhook_schema(family: str):
    return extend_schema_view(
        list=extend_schema(responses=s.WebhookOutput(many=True), operation_id=f"{family}_webhooks_list"),
        retrieve=extend_schema(responses=s.WebhookOutput, operation_id=f"{family}_webhooks_retrieve"),
        create=extend_schema(
            request=s.WebhookInput, responses={201: s.WebhookOutput}, operation_id=f"{family}_webhooks_create"
        ),
        update=extend_schema(
            request=s.WebhookUpdateInput, responses=s.WebhookOutput, operation_id=f"{family}_webhooks_update"
        ),
        destroy=extend_schema(responses={204: None}, operation_id=f"{family}_webhooks_destroy"),
    )


def delivery_schema(family: str):
    # the list's parameters come from its FilterSet (apps.webhooks.filters)
    return extend_schema_view(
        list=extend_schema(
            responses=s.DeliveryOutput(many=True),
            operation_id=f"{family}_webhook_deliveries_list",
        ),
        retrieve=extend_schema(
            responses=s.DeliveryOutput, operation_id=f"{family}_webhook_deliveries_retrieve"
        ),
    )
