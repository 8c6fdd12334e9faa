from django.urls import path

from .views import BrandAssetViewSet

urlpatterns = [
    path("brands/<str:brand_pk>/assets", BrandAssetViewSet.as_view({"post": "create"})),
]
