from django.urls import path

from apps.core.routers import Router

from .posting import PostsViewSet
from .preflight import PreflightViewSet
from .views import OAuthViewSet, RedirectOriginViewSet, TikTokCreatorInfoViewSet

router = Router()
router.register("posts", PostsViewSet, basename="api-posts")
urlpatterns = [
    *router.urls,
    path("content/<str:pk>/preflight", PreflightViewSet.as_view({"post": "content"})),
    path("profiles/<str:pk>/tiktok/creator-info", TikTokCreatorInfoViewSet.as_view({"get": "creator_info"})),
    path("oauth/platforms", OAuthViewSet.as_view({"get": "platforms"})),
    path("oauth/redirect-origins", RedirectOriginViewSet.as_view({"get": "list", "post": "create"})),
    path("oauth/redirect-origins/<str:pk>", RedirectOriginViewSet.as_view({"delete": "destroy"})),
    path("oauth/bluesky/app-password", OAuthViewSet.as_view({"post": "bluesky"})),
    path("oauth/<str:platform>/authorize", OAuthViewSet.as_view({"post": "authorize"})),
]
