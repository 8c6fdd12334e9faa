"""Scheduling and publishing, exactly once.

- `publications_schedule` / `publications_publish_now` create one Publication per
  (content, profile) after checking approval, time, time zone and platform.
- `dispatch_due` (beat, every few seconds) claims due rows with SELECT ... FOR UPDATE SKIP
  LOCKED, marks them `queued` and enqueues one task each on commit. No ETA tasks.
- `publication_run` (the task) claims its row, skips one already published, takes a
  lease, reconciles an unknown outcome with the platform before anything else, commits
  `outcome_unknown=True` before the irreversible call, and records the result in one
  transaction. Retryable errors go back to `scheduled` with backoff (honouring
  Retry-After); permanent ones fail at once with the platform's message.
- `sweep` re-enqueues rows a lost task or a dead worker left behind.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import time
import uuid
import zoneinfo
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeAlias, TypedDict

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Min, Q
from django.db.models.fields.files import FieldFile
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.content import states
from apps.content.machine import ensure_allowed, transition
from apps.content.models import Content, Variant
from apps.content.selectors import current_media, current_media_for
from apps.core.db import relax_commit
from apps.core.errors import InvalidSubject, InvalidTransition, PlatformFailure, RuleViolation
from apps.core.filters import as_utc
from apps.core.heartbeat import Heartbeat
from apps.core.links import public_url
from apps.core.storage import absolute_url
from apps.core.tasking import task_named
from apps.events.services import event_record
from apps.profiles.models import SocialProfile
from apps.profiles.services import schedule_slots, validate_timezone

from .models import Publication
from .platforms.base import (
    MediaItem,
    OutcomeUnknown,
    PlatformClient,
    PlatformError,
    PostRequest,
    PublishResult,
)
from .post_urls import post_link_parse

if TYPE_CHECKING:
    from apps.media.models import MediaAsset

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 6


# --- clients --------------------------------------------------------------------------------


def client_for(profile: SocialProfile) -> PlatformClient:
    """The sandbox publisher, or the platform's real client with the decrypted token."""
    from .oauth_backends import is_real, platform_client
    from .platforms.sandbox import SandboxClient

    if profile.sandbox or not is_real(profile.platform):
        return SandboxClient(profile=profile)
    from .crypto import decrypt

    return platform_client(
        profile.platform, access_token=decrypt(profile.access_token_enc), account_id=profile.external_id
    )


def post_request_for(publication: Publication, context: _ChunkContext | None = None) -> PostRequest:
    """What to post; `context` holds the chunk's variants and media (read once per chunk)."""
    from apps.platforms.captions import compose_caption

    content = publication.content
    if context is not None:
        variant = context["variants"].get((content.pk, publication.profile.platform))
        assets = context["media"].get(content.pk, [])
    else:
        variant = content.variants.filter(platform=publication.profile.platform).first()
        assets = current_media(content)
    if variant is None:
        raise PlatformError(f"The content has no {publication.profile.platform} variant.", code="no_variant")
    media = []
    for asset in assets:
        storage_file = asset.file

        def loader(f: FieldFile = storage_file) -> bytes:
            with f.open("rb") as fh:
                data: bytes = fh.read()
            return data

        media.append(
            MediaItem(
                kind="video" if asset.media_type == "video" else "image",
                url=absolute_url(None, asset.file) or "",
                content_type=asset.content_type,
                width=asset.width or 0,
                height=asset.height or 0,
                seconds=asset.duration,
                alt_text=variant.alt_text,
                loader=loader,
                thumbnail_url=absolute_url(None, asset.thumbnail) or "",
                generated=asset.kind == "generated",
            )
        )
    first_comment = publication.options.get("firstComment") or variant.first_comment
    return PostRequest(
        caption=compose_caption(variant.caption, variant.hashtags),
        media=media,
        post_type=content.post_type,
        title=variant.title,
        first_comment=first_comment,
        sounds=list(variant.sounds),
        privacy=publication.profile.settings.get("defaultVisibility", "public"),
        reference=str(publication.pk),
        options=dict(publication.options),
    )


# --- validation shared by both families ---------------------------------------------------


def _check_publishable(content: Content) -> None:
    """The content's own rule (content.machine.ensure_allowed); content already scheduled or
    publishing may take more profiles."""
    if content.status not in (states.SCHEDULED, states.PUBLISHING):
        ensure_allowed(content, "publish")


