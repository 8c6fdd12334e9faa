from django.urls import path

from .views import BrandViewSet

ID = "<str:pk>"

urlpatterns = [
    path("brands", BrandViewSet.as_view({"get": "list", "post": "create"})),
    path(f"brands/{ID}", BrandViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})),
]
