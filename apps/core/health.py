"""Liveness and readiness, without authentication."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _check_cache() -> str:
    cache.set("pf:readyz", "1", 5)
    if cache.get("pf:readyz") != "1":
        raise RuntimeError("cache did not keep a value")
    return "ok"


def _check_broker() -> str:
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis"):
        import redis

        redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2).ping()
    elif url.startswith("filesystem"):
        import os

        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]
        if not os.access(folder, os.W_OK):
            raise RuntimeError(f"broker folder {folder} is not writable")
    return "ok"


def readyz(request: HttpRequest) -> JsonResponse:
    checks: dict[str, str] = {}
    ok = True
    for name, fn in (("database", _check_database), ("cache", _check_cache), ("broker", _check_broker)):
        try:
            checks[name] = fn()
        except Exception as exc:  # reported, not raised: this is the point of the endpoint
            checks[name] = f"error: {exc.__class__.__name__}: {exc}"[:300]
            ok = False
    # Workers are reported, not required: the API serves reads and accepts work without them
    # (generations and posts wait in the queue), so a load balancer keeps routing to it.
    try:
        from .workers import alive

        live = alive()
        workers = {
            "alive": len(live),
            "status": "ok" if live else "none alive",
            "names": [w["name"] for w in live],
        }
    except Exception as exc:
        workers = {"alive": 0, "status": f"unknown: {exc.__class__.__name__}"}
    return JsonResponse(
        {"status": "ok" if ok else "unavailable", "checks": checks, "workers": workers},
        status=200 if ok else 503,
    )
