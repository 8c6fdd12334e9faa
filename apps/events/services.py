"""Record events (outbox) and fan them out.

``event_record`` is called by services inside their transaction. After commit, a
dispatch task fans the event out; the beat task `dispatch_events` sweeps anything a
crashed process left behind, so no committed event is lost.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence

from django.db import transaction

from . import catalog
from .dispatch import (  # noqa: F401  (the dispatch side, named here for callers)
    event_dispatch,
    events_dispatch,
    events_dispatch_pending,
    groups,
    message,
    org_group,
    subject_group,
    subject_of,
)
from .models import Event
from .realtime import group_send_many
from .tasks import dispatch_event_batch

logger = logging.getLogger(__name__)


class _DispatchBuffer:
    """The events one transaction recorded: dispatched together after its commit."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.subjects: set[str] = set()

    def flush(self) -> None:
        deferred = getattr(_deferral, "ids", None)
        if deferred is not None:  # inside `dispatch_deferred()`: the block's end sends them
            deferred.extend(self.ids, self.subjects)
            return
        try:
            dispatch_event_batch.delay(self.ids, sorted(self.subjects))
        except Exception:  # the broker is down: the beat sweep delivers them later
            logger.warning(
                "Could not enqueue dispatch of %d event(s); the sweep will pick them up", len(self.ids)
            )


_deferral = threading.local()


class _Deferred:
    def __init__(self) -> None:
        self.ids: list[str] = []
        self.subjects: set[str] = set()

    def extend(self, ids: list[str], subjects: set[str]) -> None:
        self.ids.extend(ids)
        self.subjects |= subjects

    def flush(self) -> None:
        pending, self.ids = self.ids, []
        subjects, self.subjects = self.subjects, set()
        if pending:
            try:
                events_dispatch(event_ids=pending, subjects=subjects)
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
    catalog.require(type)  # a type the AsyncAPI documents do not describe is a programming error
    org_id = getattr(organization, "pk", organization)
    subject = subject_of(data)
    event = Event.objects.create(organization_id=org_id, type=type, data=data, subject=subject)
    connection = transaction.get_connection()
    pending = [
        f for _, f, _ in connection.run_on_commit if getattr(f, "__self__", None).__class__ is _DispatchBuffer
    ]
    if pending and connection.in_atomic_block:
        buffer = pending[-1].__self__
    else:
        buffer = _DispatchBuffer()
        transaction.on_commit(buffer.flush)
    buffer.ids.append(str(event.pk))
    buffer.subjects.add(subject)
    return event


def broadcast(*, organization_id, type: str, data: dict, subjects: Sequence[tuple[str, str]] = ()) -> None:
    """Send a real-time-only message (e.g. progress) to the org group and subject groups."""
    catalog.require(type)
    sent = message(type, data)
    group_send_many([(group, sent) for group in groups(organization_id, subjects)])
