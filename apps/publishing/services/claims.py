"""Dispatch and claims: due rows claimed under SELECT ... FOR UPDATE SKIP LOCKED, queued,
enqueued on commit; leases, the platform's concurrency cap, and the sweep of lost rows."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from apps.content import states
from apps.content.machine import transition
from apps.content.models import Content
from apps.core.tasking import task_named

from ..models import Publication

# --- dispatch and the publish task ---------------------------------------------------------


def dispatch_due(*, now: datetime.datetime | None = None, limit: int | None = None) -> int:
    """Claim due rows (skip those another dispatcher holds), mark them queued, enqueue one task each.

    At most PUBLISH_MAX_QUEUED rows wait in the broker at a time: a backlog stays in the
    database (where the sweep can tell a lost task from a long queue), not in Redis."""
    now = now or timezone.now()
    room = settings.PUBLISH_MAX_QUEUED - Publication.objects.filter(status=Publication.QUEUED).count()
    limit = min(limit or room, room)
    if limit <= 0:
        return 0
    with transaction.atomic():
        ids = list(
            Publication.objects.select_for_update(skip_locked=True)
            .due(now)
            .order_by("due_at")
            .values_list("pk", flat=True)[:limit]
        )
        if not ids:
            return 0
        Publication.objects.filter(pk__in=ids).update(status=Publication.QUEUED, queued_at=now)
        transaction.on_commit(lambda: _enqueue(ids))
    return len(ids)


def _enqueue(ids: Sequence[uuid.UUID]) -> None:
    """One task per chunk of PUBLISH_TASK_CHUNK claimed rows (each row keeps its own claim,
    lease and outcome inside the task): the broker round trip and task start are paid once a
    chunk instead of once a row."""
    publish_publications = task_named("apps.publishing.tasks.publish_publications")
    size = max(1, settings.PUBLISH_TASK_CHUNK)
    for start in range(0, len(ids), size):
        publish_publications.delay([str(pk) for pk in ids[start : start + size]])


def sweep(*, now: datetime.datetime | None = None) -> int:
    """Re-enqueue queued rows whose task was lost and publishing rows whose lease expired
    (their worker died): the task reconciles before it retries."""
    now = now or timezone.now()
    stuck_queued = now - datetime.timedelta(seconds=settings.PUBLISH_QUEUED_STUCK_SECONDS)
    with transaction.atomic():
        queued = list(
            Publication.objects.select_for_update(skip_locked=True)
            .filter(status=Publication.QUEUED, queued_at__lt=stuck_queued)
            .values_list("pk", flat=True)[:500]
        )
        expired = list(
            Publication.objects.select_for_update(skip_locked=True)
            .filter(status=Publication.PUBLISHING, lease_until__lt=now)
            .values_list("pk", flat=True)[:500]
        )
        ids = queued + expired
        if not ids:
            return 0
        Publication.objects.filter(pk__in=ids).update(
            status=Publication.QUEUED, queued_at=now, lease_until=None
        )
        transaction.on_commit(lambda: _enqueue(ids))
    return len(ids)


# What happened to one claimed publication, recorded with the rest of its chunk: one class per
def _lease_renewer(claim: uuid.UUID | None) -> Callable[[], None]:
    """The chunk's rows still publishing keep their lease while it runs (a dead worker's
    rows expire within PUBLISH_LEASE_SECONDS and the sweep reconciles them)."""

    def renew() -> None:
        Publication.objects.filter(claim=claim, status=Publication.PUBLISHING).update(
            lease_until=timezone.now() + datetime.timedelta(seconds=settings.PUBLISH_LEASE_SECONDS)
        )

    return renew


def _claim_many(publication_ids: Sequence[uuid.UUID | str]) -> list[tuple[Publication, bool]]:
    """queued -> publishing with a lease, for the rows of the chunk still queued (another
    worker may have taken some). Returns (row, must_reconcile) in chunk order."""
    now = timezone.now()
    with transaction.atomic():
        # Lock in the one global order every writer uses: contents first (by pk), then their
        # publications. Publish-now and schedule lock the content and then its publications;
        # locking a publication before its content here deadlocked against them (issue 9).
        # The joined profile and brand rows stay unlocked: that would serialize every worker
        # publishing for the same brand.
        list(
            Content.objects.select_for_update()
            .filter(pk__in=Publication.objects.filter(pk__in=list(publication_ids)).values("content_id"))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        pubs = list(
            Publication.objects.select_for_update(of=("self",))
            .select_related("profile", "content", "content__brand")
            .filter(pk__in=list(publication_ids), status=Publication.QUEUED)
            .order_by("content_id", "pk")
        )
        if not pubs:
            return []
        pubs = _within_caps(pubs, now)
        if not pubs:
            return []
        reconcile = {pub.pk: pub.outcome_unknown for pub in pubs}
        # the last row of a chunk starts at most PUBLISH_CHUNK_SECONDS after the claim, and one
        # call (uploads, processing polls) must end within PUBLISH_LEASE_SECONDS
        lease = now + datetime.timedelta(
            seconds=settings.PUBLISH_CHUNK_SECONDS + settings.PUBLISH_LEASE_SECONDS
        )
        claim = uuid.uuid4()
        # From this commit on each outcome counts as unknown until its result is recorded.
        Publication.objects.filter(pk__in=[p.pk for p in pubs]).update(
            status=Publication.PUBLISHING,
            lease_until=lease,
            attempts=F("attempts") + 1,
            outcome_unknown=True,
            claim=claim,
            updated_at=now,
        )
        started = set()
        for pub in pubs:
            pub.status, pub.lease_until, pub.attempts, pub.outcome_unknown = (
                Publication.PUBLISHING,
                lease,
                pub.attempts + 1,
                True,
            )
            pub.claim = claim
            if pub.content_id not in started and pub.content.status in (
                states.REVIEW,
                states.APPROVED,
                states.SCHEDULED,
            ):
                transition(pub.content, "publish", event="content.publishing")
            started.add(pub.content_id)
    order = {str(pk): i for i, pk in enumerate(publication_ids)}
    pubs.sort(key=lambda p: order.get(str(p.pk), 0))
    return [(pub, reconcile[pub.pk]) for pub in pubs]


def _within_caps(pubs: list[Publication], now: datetime.datetime) -> list[Publication]:
    """The platform's concurrency cap, counted in chunks holding leases (a chunk calls the
    platform one row at a time): a platform at its cap gets its rows back to `scheduled`
    for a moment."""
    platforms = {p.platform for p in pubs}
    busy = dict(
        Publication.objects.filter(
            status=Publication.PUBLISHING, platform__in=platforms, lease_until__gte=now
        )
        .values_list("platform")
        .annotate(n=Count("claim", distinct=True))
        .order_by()
    )
    keep, later = [], []
    for pub in pubs:
        cap = settings.PUBLISH_CONCURRENCY.get(pub.platform, settings.PUBLISH_CONCURRENCY_DEFAULT)
        if busy.get(pub.platform, 0) >= cap:
            later.append(pub.pk)
        else:
            keep.append(pub)
    if later:
        Publication.objects.filter(pk__in=later).update(
            status=Publication.SCHEDULED, due_at=now + datetime.timedelta(seconds=2), updated_at=now
        )
    return keep


def _hand_back(rest: list[tuple[Publication, bool]]) -> None:
    """Claimed rows the chunk never started: back to queued as they were, as a new task."""
    now = timezone.now()
    with transaction.atomic():
        for unknown in (True, False):
            ids = [pub.pk for pub, was_unknown in rest if was_unknown is unknown]
            if ids:
                Publication.objects.filter(
                    pk__in=ids, status=Publication.PUBLISHING, claim=rest[0][0].claim
                ).update(
                    status=Publication.QUEUED,
                    queued_at=now,
                    lease_until=None,
                    outcome_unknown=unknown,
                    attempts=F("attempts") - 1,
                    updated_at=now,
                )
        ids = [pub.pk for pub, _ in rest]
        transaction.on_commit(lambda: _enqueue(ids))
