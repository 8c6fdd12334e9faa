"""Family B, mounted at /api (no version, no locale prefix)."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from apps.analytics.api.views import AnalyticsApiViewSet, MonitoringViewSet
from apps.brands.api.views import BrandViewSet
from apps.content.api.views import BatchViewSet, ContentViewSet, EventViewSet, ScheduleViewSet, TagViewSet
from apps.media.api.views import MediaViewSet
from apps.profiles.api.views import ProfileViewSet
from apps.publishing.api.posting import PostsViewSet
from apps.publishing.api.views import OAuthViewSet, RedirectOriginViewSet


class Router(SimpleRouter):
    """No trailing slashes: /api/brands, /api/brands/<id>."""

    def __init__(self):
        super().__init__(trailing_slash="")


router = Router()
router.register("brands", BrandViewSet, basename="api-brands")
router.register("profiles", ProfileViewSet, basename="api-profiles")
router.register("media", MediaViewSet, basename="api-media")
# content/schedules before content, so that "schedules" is not taken for a content id
router.register("content/schedules", ScheduleViewSet, basename="api-content-schedules")
router.register("content", ContentViewSet, basename="api-content")
router.register("tags", TagViewSet, basename="api-tags")
router.register("events", EventViewSet, basename="api-events")
router.register("batch", BatchViewSet, basename="api-batch")
router.register("posts", PostsViewSet, basename="api-posts")

urlpatterns = [
    path("", include(router.urls)),
    path("analytics/profiles", AnalyticsApiViewSet.as_view({"get": "profiles"})),
    path("analytics/overview", AnalyticsApiViewSet.as_view({"get": "overview"})),
    path("analytics/content", AnalyticsApiViewSet.as_view({"get": "content"})),
    path("analytics/export", AnalyticsApiViewSet.as_view({"get": "export"})),
    path("analytics/best-times", AnalyticsApiViewSet.as_view({"get": "best_times"})),
    path("monitoring/errors", MonitoringViewSet.as_view({"get": "errors"})),
    path("oauth/platforms", OAuthViewSet.as_view({"get": "platforms"})),
    path("oauth/redirect-origins", RedirectOriginViewSet.as_view({"get": "list", "post": "create"})),
    path("oauth/redirect-origins/<str:pk>", RedirectOriginViewSet.as_view({"delete": "destroy"})),
    path("oauth/<str:platform>/authorize", OAuthViewSet.as_view({"post": "authorize"})),
]

from apps.webhooks.api.views import DeliveryViewSet, WebhookViewSet  # noqa: E402
from apps.webhooks.urls import routes as _webhook_routes  # noqa: E402

urlpatterns += _webhook_routes(WebhookViewSet, DeliveryViewSet)
