from celery import shared_task

from . import services


@shared_task(queue="webhooks", ignore_result=True, acks_late=True)
def deliver(delivery_id: str) -> None:
    """An attempt of this delivery (claimed with a lease; a duplicate message finds nothing to
    do), then the endpoint's other due deliveries."""
    services.endpoint_drain(delivery_id=delivery_id)


@shared_task(queue="webhooks", ignore_result=True, acks_late=True)
def deliver_endpoint(endpoint_id: str) -> None:
    """The endpoint's due deliveries, one after another, while it has room and they succeed."""
    services.endpoint_drain(endpoint_id=endpoint_id)


@shared_task(queue="webhooks", ignore_result=True)
def sweep_deliveries() -> int:
    return services.deliveries_sweep()


@shared_task(queue="default", ignore_result=True)
def prune_logs() -> int:
    return services.logs_prune() + services.inbound_prune()


@shared_task(queue="default", ignore_result=True, autoretry_for=(Exception,), retry_backoff=2, max_retries=5)
def process_inbound(provider: str, event_id: str) -> None:
    """The effects of a verified inbound webhook (outside the request)."""
    from .inbound_effects import inbound_process

    inbound_process(provider=provider, event_id=event_id)


@shared_task(queue="default", ignore_result=True)
def sweep_inbound() -> int:
    """Apply recorded inbound webhooks whose task was lost."""
    from .inbound_effects import inbound_sweep

    return inbound_sweep()