def _check_profiles(content: Content, profiles: list[SocialProfile]) -> None:
    if not profiles:
        raise InvalidSubject("Give at least one profile.", "profile", "At least one profile is required.")
    wrong = [p for p in profiles if p.platform not in content.platforms]
    if wrong:
        raise InvalidSubject(
            "A profile's platform is not among the platforms this content was generated for.",
            "profile",
            [
                f"{p.username} is on {p.platform}; content platforms: {', '.join(content.platforms)}."
                for p in wrong
            ],
        )
    disconnected = [p for p in profiles if not p.connected or p.token_status != "valid"]
    if disconnected:
        raise RuleViolation(
            "A profile needs to be reconnected before it can publish.",
            problems={"profile": [f"{p.username}: {p.token_status}" for p in disconnected]},
        )


def parse_when(raw: object, tz_name: str | None) -> datetime.datetime:
    """ISO 8601; a time without offset is read in `tz_name` (the request's or profile's zone)."""
    invalid = InvalidSubject(
        "scheduledFor must be an ISO 8601 timestamp.", "scheduled_for", "Invalid timestamp."
    )
    parsed: datetime.datetime | None
    if isinstance(raw, datetime.datetime):
        parsed = raw
    else:
        try:  # well-formed but impossible (month 13, hour 25) raises ValueError
            parsed = parse_datetime(str(raw)) if raw else None
        except ValueError:
            parsed = None
        if parsed is None:
            raise invalid
    value = as_utc(parsed, default_tz=zoneinfo.ZoneInfo(tz_name or "UTC"))
    if value is None:  # past the first or last representable instant
        raise invalid
    return value


# --- scheduling -----------------------------------------------------------------------------


@transaction.atomic
def publications_schedule(
    *,
    content: Content,
    profiles: list[SocialProfile],
    scheduled_for: object,
    options: dict[str, Any] | None = None,
    actor: object = None,
) -> Content:
    options = dict(options or {})
    tz_name = options.get("timezone")
    if tz_name:
        validate_timezone(tz_name, "schedule_timezone")
    content = Content.objects.select_for_update(of=("self",)).select_related("brand").get(pk=content.pk)
    _check_publishable(content)
    _check_profiles(content, profiles)
    when = parse_when(scheduled_for, tz_name or profiles[0].timezone_name)
    if when <= timezone.now():
        raise InvalidSubject("scheduledFor is in the past.", "scheduled_for", "Must be in the future.")
    for profile in profiles:
        _upsert(content, profile, when, options)
    if content.status not in (states.SCHEDULED, states.PUBLISHING):
        transition(content, "schedule", event=None)
    content.scheduled_for = (
        Publication.objects.filter(content=content, status=Publication.SCHEDULED).aggregate(
            m=Min("scheduled_for")
        )["m"]
        or when
    )
    content.save(update_fields=["scheduled_for", "updated_at"])
    event_record(
        organization=content.organization_id,
        type="content.scheduled",
        data={
            "contentId": str(content.pk),
            "status": content.status,
            "scheduledFor": when.isoformat(),
            "profileIds": [str(p.pk) for p in profiles],
        },
    )
    return content


def _upsert(
    content: Content, profile: SocialProfile, when: datetime.datetime, options: dict[str, Any]
) -> Publication:
    pub = Publication.objects.select_for_update().filter(content=content, profile=profile).first()
    if pub is None:
        return Publication.objects.create(
            organization_id=content.organization_id,
            content=content,
            profile=profile,
            scheduled_for=when,
            due_at=when,
            options=options,
        )
    if pub.status in (
        Publication.PUBLISHED,
        Publication.PUBLISHING,
        Publication.QUEUED,
        Publication.PROCESSING,
        Publication.UNKNOWN,
    ):
        raise InvalidTransition(
            f"Publication pub_{pub.pk.hex} is already {pub.status} on {profile.username}.",
            {"profileId": str(profile.pk), "publicationId": f"pub_{pub.pk.hex}", "status": pub.status},
        )
    pub.status, pub.scheduled_for, pub.due_at, pub.options = Publication.SCHEDULED, when, when, options
    pub.attempts, pub.last_error, pub.error_code = 0, "", ""
    pub.save()
    return pub


@transaction.atomic
def publication_cancel(*, publication: Publication) -> None:
    """Cancel one scheduled publication; content with nothing left scheduled goes back to approved."""
    pub = Publication.objects.select_for_update().get(pk=publication.pk)
    if pub.status != Publication.SCHEDULED:
        raise InvalidTransition(
            f"Only a scheduled post can be cancelled; this one is {pub.status}.", {"status": pub.status}
        )
    pub.status = Publication.CANCELLED
    pub.save(update_fields=["status", "updated_at"])
    content = Content.objects.select_for_update().get(pk=pub.content_id)
    remaining = Publication.objects.filter(content=content, status=Publication.SCHEDULED)
    if content.status == states.SCHEDULED and not remaining.exists():
        content.scheduled_for = None
        content.save(update_fields=["scheduled_for", "updated_at"])
        transition(content, "unschedule", event="content.updated")
    elif remaining.exists():
        content.scheduled_for = remaining.aggregate(m=Min("scheduled_for"))["m"]
        content.save(update_fields=["scheduled_for", "updated_at"])


