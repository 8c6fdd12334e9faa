"""Family A, mounted at /v1."""

from django.urls import path

from apps.brands.v1.views import BrandAssetViewSet, BrandViewSet
from apps.profiles.v1.views import ProfileViewSet

ID = "<str:pk>"

urlpatterns = [
    path("brands", BrandViewSet.as_view({"get": "list", "post": "create"})),
    path(f"brands/{ID}", BrandViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
    path("brands/<str:brand_pk>/assets", BrandAssetViewSet.as_view({"post": "create"})),
    path("profiles", ProfileViewSet.as_view({"get": "list"})),
    path(f"profiles/{ID}", ProfileViewSet.as_view({"get": "retrieve", "delete": "destroy"})),
    path(f"profiles/{ID}/settings", ProfileViewSet.as_view({"put": "update_settings"})),
]
