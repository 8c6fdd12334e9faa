from celery import shared_task

from . import dispatch


@shared_task(queue="default", ignore_result=True, autoretry_for=(Exception,), retry_backoff=2, max_retries=5)
def dispatch_event(event_id: str) -> None:
    dispatch.event_dispatch(event_id=event_id)


@shared_task(queue="default", ignore_result=True, autoretry_for=(Exception,), retry_backoff=2, max_retries=5)
def dispatch_event_batch(event_ids: list[str]) -> None:
    dispatch.events_dispatch(event_ids=event_ids)


@shared_task(queue="default", ignore_result=True)
def dispatch_events() -> int:
    return dispatch.events_dispatch_pending()
