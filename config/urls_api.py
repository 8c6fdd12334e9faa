"""Family B, mounted at /api (no version, no locale prefix): each app's api package lists its own routes."""

from django.urls import include, path

PACKAGES = ("brands", "profiles", "media", "content", "publishing", "analytics", "webhooks")

urlpatterns = [
    # fixed paths under content/ that publishing serves (before content's `content/<pk>`)
    path("", include("apps.publishing.api.urls_first")),
    *[path("", include(f"apps.{app}.api.urls")) for app in PACKAGES],
]
