"""Family B paths of publishing that must come before the content package's `content/<pk>`
(config/urls_api.py mounts them first): the draft pre-flight check."""

from django.urls import path

from .preflight import PreflightViewSet

urlpatterns = [
    path("content/preflight", PreflightViewSet.as_view({"post": "draft"})),
]
