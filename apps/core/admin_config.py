"""``django.contrib.admin`` with Postforge's site (apps.core.admin_site) as the default one.
Its own module: INSTALLED_APPS imports it before the app registry is ready, when the admin's
site and options cannot be imported yet."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class PostforgeAdminConfig(AdminConfig):
    default_site = "apps.core.admin_site.PostforgeAdminSite"
