"""GET /metrics: Prometheus's text format (issue 33); apps.core.metrics explains the design.

Read at scrape time, the same from every process: each queue's depth in the broker, the age of
the oldest due publication no dispatcher has claimed, the outbox's lag (its oldest undispatched
event), the webhook deliveries waiting per endpoint state, and the durations of the last hour's
generations. Access: `Authorization: Bearer <METRICS_TOKEN>`; without METRICS_TOKEN only in
development (the embedded default, DEBUG), else 403."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Min
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from apps.core import metrics as core_metrics
from apps.core.management.commands.serve import QUEUES as SERVED_QUEUES

logger = logging.getLogger(__name__)
QUEUES = tuple(SERVED_QUEUES.split(","))


def queue_depths() -> dict[str, int]:
    """Messages waiting per queue: the broker's Redis lists, or the embedded default's files."""
    url = str(settings.CELERY_BROKER_URL)
    if url.startswith("redis"):
        from apps.core import workers

        return {q: workers.queued_messages([q]) for q in QUEUES}
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", ""))
    names = [p.name for p in folder.glob("*.msg")] if folder.is_dir() else []
    return {q: sum(1 for n in names if n.endswith(f".{q}.msg")) for q in QUEUES}


class StateCollector(Collector):
    """The figures read from Redis and the database at each scrape."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        depth = GaugeMetricFamily(
            "postforge_queue_depth", "Messages waiting in a Celery queue", labels=["queue"]
        )
        try:
            for queue, count in queue_depths().items():
                depth.add_metric([queue], count)
        except Exception:  # the broker away: no figure rather than a failed scrape
            logger.warning("metrics: queue depths unavailable", exc_info=True)
        yield depth
        yield from self._database(now)

    def _database(self, now) -> Iterator[Metric]:
        from apps.content.models import Content
        from apps.events.models import Event
        from apps.publishing.models import Publication
        from apps.webhooks.models import DeliveryStatus, WebhookDelivery

        def age(oldest) -> float:
            return max(0.0, (now - oldest).total_seconds()) if oldest else 0.0

        due = Publication.objects.filter(status=Publication.SCHEDULED, due_at__lte=now).aggregate(
            m=Min("due_at")
        )
        yield GaugeMetricFamily(
            "postforge_oldest_due_publication_age_seconds",
            "How long the oldest due publication has waited for a dispatcher to claim it",
            value=age(due["m"]),
        )
        lag = Event.objects.filter(dispatched_at__isnull=True).aggregate(m=Min("created_at"))
        yield GaugeMetricFamily(
            "postforge_outbox_lag_seconds", "Age of the oldest event not yet dispatched", value=age(lag["m"])
        )
        backlog = GaugeMetricFamily(
            "postforge_webhook_backlog",
            "Webhook deliveries waiting, by their endpoint's state",
            labels=["endpoint_state"],
        )
        pending = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
        counts = {
            "disabled": pending.filter(endpoint__disabled_at__isnull=False).count(),
            "failing": pending.filter(
                endpoint__disabled_at__isnull=True, endpoint__failing_since__isnull=False
            ).count(),
            "healthy": pending.filter(
                endpoint__disabled_at__isnull=True, endpoint__failing_since__isnull=True
            ).count(),
        }
        for state, count in counts.items():
            backlog.add_metric([state], count)
        yield backlog
        durations = sorted(
            (done - started).total_seconds()
            for started, done in Content.objects.filter(
                generated_at__gte=now - timedelta(hours=1), generation_started_at__isnull=False
            ).values_list("generation_started_at", "generated_at")[:10_000]
            if started is not None and done is not None
        )
        quantiles = GaugeMetricFamily(
            "postforge_generation_duration_seconds",
            "Generation durations over the last hour (started to generated), by quantile",
            labels=["quantile"],
        )
        for q in (0.5, 0.9, 0.99):
            quantiles.add_metric(
                [str(q)], durations[min(len(durations) - 1, int(q * len(durations)))] if durations else 0.0
            )
        yield quantiles
        yield GaugeMetricFamily(
            "postforge_generations_last_hour", "Generations finished in the last hour", value=len(durations)
        )


def _allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        return bool(settings.DEVELOPMENT)
    given = request.headers.get("Authorization", "")
    return given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), token.encode())


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return JsonResponse(
            {
                "error": {
                    "code": "FORBIDDEN",
                    "message": "Scrape /metrics with Authorization: Bearer <METRICS_TOKEN>.",
                }
            },
            status=403,
        )
    registry = CollectorRegistry()
    if core_metrics.multiprocess():
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)
    else:
        for collector in (core_metrics.REQUESTS, core_metrics.LATENCY):
            registry.register(collector)
    registry.register(StateCollector())
    return HttpResponse(generate_latest(registry), content_type="text/plain; version=0.0.4; charset=utf-8")
