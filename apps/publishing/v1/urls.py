from django.urls import path

from ..importing_views import ImportV1ViewSet
from .posting import ContentPublishingViewSet
from .preflight import PreflightViewSet
from .views import ProfileConnectViewSet, RedirectOriginViewSet, TikTokCreatorInfoViewSet

ID = "<str:pk>"

urlpatterns = [
    # mounted before the profiles package, so that "connect" is not taken for a profile id
    path("profiles/connect", ProfileConnectViewSet.as_view({"post": "connect"})),
    path("profiles/bluesky/connect", ProfileConnectViewSet.as_view({"post": "bluesky"})),
    path(f"profiles/{ID}/tiktok/creator-info", TikTokCreatorInfoViewSet.as_view({"get": "creator_info"})),
    path("content/preflight", PreflightViewSet.as_view({"post": "draft"})),
    path("content/import", ImportV1ViewSet.as_view({"post": "create"})),
    path(f"content/{ID}/preflight", PreflightViewSet.as_view({"post": "content"})),
    path(f"content/{ID}/schedule", ContentPublishingViewSet.as_view({"post": "schedule"})),
    path(f"content/{ID}/publish", ContentPublishingViewSet.as_view({"post": "publish"})),
    path("oauth/redirect-origins", RedirectOriginViewSet.as_view({"get": "list", "post": "create"})),
    path(f"oauth/redirect-origins/{ID}", RedirectOriginViewSet.as_view({"delete": "destroy"})),
]
