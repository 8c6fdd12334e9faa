"""What happened to one claimed publication, recorded with the rest of its chunk, and the
contents that follow their publications."""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from collections.abc import Iterable
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.content import states
from apps.content.machine import transition
from apps.content.models import Content
from apps.core.db import relax_commit
from apps.core.links import public_url

from ..models import Publication
from ..platforms.base import (
    PlatformError,
    PublishResult,
)

MAX_ATTEMPTS = 6


# outcome, each with the fields that outcome has.


@dataclasses.dataclass
class _Published:
    outcome: ClassVar[Literal["published"]] = "published"
    pub: Publication
    result: PublishResult


@dataclasses.dataclass
class _Processing:
    """Accepted by the platform, still processing: the poller reads it again later."""

    outcome: ClassVar[Literal["processing"]] = "processing"
    pub: Publication
    result: PublishResult
    error: PlatformError | None = None
    #: wait at least this long before the next status read (the platform's Retry-After)
    retry_after: float = 0.0


@dataclasses.dataclass
class _Retry:
    outcome: ClassVar[Literal["retry"]] = "retry"
    pub: Publication
    error: PlatformError
    keep_unknown: bool = False


@dataclasses.dataclass
class _Failed:
    outcome: ClassVar[Literal["failed"]] = "failed"
    pub: Publication
    error: PlatformError


@dataclasses.dataclass
class _Unknown:
    outcome: ClassVar[Literal["unknown"]] = "unknown"
    pub: Publication
    error: PlatformError


_Attempt: TypeAlias = _Published | _Processing | _Retry | _Failed | _Unknown


class _Flushes(Protocol):
    """What `events.services.dispatch_deferred` yields: committed events sent now."""

    def flush(self) -> None: ...


