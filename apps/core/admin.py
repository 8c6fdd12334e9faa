"""The admin index shows whether Celery workers are alive (apps.core.workers)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse

_index = admin.site.index


def _workers_status() -> dict:
    from django.conf import settings

    from .workers import alive

    # the embedded default's worker beats in a file (var/workers/), a deployment's in Redis
    embedded = not settings.CELERY_BROKER_URL.startswith("redis")
    try:
        live = alive()
        return {"alive": live, "error": "", "embedded": embedded}
    except Exception as exc:  # Redis down: say so rather than break the admin
        return {"alive": [], "error": f"{exc.__class__.__name__}: {exc}"[:200], "embedded": embedded}


def index(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> TemplateResponse:
    return _index(request, {"pf_workers": _workers_status(), **(extra_context or {})})


admin.site.index = index  # type: ignore[method-assign]  # the index with the workers' status
