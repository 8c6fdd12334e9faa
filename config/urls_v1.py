"""Family A, mounted at /v1: each app's v1 package lists its own routes."""

from django.urls import include, path

#: order matters where two packages share a prefix: publishing's profiles/connect before profiles/<id>
PACKAGES = ("publishing", "brands", "media", "profiles", "content", "analytics", "webhooks")

urlpatterns = [path("", include(f"apps.{app}.v1.urls")) for app in PACKAGES]