def _record(attempts: list[_Attempt], *, from_status: str = Publication.PUBLISHING) -> list[Publication]:
    """Every result of the chunk in one transaction, then the contents follow."""
    if not attempts:
        return []
    now = timezone.now()
    with transaction.atomic():
        # No need to wait for the flush: the claim durably recorded `outcome_unknown`, so if a
        # server crash lost this commit the next attempt would reconcile with the platform.
        relax_commit()
        finished = sorted({a.pub.content_id for a in attempts if a.outcome not in ("retry", "processing")})
        if finished:  # the global lock order: contents (by pk) before their publications
            list(
                Content.objects.select_for_update()
                .filter(pk__in=finished)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
        for a in attempts:
            pub = a.pub
            updates = _updates_for(a, now)
            # only while this chunk still holds it: past the lease, the sweep may have given
            # the row to another worker, whose own record counts
            recorded = Publication.objects.filter(pk=pub.pk, status=from_status, claim=pub.claim).update(
                **updates, updated_at=now
            )
            for field, value in updates.items():
                setattr(pub, field, value)
            pub.updated_at = now
            still = a.outcome == "processing" and from_status == Publication.PROCESSING
            if recorded and a.outcome != "retry" and not still:
                _publication_updated(pub)
        if finished:
            _sync_contents(finished)
    return [a.pub for a in attempts]


def _updates_for(a: _Attempt, now: datetime.datetime) -> dict[str, Any]:
    pub = a.pub
    if isinstance(a, _Published):
        return {
            "status": Publication.PUBLISHED,
            "external_id": a.result.external_id,
            "url": a.result.url,
            "published_at": now,
            "outcome_unknown": False,
            "lease_until": None,
            "last_error": "",
            "error_code": "",
            "first_comment_error": _first_comment_error(a.result),
            "visibility": a.result.visibility[:40],
        }
    if isinstance(a, _Processing):
        # The platform answered: the post exists (or will), so it is never posted again.
        state = dict(a.result.state)
        state.setdefault("since", now.isoformat())
        polls = int(state.get("polls", -1)) + 1
        state["polls"] = polls
        delays = settings.PUBLISH_PROCESSING_POLL_DELAYS
        delay = max(float(delays[min(polls, len(delays) - 1)]), float(a.retry_after or 0))
        return {
            "status": Publication.PROCESSING,
            "platform_state": state,
            "outcome_unknown": False,
            "lease_until": None,
            "due_at": now + datetime.timedelta(seconds=delay),
            "last_error": a.error.message[:2000] if a.error else "",
            "error_code": str(a.error.code or "")[:100] if a.error else "",
        }
    if isinstance(a, _Unknown):
        # outcome_unknown stays set: whoever resolves it knows the post may exist
        return {
            "status": Publication.UNKNOWN,
            "last_error": a.error.message[:2000],
            "error_code": str(a.error.code or "outcome_unknown")[:100],
            "lease_until": None,
        }
    if isinstance(a, _Retry):
        backoff = min(3600, 15 * 2 ** max(0, pub.attempts - 1))
        delay = max(backoff, int(a.error.retry_after or 0))
        updates: dict[str, Any] = {
            "status": Publication.SCHEDULED,
            "due_at": now + datetime.timedelta(seconds=delay),
            "lease_until": None,
            "last_error": a.error.message[:2000],
            "error_code": str(a.error.code or "")[:100],
        }
        if a.error.resume:  # what the next attempt picks up (an uploaded video still processing)
            updates["platform_state"] = {**(pub.platform_state or {}), "resume": a.error.resume}
        if not a.keep_unknown:
            updates["outcome_unknown"] = False  # the platform answered: nothing was posted
        return updates
    return {
        "status": Publication.FAILED,
        "last_error": a.error.message[:2000],
        "error_code": str(a.error.code or "")[:100],
        "outcome_unknown": False,
        "lease_until": None,
    }


def _first_comment_error(result: PublishResult) -> str:
    """The platform's reason when the post went out but its first comment did not."""
    step = (result.raw or {}).get("first_comment")
    if isinstance(step, dict) and step.get("error"):
        return str(step["error"])[:2000]
    return ""


def _publication_updated(pub: Publication) -> None:
    """`publication.updated` when a publication ends (published or failed), in the caller's
    transaction: its status, post id and URL, and why a first comment is missing."""
    from apps.events.services import event_record

    event_record(
        organization=pub.organization_id,
        type="publication.updated",
        data={
            "publicationId": str(pub.pk),
            "contentId": str(pub.content_id),
            "profileId": str(pub.profile_id),
            "platform": pub.platform or pub.profile.platform,
            "status": pub.status,
            "externalId": pub.external_id or None,
            "url": public_url(pub.url),
            "lastError": pub.last_error or None,
            "firstCommentError": pub.first_comment_error or None,
            "visibility": pub.visibility or None,
            "sandbox": pub.profile.sandbox,
        },
    )
    if pub.status == Publication.FAILED:
        event_record(
            organization=pub.organization_id,
            type="publication.failed",
            data={
                "publicationId": str(pub.pk),
                "contentId": str(pub.content_id),
                "profileId": str(pub.profile_id),
                "platform": pub.platform or pub.profile.platform,
                "error": pub.last_error or None,
                "errorCode": pub.error_code or None,
                "sandbox": pub.profile.sandbox,
            },
        )


def _sync_contents(content_ids: Iterable[uuid.UUID]) -> None:
    """Each content's status follows its publications (caller holds a transaction): locked
    in a fixed order, their publications read in one query."""
    contents = list(Content.objects.select_for_update().filter(pk__in=content_ids).order_by("pk"))
    statuses: dict[uuid.UUID, list[tuple[str, datetime.datetime | None, str]]] = {}
    for content_id, status, published_at, last_error in (
        Publication.objects.filter(content_id__in=content_ids)
        .exclude(status=Publication.CANCELLED)
        .values_list("content_id", "status", "published_at", "last_error")
    ):
        statuses.setdefault(content_id, []).append((status, published_at, last_error))
    for content in contents:
        rows = statuses.get(content.pk, [])
        if not rows or any(s in Publication.OPEN_STATUSES for s, _, _ in rows):
            continue
        if content.status in (states.APPROVED, states.SCHEDULED, states.REVIEW):
            transition(content, "publish")
        published = [at for s, at, _ in rows if s == Publication.PUBLISHED]
        reasons = "; ".join(sorted({e for s, _, e in rows if e}))
        if published and content.status == states.PUBLISHING:
            # saved with the status by transition()
            content.published_at = min((at for at in published if at is not None), default=None)
            transition(content, "published", event="content.published")
        elif not published and content.status == states.PUBLISHING:
            transition(content, "fail", event="content.failed", reason=f"Publishing failed: {reasons}")
        elif not published and content.status == states.PUBLISHED:  # a platform took its only post back
            transition(content, "unpublish", event="content.failed", reason=f"Publishing failed: {reasons}")