@transaction.atomic
def publication_retry(*, publication: Publication) -> Publication:
    """Put a failed publication back on schedule, due now (the dispatcher takes it next).

    Its content follows: content that failed because of this publication goes back to
    `scheduled`; content back in review or approved is checked as for any schedule."""
    pub = Publication.objects.select_for_update(of=("self",)).select_related("profile").get(pk=publication.pk)
    if pub.status != Publication.FAILED:
        raise InvalidTransition(
            f"Only a failed publication can be retried; this one is {pub.status}.", {"status": pub.status}
        )
    content = Content.objects.select_for_update(of=("self",)).select_related("brand").get(pk=pub.content_id)
    _check_profiles(content, [pub.profile])
    if content.status == states.FAILED:
        if content.requires_approval and content.approved_at is None:  # its text changed since approval
            raise InvalidTransition(
                "This brand requires approval: the content changed after it was approved; approve it again first.",
                {
                    "status": content.status,
                    "allowedActions": content.allowed_actions,
                    "requiresApproval": True,
                },
            )
        transition(content, "retry_publish", event="content.scheduled")
    elif content.status in (states.REVIEW, states.APPROVED):
        _check_publishable(content)
        transition(content, "schedule", event="content.scheduled")
    elif content.status not in (states.SCHEDULED, states.PUBLISHING, states.PUBLISHED):
        raise InvalidTransition(
            f"Content that is {content.status} cannot be published.",
            {"status": content.status, "allowedActions": content.allowed_actions},
        )
    now = timezone.now()
    pub.status, pub.due_at, pub.attempts, pub.lease_until = Publication.SCHEDULED, now, 0, None
    pub.save(update_fields=["status", "due_at", "attempts", "lease_until", "updated_at"])
    if content.status == states.SCHEDULED:
        content.scheduled_for = now
        content.save(update_fields=["scheduled_for", "updated_at"])
    return pub


def publications_publish_now(
    *,
    content: Content,
    profiles: list[SocialProfile],
    options: dict[str, Any] | None = None,
    actor: object = None,
) -> tuple[Content, list[Publication]]:
    """Publish at once, in the request: a platform refusal is reported to the caller."""
    now = timezone.now()
    with transaction.atomic():
        content = Content.objects.select_for_update(of=("self",)).select_related("brand").get(pk=content.pk)
        _check_publishable(content)
        _check_profiles(content, profiles)
        pubs = []
        for profile in profiles:
            pub = _upsert(content, profile, now, dict(options or {}))
            pub.status, pub.queued_at = Publication.QUEUED, now
            pub.save(update_fields=["status", "queued_at", "updated_at"])
            pubs.append(pub)
        if content.status != states.PUBLISHING:
            transition(content, "publish", event="content.publishing")
    publications_run([pub.pk for pub in pubs])  # one chunk: one claim, the calls, one record
    pubs = list(Publication.objects.filter(pk__in=[p.pk for p in pubs]).select_related("profile"))
    failed = [p for p in pubs if p.status == Publication.FAILED]
    content.refresh_from_db()
    if failed and len(failed) == len(pubs):
        raise PlatformFailure(
            "The platform refused the post: "
            + "; ".join(f"{p.profile.username}: {p.last_error}" for p in failed),
            {
                "publications": [
                    {
                        "profileId": str(p.profile_id),
                        "platform": p.profile.platform,
                        "error": p.last_error,
                        "code": p.error_code,
                    }
                    for p in failed
                ]
            },
        )
    return content, pubs


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


def publications_run(publication_ids: Sequence[uuid.UUID | str]) -> list[Publication]:
    """The publish task's body, for a chunk of queued publications.

    One transaction claims the chunk (each row: queued -> publishing with a lease and
    `outcome_unknown` committed before any platform call); then each publication gets its
    platform calls on its own; then one transaction records every result and moves the
    contents. A worker that dies anywhere in between leaves rows the sweep re-queues and
    the next attempt reconciles with the platform first, so nothing goes out twice. A chunk
    that runs past PUBLISH_CHUNK_SECONDS records what it has and hands the untouched rows
    back to the broker; a slow call (over 0.5 s) records at once so progress shows.
    """
    from apps.events.services import dispatch_deferred

    started = time.monotonic()
    done: list[Publication] = []
    with dispatch_deferred() as events:
        claimed = _claim_many(publication_ids)
        if not claimed:
            return done
        with Heartbeat(_lease_renewer(claimed[0][0].claim), lambda: settings.PUBLISH_HEARTBEAT_SECONDS):
            done += _run_claimed(claimed, started, events)
    return done


