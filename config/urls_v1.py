"""Family A, mounted at /v1."""

from django.urls import path

from apps.analytics.v1.views import AnalyticsViewSet
from apps.brands.v1.views import BrandAssetViewSet, BrandViewSet
from apps.content.v1.views import ContentViewSet
from apps.profiles.v1.views import ProfileViewSet
from apps.publishing.v1.posting import ContentPublishingViewSet
from apps.publishing.v1.views import ProfileConnectViewSet, RedirectOriginViewSet

ID = "<str:pk>"

urlpatterns = [
    path("brands", BrandViewSet.as_view({"get": "list", "post": "create"})),
    path(f"brands/{ID}", BrandViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
    path("brands/<str:brand_pk>/assets", BrandAssetViewSet.as_view({"post": "create"})),
    path("profiles", ProfileViewSet.as_view({"get": "list"})),
    path("profiles/connect", ProfileConnectViewSet.as_view({"post": "connect"})),
    path(f"profiles/{ID}", ProfileViewSet.as_view({"get": "retrieve", "delete": "destroy"})),
    path(f"profiles/{ID}/settings", ProfileViewSet.as_view({"put": "update_settings"})),
    # content: the fixed paths before content/<pk>
    path("content", ContentViewSet.as_view({"get": "list"})),
    path("content/generate", ContentViewSet.as_view({"post": "generate"})),
    path("content/batch", ContentViewSet.as_view({"post": "batch"})),
    path(f"content/{ID}", ContentViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
    path(f"content/{ID}/approve", ContentViewSet.as_view({"post": "approve"})),
    path(f"content/{ID}/reject", ContentViewSet.as_view({"post": "reject"})),
    path(f"content/{ID}/regenerate", ContentViewSet.as_view({"post": "regenerate"})),
    path(f"content/{ID}/edit-image", ContentViewSet.as_view({"post": "edit_image"})),
    path(f"content/{ID}/edit-image/undo", ContentViewSet.as_view({"post": "undo_image_edit"})),
    path(f"content/{ID}/schedule", ContentPublishingViewSet.as_view({"post": "schedule"})),
    path("analytics/content", AnalyticsViewSet.as_view({"get": "content"})),
    path("analytics/export", AnalyticsViewSet.as_view({"get": "export"})),
    path(f"analytics/profiles/{ID}", AnalyticsViewSet.as_view({"get": "profile"})),
    path(f"content/{ID}/publish", ContentPublishingViewSet.as_view({"post": "publish"})),
    path("oauth/redirect-origins", RedirectOriginViewSet.as_view({"get": "list", "post": "create"})),
    path(f"oauth/redirect-origins/{ID}", RedirectOriginViewSet.as_view({"delete": "destroy"})),
]

from apps.webhooks.urls import routes as _webhook_routes  # noqa: E402
from apps.webhooks.v1.views import DeliveryViewSet, WebhookViewSet  # noqa: E402

urlpatterns += _webhook_routes(WebhookViewSet, DeliveryViewSet)
