"""Record events (outbox) and fan them out.

``event_record`` is called by services inside their transaction. After commit, a
dispatch task fans the event out; the beat task `dispatch_events` sweeps anything a
crashed process left behind, so no committed event is lost.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import threading

from django.db import transaction
from django.utils import timezone

from apps.core import ids
from apps.core.db import relax_commit

from .models import Event
from .realtime import group_send_many

logger = logging.getLogger(__name__)


def org_group(organization_id) -> str:
    return f"org.{ids.parse(str(organization_id)).hex}"


def subject_group(kind: str, object_id) -> str:
    return f"{kind}.{ids.parse(str(object_id)).hex}"


class _DispatchBuffer:
    """The events one transaction recorded: dispatched together after its commit."""

    def __init__(self):
        self.ids: list[str] = []

    def flush(self) -> None:
        deferred = getattr(_deferral, "ids", None)
        if deferred is not None:  # inside `dispatch_deferred()`: the block's end sends them
            deferred.extend(self.ids)
            return
        from .tasks import dispatch_event_batch

        try:
            dispatch_event_batch.delay(self.ids)
        except Exception:  # the broker is down: the beat sweep delivers them later
            logger.warning("Could not enqueue dispatch of %d event(s); the sweep will pick them up", len(self.ids))


_deferral = threading.local()


class _Deferred:
    def __init__(self):
        self.ids: list[str] = []

    def extend(self, ids) -> None:
        self.ids.extend(ids)

    def flush(self) -> None:
        pending, self.ids = self.ids, []
        if pending:
            try:
                events_dispatch(event_ids=pending)
            except Exception:
                logger.exception("Dispatch of %d event(s) failed; the sweep will retry", len(pending))


@contextlib.contextmanager
def dispatch_deferred():
    """Within this block (a worker task), committed events are not handed to a dispatch
    task: they are fanned out in one batch when the block ends, or when the caller calls
    `flush()` on what this yields. A crash before that leaves them undispatched in the
    outbox, where the beat sweep finds them."""
    outer = getattr(_deferral, "ids", None)
    if outer is not None:  # nested: the outer block sends
        yield outer
        return
    deferred = _deferral.ids = _Deferred()
    try:
        yield deferred
    finally:
        _deferral.ids = None
        deferred.flush()


def event_record(*, organization, type: str, data: dict) -> Event:
    """Record an event in the caller's transaction (the outbox); after commit, one task per
    transaction fans that transaction's events out. Nothing is lost if that task is: the
    beat sweep dispatches whatever is left undispatched."""
    org_id = getattr(organization, "pk", organization)
    event = Event.objects.create(organization_id=org_id, type=type, data=data)
    connection = transaction.get_connection()
    pending = [f for _, f, _ in connection.run_on_commit if getattr(f, "__self__", None).__class__ is _DispatchBuffer]
    if pending and connection.in_atomic_block:
        pending[-1].__self__.ids.append(str(event.pk))
    else:
        buffer = _DispatchBuffer()
        buffer.ids.append(str(event.pk))
        transaction.on_commit(buffer.flush)
    return event


def _message(type: str, data: dict) -> dict:
    return {"type": "event.message",
            "payload": {"type": type, "data": data, "sentAt": timezone.now().isoformat().replace("+00:00", "Z")}}


def _groups(organization_id, subjects) -> list[str]:
    return [org_group(organization_id)] + [subject_group(k, v) for k, v in subjects]


def broadcast(*, organization_id, type: str, data: dict, subjects: list[tuple[str, str]] = ()) -> None:
    """Send a real-time-only message (e.g. progress) to the org group and subject groups."""
    message = _message(type, data)
    group_send_many([(group, message) for group in _groups(organization_id, subjects)])


def _subjects(event: Event) -> list[tuple[str, str]]:
    return [(kind, event.data[key]) for key, kind in (("contentId", "content"), ("batchId", "batch")) if event.data.get(key)]


def event_dispatch(*, event_id) -> bool:
    """Fan one event out exactly once (claimed by a conditional update)."""
    return events_dispatch(event_ids=[event_id]) == 1


def events_dispatch(*, event_ids) -> int:
    """Fan these events out, each exactly once: claim the undispatched ones in one
    statement, send all their messages in one round, then hand them to webhooks. A failed
    send releases the claim so the sweep sends them again."""
    if not event_ids:
        return 0
    now = timezone.now()
    with transaction.atomic():
        relax_commit()  # losing this marker in a crash only re-sends a notification
        events = list(Event.objects.select_for_update(skip_locked=True)
                      .filter(pk__in=event_ids, dispatched_at__isnull=True).order_by("created_at"))
        if not events:
            return 0
        Event.objects.filter(pk__in=[e.pk for e in events]).update(dispatched_at=now)
        # the webhook deliveries are rows written with the claim: a claimed event has them
        from apps.webhooks.services import deliveries_create_for_events

        delivery_ids = deliveries_create_for_events(events=events)
    try:
        sends = []
        for event in events:
            message = _message(event.type, {"id": ids.render(event.pk, "event"), **event.data})
            sends += [(group, message) for group in _groups(event.organization_id, _subjects(event))]
        group_send_many(sends)
    except Exception:
        # leave them to the sweep (their webhook deliveries stay: the webhook sweep sends them,
        # and a second claim creates none twice)
        Event.objects.filter(pk__in=[e.pk for e in events]).update(dispatched_at=None)
        raise
    if delivery_ids:
        from apps.webhooks.services import deliveries_kick

        deliveries_kick(delivery_ids=delivery_ids)
    return len(events)


def events_dispatch_pending(*, older_than_seconds: float = 2.0, limit: int = 500) -> int:
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    ids_ = list(Event.objects.pending().filter(created_at__lte=cutoff).values_list("pk", flat=True)[:limit])
    try:
        return events_dispatch(event_ids=ids_)
    except Exception:
        logger.exception("Dispatch of %d pending event(s) failed; will retry", len(ids_))
        return 0