def _lease_renewer(claim: uuid.UUID | None) -> Callable[[], None]:
    """The chunk's rows still publishing keep their lease while it runs (a dead worker's
    rows expire within PUBLISH_LEASE_SECONDS and the sweep reconciles them)."""

    def renew() -> None:
        Publication.objects.filter(claim=claim, status=Publication.PUBLISHING).update(
            lease_until=timezone.now() + datetime.timedelta(seconds=settings.PUBLISH_LEASE_SECONDS)
        )

    return renew


def _run_claimed(
    claimed: list[tuple[Publication, bool]], started: float, events: _Flushes
) -> list[Publication]:
    done: list[Publication] = []
    context = _chunk_context([pub for pub, _ in claimed])
    attempts: list[_Attempt] = []
    for index, (pub, must_reconcile) in enumerate(claimed):
        if index and time.monotonic() - started > settings.PUBLISH_CHUNK_SECONDS:
            _hand_back(claimed[index:])  # slow platform: do not hold the rest
            break
        call_started = time.monotonic()
        try:
            attempts.append(_attempt(pub, must_reconcile, context))
        except Exception as exc:  # a surprise in one row must not strand the chunk
            logger.exception("Publication %s failed unexpectedly", pub.pk)
            error = OutcomeUnknown(f"Unexpected error: {exc.__class__.__name__}: {exc}"[:500])
            attempts.append(_unknown(pub, error))
        if time.monotonic() - call_started > 0.5:
            done += _record(attempts)
            attempts = []
            events.flush()
    done += _record(attempts)
    return done


def publication_run(publication_id: uuid.UUID | str) -> Publication | None:
    """One publication (publish now); None when there was nothing to do."""
    done = publications_run([publication_id])
    return done[0] if done else None


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


class _ChunkContext(TypedDict):
    """A chunk's variants by (content, platform) and shown media by content."""

    variants: dict[tuple[uuid.UUID, str], Variant]
    media: dict[uuid.UUID, list[MediaAsset]]


def _chunk_context(pubs: list[Publication]) -> _ChunkContext:
    """The chunk's variants and media, read once for all its contents."""
    content_ids = {p.content_id for p in pubs}
    if not content_ids:
        return {"variants": {}, "media": {}}
    variants = {(v.content_id, v.platform): v for v in Variant.objects.filter(content_id__in=content_ids)}
    media: dict[uuid.UUID, list[MediaAsset]] = {}
    for asset in current_media_for(content_ids):
        media.setdefault(asset.content_id, []).append(asset)
    return {"variants": variants, "media": media}


def _unknown(pub: Publication, error: PlatformError) -> _Attempt:
    """The outcome is not known: retried later (reconciling first); after MAX_ATTEMPTS, or at
    once when the profile's grant cannot read its posts back, the publication is `unknown`
    for a person to confirm in the admin (never failed while it may exist, never re-posted)."""
    if not can_reconcile(pub.profile):
        error.message = (
            f"{error.message} (the post may exist and this profile's grant cannot read its posts "
            f"to check: confirm it in the admin)"
        )
        return _Unknown(pub, error=error)
    if pub.attempts < MAX_ATTEMPTS:
        return _Retry(pub, error=error, keep_unknown=True)
    error.message = (
        f"{error.message} (outcome still unknown after {pub.attempts} attempts: check the platform)"
    )
    return _Unknown(pub, error=error)


def can_reconcile(profile: SocialProfile) -> bool:
    """Whether the profile's grant lets its client find a post whose create call got no answer
    (platforms.yaml `features.<platform>.reconciliation`; LinkedIn's is a partner permission)."""
    from apps.platforms.features import feature_scopes, features_allowed

    from .oauth_backends import is_real

    if (
        profile.sandbox
        or not is_real(profile.platform)
        or "reconciliation" not in feature_scopes(profile.platform)
    ):
        return True
    return any(
        f["allowed"]
        for f in features_allowed(profile.platform, profile.token_scopes or "")
        if f["feature"] == "reconciliation"
    )


