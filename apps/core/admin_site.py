"""The one admin site (issue 29): Django's AdminSite with a registry of pages and the index
that shows the workers' status. It is the default site (``PostforgeAdminConfig`` in
INSTALLED_APPS, apps.core.admin_config), so ``admin.site`` and ``@admin.register`` name it; nothing patches it.

An app adds a page beside the models' pages with ``admin.site.register_page(route, view,
name=...)`` from its admin module (the calendar, analytics, failures): the site wraps the view
in ``admin_view`` (staff login, no caching) and serves it under ``/admin/<route>``, reversible
as ``admin:<name>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, URLResolver, path


@dataclass(frozen=True)
class AdminPage:
    route: str
    view: Callable[..., HttpResponse]
    name: str


class PostforgeAdminSite(admin.AdminSite):
    site_header = "Postforge"
    site_title = "Postforge"
    index_title = "Staff console"

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)
        self._pages: dict[str, AdminPage] = {}

    def register_page(self, route: str, view: Callable[..., HttpResponse], *, name: str) -> None:
        """Serve ``view`` at ``/admin/<route>`` as ``admin:<name>`` (staff only); registering
        the same name again replaces it (a module imported twice adds nothing)."""
        self._pages[name] = AdminPage(route, view, name)

    @property
    def pages(self) -> tuple[AdminPage, ...]:
        return tuple(self._pages.values())

    def get_urls(self) -> list[URLPattern | URLResolver]:
        own = [path(p.route, self.admin_view(p.view), name=p.name) for p in self._pages.values()]
        return [*own, *super().get_urls()]

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
        """The index with whether Celery workers are alive (apps.core.workers)."""
        return super().index(request, {"pf_workers": workers_status(), **(extra_context or {})})


def workers_status() -> dict[str, Any]:
    from django.conf import settings

    from .workers import alive

    # the embedded default's worker beats in a file (var/workers/), a deployment's in Redis
    embedded = not settings.CELERY_BROKER_URL.startswith("redis")
    try:
        return {"alive": alive(), "error": "", "embedded": embedded}
    except Exception as exc:  # Redis down: say so rather than break the admin
        return {"alive": [], "error": f"{exc.__class__.__name__}: {exc}"[:200], "embedded": embedded}


def register_page(route: str, view: Callable[..., HttpResponse], *, name: str) -> None:
    """Add a page to the default site (``admin.site``), which is Postforge's."""
    from django.core.exceptions import ImproperlyConfigured

    site = admin.site
    if not isinstance(site, PostforgeAdminSite):
        raise ImproperlyConfigured(
            "INSTALLED_APPS names django.contrib.admin: use apps.core.admin_config.PostforgeAdminConfig."
        )
    site.register_page(route, view, name=name)
