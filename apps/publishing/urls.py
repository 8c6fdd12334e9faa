"""Public OAuth routes, mounted at /oauth/ (no API credentials)."""

from django.urls import path

from . import views

urlpatterns = [
    path("sandbox/avatar/<str:key>.png", views.sandbox_avatar, name="oauth-sandbox-avatar"),
    path("sandbox/<str:platform>/authorize", views.sandbox_authorize, name="oauth-sandbox-authorize"),
    path("<str:platform>/callback", views.oauth_callback, name="oauth-callback"),
]