def _token_refresh(
    profile: SocialProfile,
    *,
    unless_valid_until: datetime.datetime | None = None,
    unless_access_changed_from: str = "",
) -> bool:
    """Refresh the profile's token now (its own transaction); the refreshed fields are copied
    onto ``profile``. False when the platform refused the refresh (the profile is then marked
    revoked or expired by the refresh itself) or could not be reached (nothing changes)."""
    from .oauth import TokenRefreshFailed, profile_refresh_token

    try:
        fresh = profile_refresh_token(
            profile=profile,
            unless_valid_until=unless_valid_until,
            unless_access_changed_from=unless_access_changed_from,
        )
    except TokenRefreshFailed as exc:
        logger.warning("Token refresh for profile %s failed: %s", profile.pk, exc)
        return False
    for field in (
        "access_token_enc",
        "refresh_token_enc",
        "token_expires_at",
        "token_scopes",
        "token_status",
    ):
        setattr(profile, field, getattr(fresh, field))
    return profile.token_status == "valid"


def token_fresh_for_use(profile: SocialProfile) -> SocialProfile:
    """A token that expires within TOKEN_REFRESH_BEFORE_USE_SECONDS is refreshed before use."""
    if profile.sandbox or profile.token_expires_at is None or profile.token_status != "valid":
        return profile
    soon = timezone.now() + datetime.timedelta(seconds=settings.TOKEN_REFRESH_BEFORE_USE_SECONDS)
    if profile.token_expires_at <= soon:
        _token_refresh(profile, unless_valid_until=soon)
    return profile


def _attempt(
    pub: Publication, must_reconcile: bool, context: _ChunkContext | None = None, *, refreshed: bool = False
) -> _Attempt:
    """The platform calls for one claimed publication; its only own write is a token refresh.

    A 401 is answered by one refresh and one more try; the profile is marked expired or
    revoked only when the refresh itself is refused (``oauth.profile_refresh_token``)."""
    try:
        token_fresh_for_use(pub.profile)
        client = client_for(pub.profile)
        req = post_request_for(pub, context)
        if must_reconcile:
            reconciled = _reconciled(pub, client, req)
            if reconciled is not None:
                return reconciled
        _check_quota(pub, client)
        client.validate(req)
        result = client.publish(req)  # the irreversible call (outcome_unknown was committed by the claim)
        if result.pending:  # accepted, still processing (TikTok): the poller follows it up
            return _Processing(pub, result=result)
    except OutcomeUnknown as exc:
        return _unknown(pub, exc)
    except PlatformError as exc:
        return _refused(pub, exc, must_reconcile, context, refreshed=refreshed)
    return _Published(pub, result=result)


def _reconciled(pub: Publication, client: PlatformClient, req: PostRequest) -> _Attempt | None:
    """After an attempt whose outcome is unknown: the post the platform already has, an
    unknown outcome when the grant cannot look, or None to post it."""
    if not can_reconcile(pub.profile):
        return _unknown(pub, OutcomeUnknown("An earlier attempt may have posted it."))
    try:
        found = client.find_published(req)
    except PlatformError as exc:
        if exc.scope_missing:  # the grant cannot read posts back
            return _Unknown(pub, error=exc)
        raise
    if found is not None:
        return _Published(pub, result=found)
    return None


def _check_quota(pub: Publication, client: PlatformClient) -> None:
    """Refuse (retryable in an hour) when the platform's daily publishing limit is reached."""
    quota = client.publish_quota()
    if quota is not None and quota.remaining <= 0:
        raise PlatformError(
            f"{pub.profile.platform} publishing limit reached ({quota.used}/{quota.limit} in 24 h).",
            code="publish_limit",
            retryable=True,
            retry_after=3600,
        )


def _refused(
    pub: Publication,
    exc: PlatformError,
    must_reconcile: bool,
    context: _ChunkContext | None,
    *,
    refreshed: bool,
) -> _Attempt:
    """The platform refused: an expired token is refreshed once and the attempt tried again;
    otherwise a retry while attempts remain and the error is retryable, else a failure."""
    if exc.token_expired:
        if refreshed:  # a fresh token refused too: try again later, the grant stands
            exc.retryable = True
        else:
            from .crypto import decrypt

            stale = decrypt(pub.profile.access_token_enc)
            if _token_refresh(pub.profile, unless_access_changed_from=stale):
                return _attempt(pub, must_reconcile, context, refreshed=True)
            if pub.profile.token_status != "valid":
                exc.message = (
                    f"{exc.message} (the platform refused to refresh the token: reconnect the profile)"
                )
                return _Failed(pub, error=exc)
            exc.retryable = True  # the refresh could not be tried (network, 5xx): later
    if exc.retryable and pub.attempts < MAX_ATTEMPTS:
        return _Retry(pub, error=exc)
    return _Failed(pub, error=exc)


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


# --- posts the platform is still processing (TikTok moderation) ------------------------------


