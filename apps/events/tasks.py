"""Fan-out tasks: one dispatch call each. A transient failure (the database or Redis away for
a moment) is retried with backoff; anything else is a bug and fails at once. Either way the
claim is released, and the beat sweep (`dispatch_events`) sends what is left."""

from asyncio import TimeoutError as AsyncTimeout

import redis
from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from apps.core.tasking import DefaultTask

from . import dispatch

#: the errors worth another try: the database or the channel layer's Redis was unreachable or slow
TRANSIENT = (
    OperationalError,
    InterfaceError,
    redis.ConnectionError,
    redis.TimeoutError,
    AsyncTimeout,
    ConnectionError,
)


class DispatchTask(DefaultTask):
    autoretry_for = TRANSIENT
    retry_backoff = 2
    max_retries = settings.EVENTS_DISPATCH_MAX_RETRIES


@shared_task(base=DispatchTask)
def dispatch_event(event_id: str) -> None:
    dispatch.event_dispatch(event_id=event_id)


@shared_task(base=DispatchTask)
def dispatch_event_batch(event_ids: list[str], subjects: list[str] | None = None) -> None:
    dispatch.events_dispatch(event_ids=event_ids, subjects=subjects)


@shared_task(base=DefaultTask)
def dispatch_events() -> int:
    return dispatch.events_dispatch_pending()
