"""Prometheus metrics of the web processes (issue 33), correct across gunicorn's processes.

Under gunicorn (`-c config/gunicorn.py`) PROMETHEUS_MULTIPROC_DIR is set before the application
loads: every process writes its counters and histograms to files there, and whichever process
answers /metrics adds them all up (prometheus_client's multiprocess mode). The state of the
system (queue depths, the oldest due post, outbox lag, webhook backlog, generation durations)
is read at scrape time from Redis and the database (apps.analytics.metrics), so every process
reports the same figures. Route families keep the label set small: v1, api, admin, docs,
webhook, oauth, approve, probe, static, media, other."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from prometheus_client import Counter, Histogram

REQUESTS = Counter(
    "postforge_http_requests_total",
    "HTTP requests answered, by route family, method and status class",
    ["family", "method", "status"],
)
LATENCY = Histogram(
    "postforge_http_request_duration_seconds",
    "Time to answer an HTTP request (until the view returned)",
    ["family"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
_FAMILIES = (
    ("/v1/docs", "docs"),
    ("/v1/redoc", "docs"),
    ("/v1/schema", "docs"),
    ("/v1/asyncapi", "docs"),
    ("/api/docs", "docs"),
    ("/api/redoc", "docs"),
    ("/api/schema", "docs"),
    ("/api/asyncapi", "docs"),
    ("/v1/", "v1"),
    ("/api/", "api"),
    ("/admin/", "admin"),
    ("/webhook/", "webhook"),
    ("/oauth/", "oauth"),
    ("/approve/", "approve"),
    ("/static/", "static"),
    ("/media/", "media"),
    ("/metrics", "metrics"),
    ("/healthz", "probe"),
    ("/livez", "probe"),
    ("/readyz", "probe"),
    ("/startupz", "probe"),
)
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def family(path: str) -> str:
    for prefix, name in _FAMILIES:
        if path.startswith(prefix):
            return name
    return "other"


def multiprocess() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


class MetricsMiddleware:
    """Counts and times every request by route family (first in the chain: probes included)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response = self.get_response(request)
        name = family(request.path_info)
        method = request.method if request.method in _METHODS else "other"
        REQUESTS.labels(name, method, f"{response.status_code // 100}xx").inc()
        LATENCY.labels(name).observe(time.perf_counter() - started)
        return response