def processing_poll_due(*, now: datetime.datetime | None = None, limit: int = 50) -> int:
    """Ask the platform again about `processing` publications whose next read is due.

    Each row is claimed under a lease (SELECT ... FOR UPDATE SKIP LOCKED, then `lease_until`
    and a new `claim`), so two pollers never read the same post; the result is recorded only
    while the claim holds. A post still processing is asked again after the next delay of
    PUBLISH_PROCESSING_POLL_DELAYS (TikTok's status/fetch allows 30 calls a minute per user;
    these delays keep one post at 3 a minute at most) or the platform's Retry-After. After
    PUBLISH_PROCESSING_MAX_SECONDS: a post the platform completed without a public id is
    recorded published with the handle it has; anything else becomes `unknown`."""
    from apps.events.services import dispatch_deferred

    now = now or timezone.now()
    lease = now + datetime.timedelta(seconds=settings.PUBLISH_LEASE_SECONDS)
    claim = uuid.uuid4()
    with transaction.atomic():
        ids = list(
            Publication.objects.select_for_update(skip_locked=True)
            .filter(status=Publication.PROCESSING, due_at__lte=now)
            .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
            .order_by("due_at")
            .values_list("pk", flat=True)[:limit]
        )
        if not ids:
            return 0
        Publication.objects.filter(pk__in=ids).update(lease_until=lease, claim=claim, updated_at=now)
    pubs = list(Publication.objects.filter(pk__in=ids, claim=claim).select_related("profile", "content"))
    with dispatch_deferred():
        _record([_processing_check(pub) for pub in pubs], from_status=Publication.PROCESSING)
    return len(pubs)


def _processing_check(pub: Publication, *, refreshed: bool = False) -> _Attempt:
    """One status read for a post the platform is still processing."""
    state = dict(pub.platform_state or {})
    try:
        token_fresh_for_use(pub.profile)
        result = client_for(pub.profile).check_pending(state)
    except PlatformError as exc:
        if exc.code == "media_processing_failed":
            return _Failed(pub, error=exc)
        if exc.token_expired and not refreshed:
            from .crypto import decrypt

            if _token_refresh(pub.profile, unless_access_changed_from=decrypt(pub.profile.access_token_enc)):
                return _processing_check(pub, refreshed=True)
        # Not an answer about the post (rate limit, network, a token to reconnect): ask later.
        return _still_processing(pub, state, error=exc)
    except Exception as exc:  # our own surprise must not strand the row
        logger.exception("Processing check of publication %s failed unexpectedly", pub.pk)
        return _still_processing(
            pub, state, error=PlatformError(f"Unexpected error: {exc.__class__.__name__}: {exc}"[:500])
        )
    if result.pending:
        return _still_processing(pub, {**state, **result.state})
    return _Published(pub, result=result)


