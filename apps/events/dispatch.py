"""Fan recorded events out: claim them, send them to their websocket groups, hand them to the
outbox's subscribers.

Subscribers are the apps above events that act on every event (webhooks writes its deliveries
with the claim and kicks them after the send); they register in their AppConfig.ready, so
events imports none of them.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from apps.core import ids
from apps.core.db import relax_commit

from .models import Event
from .realtime import group_send_many

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Subscriber:
    """`claimed(events)` runs inside the claiming transaction (its rows commit with the claim);
    `sent(result)` runs after the fan-out with what `claimed` returned."""

    name: str
    claimed: Callable[[list[Event]], Any]
    sent: Callable[[Any], None] | None = None


_subscribers: dict[str, Subscriber] = {}


def subscribe(subscriber: Subscriber) -> None:
    """Register (or replace, by name) an outbox subscriber."""
    _subscribers[subscriber.name] = subscriber


def subscribers() -> list[Subscriber]:
    return list(_subscribers.values())


def _hex(object_id: object) -> str:
    parsed = ids.parse(str(object_id))
    if parsed is None:
        raise ValueError(f"not an id: {object_id!r}")
    return parsed.hex


def org_group(organization_id: object) -> str:
    return f"org.{_hex(organization_id)}"


def subject_group(kind: str, object_id: object) -> str:
    return f"{kind}.{_hex(object_id)}"


def message(type: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "event.message",
        "payload": {"type": type, "data": data, "sentAt": timezone.now().isoformat().replace("+00:00", "Z")},
    }


def groups(organization_id: object, subjects: Iterable[tuple[str, str]]) -> list[str]:
    return [org_group(organization_id)] + [subject_group(k, v) for k, v in subjects]


def _subjects(event: Event) -> list[tuple[str, str]]:
    return [
        (kind, event.data[key])
        for key, kind in (("contentId", "content"), ("batchId", "batch"))
        if event.data.get(key)
    ]


def event_dispatch(*, event_id: UUID | str) -> bool:
    """Fan one event out exactly once (claimed by a conditional update)."""
    return events_dispatch(event_ids=[event_id]) == 1


def events_dispatch(*, event_ids: Sequence[UUID | str]) -> int:
    """Fan these events out, each exactly once: claim the undispatched ones in one
    statement, send all their messages in one round, then to the subscribers (webhooks). A failed
    send releases the claim so the sweep sends them again."""
    if not event_ids:
        return 0
    now = timezone.now()
    with transaction.atomic():
        relax_commit()  # losing this marker in a crash only re-sends a notification
        events = list(
            Event.objects.select_for_update(skip_locked=True)
            .filter(pk__in=event_ids, dispatched_at__isnull=True)
            .order_by("created_at")
        )
        if not events:
            return 0
        Event.objects.filter(pk__in=[e.pk for e in events]).update(dispatched_at=now)
        # subscribers write their rows with the claim (webhook deliveries): a claimed event has them
        claimed = [(sub, sub.claimed(events)) for sub in subscribers()]
    try:
        sends = []
        for event in events:
            sent = message(event.type, {"id": str(event.pk), **event.data})  # internal form: see catalog
            sends += [(group, sent) for group in groups(event.organization_id, _subjects(event))]
        group_send_many(sends)
    except Exception:
        # leave them to the sweep (their webhook deliveries stay: the webhook sweep sends them,
        # and a second claim creates none twice)
        Event.objects.filter(pk__in=[e.pk for e in events]).update(dispatched_at=None)
        raise
    for sub, result in claimed:
        if sub.sent is not None:
            sub.sent(result)
    return len(events)


def events_dispatch_pending(*, older_than_seconds: float = 2.0, limit: int = 500) -> int:
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    ids_ = list(Event.objects.pending().filter(created_at__lte=cutoff).values_list("pk", flat=True)[:limit])
    try:
        return events_dispatch(event_ids=ids_)
    except Exception:
        logger.exception("Dispatch of %d pending event(s) failed; will retry", len(ids_))
        return 0
