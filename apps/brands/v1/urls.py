from django.urls import path

from .views import BrandAssetViewSet, BrandViewSet

ID = "<str:pk>"

urlpatterns = [
    path("brands", BrandViewSet.as_view({"get": "list", "post": "create"})),
    path(f"brands/{ID}", BrandViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
    path("brands/<str:brand_pk>/assets", BrandAssetViewSet.as_view({"post": "create"})),
]
