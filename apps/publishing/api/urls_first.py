"""Family B paths of publishing that must come before the content package's `content/<pk>`
(config/urls_api.py mounts them first): the draft pre-flight check and the import."""

from django.urls import path

from ..importing_views import ImportApiViewSet
from .preflight import PreflightViewSet

urlpatterns = [
    path("content/preflight", PreflightViewSet.as_view({"post": "draft"})),
    path("content/import", ImportApiViewSet.as_view({"post": "create"})),
]
