import kombu.exceptions
import redis
import requests
from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from apps.core.tasking import DefaultTask

from . import services


def _delivery_time_limits() -> tuple[float, float]:
    """(soft, hard) seconds for a delivery task: its drain budget, then one last attempt
    bounded by WEBHOOK_TIMEOUT_SECONDS, and room for the database work around them. The soft
    limit ends the drain (the lease runs out and the sweep hands the delivery on); the hard
    one kills the process that still ran past it."""
    soft = settings.WEBHOOK_DRAIN_SECONDS + settings.WEBHOOK_TIMEOUT_SECONDS + 30.0
    return soft, soft + 15.0


SOFT_LIMIT, HARD_LIMIT = _delivery_time_limits()


@shared_task(
    queue="webhooks",
    ignore_result=True,
    acks_late=True,
    soft_time_limit=SOFT_LIMIT,
    time_limit=HARD_LIMIT,
)
def deliver(delivery_id: str) -> None:
    """An attempt of this delivery (claimed with a lease; a duplicate message finds nothing to
    do), then the endpoint's other due deliveries."""
    services.endpoint_drain(delivery_id=delivery_id)


@shared_task(
    queue="webhooks",
    ignore_result=True,
    acks_late=True,
    soft_time_limit=SOFT_LIMIT,
    time_limit=HARD_LIMIT,
)
def deliver_endpoint(endpoint_id: str) -> None:
    """The endpoint's due deliveries, one after another, while it has room and they succeed."""
    services.endpoint_drain(endpoint_id=endpoint_id)


@shared_task(queue="webhooks", ignore_result=True)
def sweep_deliveries() -> int:
    return services.deliveries_sweep()


@shared_task(queue="default", ignore_result=True)
def prune_logs() -> int:
    return services.logs_prune() + services.inbound_prune()


#: worth another try: the database, Redis, the broker or a platform unreachable for a moment
TRANSIENT = (
    OperationalError,
    InterfaceError,
    redis.ConnectionError,
    redis.TimeoutError,
    kombu.exceptions.OperationalError,
    requests.RequestException,
)


class InboundTask(DefaultTask):
    """A transient error tries again with backoff; any other is a bug and fails at once (the
    record stays unprocessed: `sweep_inbound` tries it again later, and the log says why).
    A malformed payload is not an error here: `inbound_process` records it as the outcome."""

    autoretry_for = TRANSIENT
    retry_backoff = 2
    max_retries = 5


@shared_task(base=InboundTask)
def process_inbound(provider: str, event_id: str) -> None:
    """The effects of a verified inbound webhook (outside the request)."""
    from .inbound_effects import inbound_process

    inbound_process(provider=provider, event_id=event_id)


@shared_task(queue="default", ignore_result=True)
def sweep_inbound() -> int:
    """Apply recorded inbound webhooks whose task was lost."""
    from .inbound_effects import inbound_sweep

    return inbound_sweep()
