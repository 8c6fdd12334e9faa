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

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from apps.core import ids
from apps.core.db import relax_commit

from .models import Event, SubjectSequence
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


def _iso(moment: datetime.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def message(type: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event.message", "payload": {"type": type, "data": data, "sentAt": _iso(timezone.now())}}


#: an event's subject, the first of these ids it carries: its `sequence` counts that object's
#: events (a publication's events count with its content's, as both change the content's page)
SUBJECT_KEYS = (
    ("contentId", "content"),
    ("batchId", "batch"),
    ("profileId", "profile"),
    ("brandId", "brand"),
    ("webhookId", "webhook"),
)


def subject_of(data: dict[str, Any]) -> str:
    """`content:<hex>` for an event about content (see SUBJECT_KEYS), "" for none."""
    for key, kind in SUBJECT_KEYS:
        parsed = ids.parse(str(data[key])) if data.get(key) else None
        if parsed is not None:
            return f"{kind}:{parsed.hex}"
    return ""


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


def _lock_subjects(subjects: list[str]) -> dict[str, int]:
    """Lock each subject's sequence row, in subject order (two dispatches never wait on each
    other in a circle; only dispatches take these rows), creating the missing ones, and answer
    the last number sent. One statement: an upsert that leaves the number as it is."""
    if not subjects:
        return {}
    table = connection.ops.quote_name(SubjectSequence._meta.db_table)
    rows = ", ".join(["(%s, 0)"] * len(subjects))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (subject, last) VALUES {rows} "  # noqa: S608  (names are ours)
            f"ON CONFLICT (subject) DO UPDATE SET last = {table}.last RETURNING subject, last",
            subjects,
        )
        return {subject: int(last) for subject, last in cursor.fetchall()}


def events_dispatch(*, event_ids: Sequence[UUID | str], subjects: Iterable[str] | None = None) -> int:
    """Fan these events out, each exactly once and each subject's in order.

    One transaction locks the events' subjects (apps.events.models.SubjectSequence; `subjects`
    when the caller knows them, else read), claims the undispatched events asked for together
    with every undispatched earlier event of those subjects (a dispatch task still queued, a
    release by a failed send), numbers each subject's events from its last `sequence` and sends
    them in the order they were recorded before it commits: a later dispatch of the same
    subject waits for this one's send, so a socket receives one subject's events in the order
    they were committed and numbered. Subscribers (webhooks) write their rows with the claim. A
    failed send releases the claim (its numbers are not kept) so the sweep sends them again;
    the subscribers' rows stay."""
    if not event_ids:
        return 0
    if subjects is None:
        asked = Event.objects.filter(pk__in=event_ids, dispatched_at__isnull=True)
        subjects = {subject or subject_of(data) for subject, data in asked.values_list("subject", "data")}
    locked = sorted(set(subjects) - {""})
    now = timezone.now()
    failure: Exception | None = None
    with transaction.atomic():
        relax_commit()  # losing this marker in a crash only re-sends a notification
        last = _lock_subjects(locked)
        # an event of a subject not locked here waits for a dispatch that locks it (the sweep)
        wanted = (Q(pk__in=event_ids) & Q(subject__in=["", *locked])) | Q(subject__in=locked)
        events = list(
            Event.objects.select_for_update(skip_locked=True)
            .filter(wanted, dispatched_at__isnull=True)
            .order_by("created_at", "pk")
        )
        if not events:
            return 0
        Event.objects.filter(pk__in=[e.pk for e in events]).update(dispatched_at=now)
        # subscribers write their rows with the claim (webhook deliveries): a claimed event has them
        claimed = [(sub, sub.claimed(events)) for sub in subscribers()]
        sends = []
        numbered = dict(last)
        for event in events:
            data: dict[str, Any] = {"id": str(event.pk), **event.data}  # internal form: see catalog
            subject = event.subject or subject_of(event.data)
            if subject in numbered:
                numbered[subject] += 1
                data["sequence"] = numbered[subject]
            data["occurredAt"] = _iso(event.created_at)
            sent = message(event.type, data)
            sends += [(group, sent) for group in groups(event.organization_id, _subjects(event))]
        try:
            group_send_many(sends)
        except Exception as exc:
            # leave them to the sweep (their webhook deliveries stay: the webhook sweep sends them,
            # and a second claim creates none twice)
            failure = exc
            Event.objects.filter(pk__in=[e.pk for e in events]).update(dispatched_at=None)
        else:
            moved = [SubjectSequence(subject=k, last=v) for k, v in numbered.items() if v != last[k]]
            if moved:
                SubjectSequence.objects.bulk_update(moved, ["last"])
    for sub, result in claimed:
        if sub.sent is not None:
            sub.sent(result)
    if failure is not None:
        raise failure
    return len(events)


def events_dispatch_pending(*, older_than_seconds: float = 2.0, limit: int = 500) -> int:
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    ids_ = list(Event.objects.pending().filter(created_at__lte=cutoff).values_list("pk", flat=True)[:limit])
    try:
        return events_dispatch(event_ids=ids_)
    except Exception:
        logger.exception("Dispatch of %d pending event(s) failed; will retry", len(ids_))
        return 0
