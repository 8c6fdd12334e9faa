"""Record events (outbox) and fan them out.

``event_record`` is called by services inside their transaction. After commit, a
dispatch task fans the event out; the beat task `dispatch_events` sweeps anything a
crashed process left behind, so no committed event is lost.
"""

from __future__ import annotations

import datetime
import logging

from asgiref.sync import async_to_sync
from django.db import connection, transaction
from django.utils import timezone

from apps.core import ids

from .models import Event

logger = logging.getLogger(__name__)


def org_group(organization_id) -> str:
    return f"org.{ids.parse(str(organization_id)).hex}"


def subject_group(kind: str, object_id) -> str:
    return f"{kind}.{ids.parse(str(object_id)).hex}"


class _DispatchBuffer:
    """The events one transaction recorded: dispatched by one task after its commit."""

    def __init__(self):
        self.ids: list[str] = []

    def flush(self) -> None:
        from .tasks import dispatch_event_batch

        try:
            dispatch_event_batch.delay(self.ids)
        except Exception:  # the broker is down: the beat sweep delivers them later
            logger.warning("Could not enqueue dispatch of %d event(s); the sweep will pick them up", len(self.ids))


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


def message_for(event: Event) -> dict:
    return {
        "type": event.type,
        "data": {"id": ids.render(event.pk, "event"), **event.data},
        "sentAt": timezone.now().isoformat().replace("+00:00", "Z"),
    }


def broadcast(*, organization_id, type: str, data: dict, subjects: list[tuple[str, str]] = ()) -> None:
    """Send a real-time-only message (e.g. progress) to the org group and subject groups."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return
    message = {
        "type": "event.message",
        "payload": {"type": type, "data": data, "sentAt": timezone.now().isoformat().replace("+00:00", "Z")},
    }
    groups = [org_group(organization_id)] + [subject_group(k, v) for k, v in subjects]
    for group in groups:
        async_to_sync(layer.group_send)(group, message)


def event_dispatch(*, event_id) -> bool:
    """Fan one event out exactly once (claimed by a conditional update)."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            # Losing this marker in a crash only re-sends a notification; no need to wait for fsync.
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
        claimed = Event.objects.filter(pk=event_id, dispatched_at__isnull=True).update(dispatched_at=timezone.now())
    if not claimed:
        return False
    event = Event.objects.get(pk=event_id)
    subjects = []
    for key, kind in (("contentId", "content"), ("batchId", "batch")):
        if event.data.get(key):
            subjects.append((kind, event.data[key]))
    try:
        broadcast(organization_id=event.organization_id, type=event.type, data=message_for(event)["data"], subjects=subjects)
    except Exception:
        # Leave it for the sweep rather than lose it.
        Event.objects.filter(pk=event_id).update(dispatched_at=None)
        raise
    try:
        from apps.webhooks.services import deliveries_create_for_event
    except ImportError:
        return True
    deliveries_create_for_event(event=event)
    return True


def events_dispatch_pending(*, older_than_seconds: float = 2.0, limit: int = 500) -> int:
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    ids_ = list(Event.objects.pending().filter(created_at__lte=cutoff).values_list("pk", flat=True)[:limit])
    done = 0
    for event_id in ids_:
        try:
            done += event_dispatch(event_id=event_id)
        except Exception:
            logger.exception("Dispatch of event %s failed; will retry", event_id)
    return done
