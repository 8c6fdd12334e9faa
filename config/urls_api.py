"""Family B, mounted at /api (no version, no locale prefix): each app's api package lists its own routes."""

from django.urls import include, path

PACKAGES = ("brands", "profiles", "media", "content", "publishing", "analytics", "webhooks")

urlpatterns = [path("", include(f"apps.{app}.api.urls")) for app in PACKAGES]