def _still_processing(
    pub: Publication, state: dict[str, Any], *, error: PlatformError | None = None
) -> _Attempt:
    since = parse_datetime(str(state.get("since") or "")) or pub.updated_at
    if (timezone.now() - since).total_seconds() < settings.PUBLISH_PROCESSING_MAX_SECONDS:
        return _Processing(
            pub,
            result=PublishResult("", "", pending=True, state=state),
            error=error,
            retry_after=(error.retry_after or 0) if error else 0,
        )
    waited = int(settings.PUBLISH_PROCESSING_MAX_SECONDS // 3600)
    if state.get("status") == "PUBLISH_COMPLETE":
        # The platform published it; moderation never gave the public id. Keep the handle we have.
        result = PublishResult(external_id=str(state.get("publish_id") or ""), url="")
        attempt = _Published(pub, result=result)
        return attempt
    message = (
        f"The platform accepted the post but had not finished it after {waited} h "
        f"(last status {state.get('status') or 'unknown'}): confirm it in the admin."
    )
    return _Unknown(pub, error=OutcomeUnknown(message))


@transaction.atomic
def publication_resolve(
    *, publication: Publication, posted: bool, url: str = "", external_id: str = ""
) -> Publication:
    """A person's answer for an `unknown` publication: it went out, or it did not (back on
    schedule, due now, without reconciling).

    A post that went out needs its link, an https link on the platform's own site
    (`post_urls.post_link_parse`, ValidationFailed otherwise); the platform's post id is read
    from it when the link carries one (an explicit `external_id` wins; with neither, the handle
    the publication already had stays)."""

    # the global lock order: the content before its publication
    Content.objects.select_for_update().filter(pk=publication.content_id).values_list("pk", flat=True).first()
    pub = Publication.objects.select_for_update(of=("self",)).select_related("profile").get(pk=publication.pk)
    if pub.status != Publication.UNKNOWN:
        raise InvalidTransition(
            f"Only a publication whose outcome is unknown can be confirmed; this one is {pub.status}.",
            {"status": pub.status},
        )
    now = timezone.now()
    if posted:
        link = post_link_parse(
            platform=pub.profile.platform,
            url=url,
            account=pub.profile.external_id,
            sandbox=pub.profile.sandbox,
        )
        pub.status, pub.published_at, pub.url = Publication.PUBLISHED, now, link.url
        pub.external_id = external_id or link.external_id or pub.external_id
        pub.last_error, pub.error_code = "", ""
    else:
        pub.status, pub.due_at, pub.attempts = Publication.SCHEDULED, now, 0
    pub.outcome_unknown, pub.lease_until = False, None
    pub.save(
        update_fields=[
            "status",
            "published_at",
            "url",
            "external_id",
            "last_error",
            "error_code",
            "due_at",
            "attempts",
            "outcome_unknown",
            "lease_until",
            "updated_at",
        ]
    )
    if posted:
        _publication_updated(pub)
        _sync_contents([pub.content_id])
    return pub


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


# --- queue and posting slots ------------------------------------------------------------------


#: suggests weekly slots for profiles without posting times: called with such profiles, answers
#: {profile pk: (source, [(ISO weekday, hour), ...])}. The analytics app registers the best
#: times of each profile's own history (platform defaults when it is thin); without a
#: provider such a profile has no slot.
Fallback: TypeAlias = tuple[str, list[tuple[int, int]]]
FallbackProvider: TypeAlias = Callable[[list[SocialProfile]], dict[uuid.UUID, Fallback]]
_fallback_slots: dict[str, FallbackProvider] = {}


def register_fallback_slots(provider: FallbackProvider) -> None:
    _fallback_slots["provider"] = provider


def fallback_slots(profiles: Iterable[SocialProfile]) -> dict[uuid.UUID, Fallback]:
    without = [p for p in profiles if not p.posting_times]
    provider = _fallback_slots.get("provider")
    if not without or provider is None:
        return {}
    return provider(without)


def next_free_slot(
    *,
    profile: SocialProfile,
    after: datetime.datetime | None = None,
    taken: set[datetime.datetime] | None = None,
    fallback: Fallback | tuple[()] | None = None,
) -> datetime.datetime:
    """The profile's next free slot: its posting times, else the weekly best times."""
    weekly = None
    if not profile.posting_times:
        fallback = fallback if fallback is not None else fallback_slots([profile]).get(profile.pk)
        weekly = fallback[1] if fallback else None
        if not weekly:
            raise RuleViolation(
                "This profile has no posting times: set settings.postingTimes first.",
                problems={"posting_times": "Empty."},
            )
    if taken is None:
        taken = set(
            Publication.objects.filter(profile=profile).upcoming().values_list("scheduled_for", flat=True)
        )
    start = after or timezone.now()
    for days in (7, 31, 92):
        for slot in schedule_slots(profile=profile, days=days, start=start, weekly=weekly):
            if slot not in taken and slot > timezone.now():
                return slot
    raise RuleViolation(
        "No free posting slot in the next 3 months.", problems={"posting_times": "All taken."}
    )


def next_free_slots(
    *, profiles: Iterable[SocialProfile]
) -> dict[str, tuple[datetime.datetime | None, str | None]]:
    """Each profile's next free posting slot and where it came from (`postingTimes`, or the
    fallback's source: `history`, `platform-default`); (None, None) without one. One query
    for every profile's taken slots, plus the fallback's."""
    profiles = list(profiles)
    taken: dict[uuid.UUID, set[datetime.datetime]] = {p.pk: set() for p in profiles}
    fallback = fallback_slots(profiles)
    with_slots = [p.pk for p in profiles if p.posting_times or p.pk in fallback]
    if with_slots:
        for profile_id, when in (
            Publication.objects.filter(profile_id__in=with_slots)
            .upcoming()
            .values_list("profile_id", "scheduled_for")
        ):
            taken[profile_id].add(when)
    slots: dict[str, tuple[datetime.datetime | None, str | None]] = {}
    for profile in profiles:
        source = "postingTimes" if profile.posting_times else (fallback.get(profile.pk) or (None,))[0]
        try:
            slots[str(profile.pk)] = (
                next_free_slot(
                    profile=profile, taken=taken[profile.pk], fallback=fallback.get(profile.pk, ())
                ),
                source,
            )
        except RuleViolation:  # no posting times nor fallback, or all taken for three months
            slots[str(profile.pk)] = (None, None)
    return slots


def queue_add(*, content: Content, profile: SocialProfile) -> Content:
    with transaction.atomic():
        SocialProfile.objects.select_for_update().get(pk=profile.pk)  # one slot pick at a time per profile
        slot = next_free_slot(profile=profile)
        return publications_schedule(content=content, profiles=[profile], scheduled_for=slot, options={})


def auto_schedule_approved(*, content: Content) -> None:
    """`auto_publish` brands: approved content goes to its profile's next free slot (its
    posting times, else its best times, as the queue picks them). Content stays approved,
    unscheduled, when the profile has neither."""
    profile = content.profile
    if profile is None:
        profile = (
            SocialProfile.objects.filter(brand=content.brand, platform__in=content.platforms, connected=True)
            .order_by("created_at")
            .first()
        )
    if profile is None:
        return
    if not profile.posting_times and not fallback_slots([profile]).get(profile.pk, (None, []))[1]:
        return
    queue_add(content=content, profile=profile)


# --- what a platform reports later (TikTok's post.publish.* webhooks) ----------------------------------


def publication_platform_report(
    *, platform: str, account_id: str, publish_id: str, post_id: str = "", failed_reason: str = ""
) -> Publication | None:
    """A platform tells, after moderation, how a post it accepted ended: its public post id
    (the id metrics need) or why it failed. Finds the publication by the id the platform
    gave at publish time: one still `processing` (its `publish_id` in `platform_state`) or
    one recorded published under the publish id; an unknown one changes nothing. Idempotent:
    the same report twice writes the same values and records no second event. A report that
    completes a post without its id only makes the poller's next read due now."""
    ids_ = [i for i in (publish_id, post_id) if i]
    if not ids_:
        return None
    with transaction.atomic():
        processing = (
            Publication.objects.filter(
                platform=platform,
                profile__external_id=account_id,
                status=Publication.PROCESSING,
                platform_state__publish_id=publish_id,
            )
            .values_list("pk", "content_id")
            .first()
            if publish_id
            else None
        )
        if processing is not None:
            # the global lock order: the content before its publication
            Content.objects.select_for_update().filter(pk=processing[1]).values_list("pk", flat=True).first()
            pub = (
                Publication.objects.select_for_update(of=("self",))
                .select_related("profile")
                .filter(pk=processing[0], status=Publication.PROCESSING)
                .first()
            )
            if pub is not None:
                return _processing_report(pub, post_id=post_id, failed_reason=failed_reason)
            return None
        published = Publication.objects.filter(
            platform=platform,
            profile__external_id=account_id,
            external_id__in=ids_,
            status=Publication.PUBLISHED,
        )
        content_id = published.values_list("content_id", flat=True).first()
        if content_id is None:
            return None
        Content.objects.select_for_update().filter(pk=content_id).values_list(
            "pk", flat=True
        ).first()  # lock order
        pub = published.select_for_update(of=("self",)).select_related("profile").first()
        if pub is None:
            return None
        if failed_reason:
            pub.status, pub.error_code = Publication.FAILED, failed_reason[:100]
            pub.last_error = f"{platform.capitalize()} did not publish the post: {failed_reason}"[:2000]
            pub.save(update_fields=["status", "last_error", "error_code", "updated_at"])
            _publication_updated(pub)
            _sync_contents([pub.content_id])  # the content was published on this post alone: failed now
            return pub
        if not post_id or pub.external_id == post_id:
            return pub
        pub.external_id = post_id
        if pub.profile.username:
            pub.url = f"https://www.tiktok.com/@{pub.profile.username}/video/{post_id}"
        pub.save(update_fields=["external_id", "url", "updated_at"])
        _publication_updated(pub)
    return pub


def _processing_report(pub: Publication, *, post_id: str, failed_reason: str) -> Publication:
    """The platform's report on a post still `processing` (caller holds the row's lock)."""
    now = timezone.now()
    if not post_id and not failed_reason:
        Publication.objects.filter(pk=pub.pk).update(due_at=now, updated_at=now)  # the poller reads it now
        return pub
    if failed_reason:
        pub.status, pub.error_code = Publication.FAILED, failed_reason[:100]
        pub.last_error = f"{pub.platform.capitalize()} did not publish the post: {failed_reason}"[:2000]
    else:
        state = pub.platform_state or {}
        username = state.get("username") or pub.profile.username
        pub.status, pub.external_id, pub.published_at, pub.last_error, pub.error_code = (
            Publication.PUBLISHED,
            post_id,
            now,
            "",
            "",
        )
        if username:
            pub.url = f"https://www.tiktok.com/@{username}/{state.get('kind') or 'video'}/{post_id}"
    pub.lease_until, pub.outcome_unknown = None, False
    pub.save(
        update_fields=[
            "status",
            "external_id",
            "url",
            "published_at",
            "last_error",
            "error_code",
            "lease_until",
            "outcome_unknown",
            "updated_at",
        ]
    )
    _publication_updated(pub)
    _sync_contents([pub.content_id])
    return pub
