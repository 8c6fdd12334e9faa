"""Routes of /v1/webhooks and /api/webhooks (the same views in each family)."""

from django.urls import path


def routes(webhooks, deliveries) -> list:
    ID = "<str:pk>"
    return [
        path("webhooks", webhooks.as_view({"get": "list", "post": "create"})),
        path(f"webhooks/{ID}", webhooks.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
        path(f"webhooks/{ID}/test", webhooks.as_view({"post": "test"})),
        path(f"webhooks/{ID}/rotate-secret", webhooks.as_view({"post": "rotate_secret"})),
        path("webhooks/<str:webhook_pk>/deliveries", deliveries.as_view({"get": "list"})),
        path(f"webhooks/<str:webhook_pk>/deliveries/{ID}", deliveries.as_view({"get": "retrieve"})),
        path(
            f"webhooks/<str:webhook_pk>/deliveries/{ID}/redeliver", deliveries.as_view({"post": "redeliver"})
        ),
    ]
