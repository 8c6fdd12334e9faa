"""Probes, as Kubernetes means them (issue 33), without authentication.

- `/livez` (and `/healthz`): the process answers. No dependency is checked: a database or Redis
  outage must not get every pod restarted.
- `/startupz`: the process can serve this release: the database answers and holds every
  migration this code has (a pod started before its `migrate` Job finished waits here).
- `/readyz`: the process can serve requests now: what the pod itself needs, the database.
  Redis (cache and rate limits, broker, channels) and the workers are reported to staff but never
  fail readiness: a Redis blip would otherwise take every web pod out of its Service at once,
  while the API still answers (rate limits fail as docs/decisions.md says, work waits in the
  outbox and the database).

The public answer is `{"status": "ok"}` (200) or `{"status": "unavailable"}` (503 with
Retry-After): no host, port or node name (issue 28). A staff session sees the details.

Kubelet probes reach a pod by its IP, a Host that ALLOWED_HOSTS does not list:
`ProbeMiddleware` answers the probe paths before anything validates the Host header.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.http.response import HttpResponseBase

PROBE_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/startupz"})
_migrated: dict[str, bool] = {}  # once the database holds this code's migrations, it stays so


def healthz(request: HttpRequest) -> JsonResponse:
    response = JsonResponse({"status": "ok"})
    response["Cache-Control"] = "no-store"
    return response


livez = healthz


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _check_migrations() -> str:
    if _migrated.get(connection.alias):
        return "ok"
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        raise RuntimeError(f"{len(plan)} migrations not applied")
    _migrated[connection.alias] = True
    return "ok"


def _check_cache() -> str:
    cache = caches["default"]
    cache.set("pf:readyz", "1", 5)
    if cache.get("pf:readyz") != "1":
        raise RuntimeError("cache did not keep a value")
    return "ok"


def _ping(url: str) -> None:
    from apps.core import redisconn

    redisconn.client(url).ping()


def _check_broker() -> str:
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis"):
        _ping(url)
    elif url.startswith("filesystem"):
        import os

        folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]
        if not os.access(folder, os.W_OK):
            raise RuntimeError(f"broker folder {folder} is not writable")
    return "ok"


def _check_channels() -> str:
    from apps.core import redisconn

    if redisconn.channels_url():
        _ping(redisconn.channels_url())
    return "ok"


def _run(checks: dict[str, Callable[[], str]]) -> tuple[bool, dict[str, str]]:
    ok, found = True, {}
    for name, fn in checks.items():
        try:
            found[name] = fn()
        except Exception as exc:  # reported, not raised: this is the point of the endpoint
            found[name] = f"error: {exc.__class__.__name__}: {exc}"[:300]
            ok = False
    return ok, found


def _workers() -> dict[str, Any]:
    try:
        from .workers import alive

        live = alive()
        return {
            "alive": len(live),
            "status": "ok" if live else "none alive",
            "names": [w["name"] for w in live],
            "queues": sorted({q for w in live for q in w["queues"]}),
        }
    except Exception as exc:
        return {"alive": 0, "status": f"unknown: {exc.__class__.__name__}"}


def _is_staff(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)


def _answer(request: HttpRequest, ok: bool, details: dict[str, Any]) -> JsonResponse:
    body: dict[str, Any] = {"status": "ok" if ok else "unavailable"}
    if _is_staff(request):
        body.update(details)
    response = JsonResponse(body, status=200 if ok else 503)
    if not ok:
        response["Retry-After"] = str(settings.DATABASE_UNAVAILABLE_RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def readyz(request: HttpRequest) -> JsonResponse:
    ok, required = _run({"database": _check_database})
    details: dict[str, Any] = {}
    if _is_staff(request):
        # reported, never required (the module's doc): a Redis blip keeps the pod in service
        _, reported = _run({"cache": _check_cache, "broker": _check_broker, "channels": _check_channels})
        details = {"checks": {**required, **reported}, "workers": _workers()}
    return _answer(request, ok, details)


def startupz(request: HttpRequest) -> JsonResponse:
    ok, checks = _run({"database": _check_database, "migrations": _check_migrations})
    return _answer(request, ok, {"checks": checks})


PROBES: dict[str, Callable[[HttpRequest], JsonResponse]] = {
    "/healthz": healthz,
    "/livez": livez,
    "/readyz": readyz,
    "/startupz": startupz,
}


class ProbeMiddleware:
    """Answers a probe without a session (a kubelet's, a load balancer's, compose's healthcheck)
    before the Host header is validated: probes come to the pod's own address, which
    ALLOWED_HOSTS does not (and should not) list. Placed before SecurityMiddleware (no HTTPS
    redirect of a plain-HTTP probe) and CommonMiddleware. A request with a session cookie goes
    the usual way, so staff see the details on an allowed host."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method in ("GET", "HEAD") and settings.SESSION_COOKIE_NAME not in request.COOKIES:
            probe = PROBES.get(request.path_info)
            if probe is not None:
                return probe(request)
            if request.path_info == "/metrics":  # Prometheus scrapes the pod's address too
                from django.urls import resolve

                response: HttpResponseBase = resolve("/metrics").func(request)
                return response
        return self.get_response(request)
