"""Collecting metric snapshots.

Which publications are due is read from the database every sweep (age of the post and
time of its newest snapshot). The sweep claims what it takes (``PullClaim``, a lease renewed
before every pull) and hands it out in chunks on the ``analytics`` queue; a snapshot is only
written in the transaction that deletes its holder's claim. So a worker killed mid-pull or a
chunk lost with Redis leaves a claim that expires (``ANALYTICS_LEASE_SECONDS``) on a
publication that is still due, and a later sweep takes it again (nothing lost), while two
sweeps, a redelivered chunk or a pull that outlived its lease can never store a second
snapshot for the same pull (nothing duplicated).
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, F, Field, OuterRef, Q, Subquery
from django.utils import timezone

from apps.platforms.metrics import for_platform
from apps.profiles.models import SocialProfile
from apps.publishing.models import Publication

from .models import POST_METRICS, PostSnapshot, ProfileSnapshot, PullClaim

log = logging.getLogger(__name__)

PUBLISHED = "published"


def interval_for(age: timedelta) -> timedelta:
    """How often a post this old is pulled (settings ANALYTICS_*)."""
    if age < timedelta(hours=settings.ANALYTICS_HOURLY_UNTIL_HOURS):
        return timedelta(hours=1)
    if age < timedelta(days=settings.ANALYTICS_DAILY_UNTIL_DAYS):
        return timedelta(days=1)
    return timedelta(days=7)


def _live_claim(now):
    return Exists(PullClaim.objects.filter(subject_id=OuterRef("pk"), leased_until__gte=now))


def due_publications(now=None, limit: int | None = 500, *, include_claimed: bool = False):
    """Published publications whose newest snapshot is older than their interval, oldest
    pull (or never pulled) first, leaving out those another worker holds a live claim on.

    One query; the three age bands are three conditions on (published_at, last taken_at).
    """
    now = now or timezone.now()
    last = PostSnapshot.objects.filter(publication=OuterRef("pk"), latest=True).values("taken_at")[:1]
    qs = (
        Publication.objects.filter(status=PUBLISHED, published_at__isnull=False)
        .exclude(external_id="")
        .annotate(last_taken=Subquery(last))
    )
    if not include_claimed:
        qs = qs.exclude(_live_claim(now))
    hourly = timedelta(hours=settings.ANALYTICS_HOURLY_UNTIL_HOURS)
    daily = timedelta(days=settings.ANALYTICS_DAILY_UNTIL_DAYS)
    due = (
        Q(last_taken__isnull=True)
        | Q(published_at__gt=now - hourly, last_taken__lte=now - timedelta(hours=1))
        | Q(
            published_at__lte=now - hourly,
            published_at__gt=now - daily,
            last_taken__lte=now - timedelta(days=1),
        )
        | Q(published_at__lte=now - daily, last_taken__lte=now - timedelta(days=7))
    )
    qs = qs.filter(due).order_by(F("last_taken").asc(nulls_first=True), "published_at")
    return qs if limit is None else qs[:limit]


# --- claims (leases) ------------------------------------------------------------------


def _lease_until():
    return timezone.now() + timedelta(seconds=settings.ANALYTICS_LEASE_SECONDS)


def _column(name: str) -> Field[Any, Any]:
    """A column of PullClaim (`get_field` may also answer a reverse relation, which has none)."""
    field = PullClaim._meta.get_field(name)
    if not isinstance(field, Field):
        raise TypeError(f"PullClaim.{name} is not a column")
    return field


def claim(kind: str, subject_ids, *, token: uuid.UUID | None = None) -> tuple[uuid.UUID, list]:
    """Claim the subjects nobody holds (or whose holder's lease ran out) for ``token``.

    One statement: an upsert that takes over a row only when its lease has expired, so two
    sweeps claiming at once split the subjects between them. Returns the token and the ids won.
    """
    token = token or uuid.uuid4()
    if not subject_ids:
        return token, []
    now = timezone.now()
    table = PullClaim._meta.db_table
    # Values as the backend stores them (PostgreSQL: uuid; SQLite, the embedded default: hex text).
    field = _column
    prep_uuid = field("token").get_db_prep_value
    lease = field("leased_until").get_db_prep_value(_lease_until(), connection)
    rows, params = [], []
    for subject_id in subject_ids:
        rows.append("(%s, %s, %s, %s)")
        params += [prep_uuid(subject_id, connection), kind, prep_uuid(token, connection), lease]
    # Django's bulk_create(update_conflicts=True) cannot say "only if the lease expired".
    # INSERT .. ON CONFLICT .. WHERE .. RETURNING: PostgreSQL, and SQLite since 3.35.
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {table} (subject_id, kind, token, leased_until) VALUES {', '.join(rows)} "
            f"ON CONFLICT (subject_id) DO UPDATE SET token = excluded.token, kind = excluded.kind, "
            f"leased_until = excluded.leased_until WHERE {table}.leased_until < %s "
            "RETURNING subject_id",
            [*params, field("leased_until").get_db_prep_value(now, connection)],
        )
        won = [field("subject_id").to_python(row[0]) for row in cur.fetchall()]
    return token, won


def renew(token: uuid.UUID) -> int:
    """Push the lease of every claim still held by ``token`` forward (before each pull)."""
    return PullClaim.objects.filter(token=token).update(leased_until=_lease_until())


def release(token: uuid.UUID, subject_ids=None) -> int:
    qs = PullClaim.objects.filter(token=token)
    if subject_ids is not None:
        qs = qs.filter(subject_id__in=list(subject_ids))
    return qs.delete()[0]


class LeaseLost(Exception):
    """Our claim expired and was taken over (or released): the pull is not ours to store."""


def _take_claim(subject_id, token: uuid.UUID | None) -> None:
    """Inside the storing transaction: delete our claim, or refuse to store."""
    if token is None:  # an unclaimed pull (tests, the shell): nothing to guard
        return
    if not PullClaim.objects.filter(subject_id=subject_id, token=token).delete()[0]:
        raise LeaseLost(str(subject_id))


def publications_refresh(*, publication_ids, now=None) -> int:
    """A platform said these posts changed (a comment or reply, through its webhook): pull
    their metrics now instead of at their next interval. A post pulled within
    ANALYTICS_PUSH_MIN_SECONDS, or held by another worker, is left alone, so a busy post's
    comments cost one pull per window. Claimed as the sweep claims; returns the snapshots stored."""
    now = now or timezone.now()
    recent = PostSnapshot.objects.filter(
        publication=OuterRef("pk"),
        latest=True,
        taken_at__gt=now - timedelta(seconds=settings.ANALYTICS_PUSH_MIN_SECONDS),
    )
    ids = list(
        Publication.objects.filter(pk__in=list(publication_ids), status=PUBLISHED, published_at__isnull=False)
        .exclude(external_id="")
        .exclude(Exists(recent))
        .exclude(_live_claim(now))
        .values_list("pk", flat=True)
    )
    if not ids:
        return 0
    token, won = claim(PullClaim.POST, ids)
    return collect_chunk(PullClaim.POST, token, won) if won else 0


def claim_due_publications(limit: int = 500) -> list[tuple[uuid.UUID, list]]:
    """The sweep: claim what is due in chunks of ANALYTICS_CHUNK_SIZE, one token per chunk.

    A publication written by another holder between the due query and our claim is
    released again (the second due query runs after the claim, when nobody else can write).
    """
    # claims a killed holder left on what is no longer due would otherwise stay forever
    PullClaim.objects.filter(
        leased_until__lt=timezone.now() - timedelta(seconds=settings.ANALYTICS_LEASE_SECONDS)
    ).delete()
    ids = list(due_publications(limit=limit).values_list("pk", flat=True))
    size = max(1, settings.ANALYTICS_CHUNK_SIZE)
    chunks = []
    for i in range(0, len(ids), size):
        token, won = claim(PullClaim.POST, ids[i : i + size])
        if not won:
            continue
        still = set(
            due_publications(limit=None, include_claimed=True).filter(pk__in=won).values_list("pk", flat=True)
        )
        if len(still) < len(won):
            release(token, [w for w in won if w not in still])
        if still:
            chunks.append((token, [w for w in won if w in still]))
    return chunks


class Backoff(Exception):
    """The platform asked us to slow down (429 / rate-limit code)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after}s")
        self.retry_after = retry_after


def _platform_paused(platform: str) -> bool:
    from django.core.cache import cache

    return bool(cache.get(f"analytics:pause:{platform}"))


def _pause_platform(platform: str, seconds: float) -> None:
    from django.core.cache import cache

    cache.set(f"analytics:pause:{platform}", 1, timeout=max(1, int(seconds)))


def _paused(profile: SocialProfile, platform: str) -> bool:
    """The platform is paused for every profile (an app-wide limit) or this profile alone."""
    from django.core.cache import cache

    keys = [f"analytics:pause:{platform}", f"analytics:pause:profile:{profile.pk}"]
    return any(cache.get_many(keys).values())


def _backoff(profile: SocialProfile, platform: str, exc: Exception) -> Backoff:
    """Pause after a 429 (or any retryable refusal): the profile alone when the limit is its
    token's, the whole platform when the platform says the operator's app is over its limit
    (`PlatformError.app_wide`: Meta's #4 or X-App-Usage at 100 %, YouTube's project quota,
    X's app-wide daily cap)."""
    from django.core.cache import cache

    seconds = getattr(exc, "retry_after", None) or settings.ANALYTICS_BACKOFF_SECONDS
    if getattr(exc, "app_wide", False):
        _pause_platform(platform, seconds)
    else:
        cache.set(f"analytics:pause:profile:{profile.pk}", 1, timeout=max(1, int(seconds)))
    return Backoff(seconds)


def collect_publication(
    publication: Publication, now=None, *, token: uuid.UUID | None = None
) -> PostSnapshot | None:
    """Pull one publication's metrics and store a snapshot (None when the profile or platform is paused
    after a 429). With ``token``, the snapshot is stored only while that claim is held
    (``LeaseLost`` otherwise) and the claim is deleted with it."""
    from apps.publishing.platforms.base import PlatformError
    from apps.publishing.services import client_for

    published_at = publication.published_at
    if published_at is None:
        raise ValueError(f"Publication {publication.pk} was not published: it has no metrics.")
    now = now or timezone.now()
    platform = publication.profile.platform if not publication.profile.sandbox else "sandbox"
    spec = for_platform(platform)
    age = now - published_at
    if _paused(publication.profile, platform):
        return None
    unavailable: dict[str, str] = {}
    values: dict[str, int | None] = {}
    if spec.window is not None and age > spec.window:
        reason = f"{publication.profile.platform} reports analytics only for the last {spec.window.days} days"
        unavailable = {m: reason for m in set(spec.metrics.values())}
    elif spec.resolve_id_first and not _resolve_post_id(publication):
        reason = (
            f"{publication.profile.platform} has not given this post a public video id yet (a private post, "
            "or one still in moderation); its metrics are read by that id"
        )
        unavailable = {m: reason for m in set(spec.metrics.values())}
    else:
        try:
            m = client_for(publication.profile).fetch_metrics(publication.external_id)
        except PlatformError as exc:
            if exc.retryable:
                raise _backoff(publication.profile, platform, exc) from exc
            unavailable = {m: exc.message for m in set(spec.metrics.values())}
        else:
            for name in POST_METRICS:
                values[name] = getattr(m, name, None)
            unavailable.update(m.unavailable)
            if spec.recent_only and age > spec.recent_only[1]:
                for name in spec.recent_only[0]:
                    unavailable.setdefault(
                        spec.metrics[name], f"only for posts under {spec.recent_only[1].days} days"
                    )
    offered = set(spec.metrics.values()) | {"views", "likes", "comments", "shares"}
    for name in POST_METRICS:
        if values.get(name) is None and name in offered and name not in unavailable:
            unavailable[name] = "not reported by the platform"
        if name in unavailable:
            values[name] = None
    with transaction.atomic():
        _take_claim(publication.pk, token)
        PostSnapshot.objects.filter(publication=publication, latest=True).update(latest=False)
        return PostSnapshot.objects.create(
            organization_id=publication.organization_id,
            publication=publication,
            content_id=publication.content_id,
            profile_id=publication.profile_id,
            platform=publication.profile.platform,
            taken_at=now,
            published_at=published_at,
            unavailable=unavailable,
            latest=True,
            **{k: v for k, v in values.items() if k in POST_METRICS},
        )


def _resolve_post_id(publication: Publication) -> bool:
    """TikTok: a post recorded under its publish id gets its public video id first (recorded
    on the publication by the publishing service). False while there is none yet."""
    from apps.publishing.platforms.base import PlatformError, ResolvesPostId
    from apps.publishing.services import client_for, publication_platform_report

    client = client_for(publication.profile)
    if not isinstance(client, ResolvesPostId) or not client.is_publish_id(publication.external_id):
        return True
    try:
        post_id = client.resolve_post_id(publication.external_id)
    except PlatformError as exc:
        if exc.retryable:
            raise _backoff(publication.profile, publication.profile.platform, exc) from exc
        return False
    if not post_id:
        return False
    publication_platform_report(
        platform=publication.profile.platform,
        account_id=publication.profile.external_id,
        publish_id=publication.external_id,
        post_id=post_id,
    )
    publication.external_id = post_id
    return True


def collect_profile(profile: SocialProfile, now=None, *, token: uuid.UUID | None = None) -> ProfileSnapshot:
    """Pull one profile's counters and store a snapshot (guarded by ``token`` as for posts)."""
    from apps.publishing.platforms.base import PlatformError
    from apps.publishing.services import client_for

    now = now or timezone.now()
    fields: dict = {}
    platform = profile.platform if not profile.sandbox else "sandbox"
    if _paused(profile, platform):
        raise Backoff(settings.ANALYTICS_BACKOFF_SECONDS)
    try:
        account = client_for(profile).fetch_account()
    except PlatformError as exc:
        if exc.retryable:
            raise _backoff(profile, platform, exc) from exc
        fields = {"unavailable": {"followers": exc.message}}
    else:
        posts = Publication.objects.filter(profile=profile, status=PUBLISHED).count()
        fields = {
            "followers": account.followers,
            "posts": posts,
            "unavailable": {"following": "not reported by the platform"},
        }
    with transaction.atomic():
        _take_claim(profile.pk, token)
        return ProfileSnapshot.objects.create(
            organization_id=profile.organization_id, profile=profile, taken_at=now, **fields
        )


def due_profiles(now=None, *, include_claimed: bool = False):
    """Connected profiles without a snapshot in the last day (and no live claim)."""
    now = now or timezone.now()
    recent = ProfileSnapshot.objects.filter(taken_at__gt=now - timedelta(days=1)).values("profile_id")
    qs = SocialProfile.objects.filter(connected=True).exclude(pk__in=recent)
    if not include_claimed:
        qs = qs.exclude(_live_claim(now))
    return qs.order_by("pk")


def claim_due_profiles() -> list[tuple[uuid.UUID, list]]:
    ids = list(due_profiles().values_list("pk", flat=True))
    size = max(1, settings.ANALYTICS_CHUNK_SIZE)
    chunks = []
    for i in range(0, len(ids), size):
        token, won = claim(PullClaim.PROFILE, ids[i : i + size])
        if not won:
            continue
        still = set(due_profiles(include_claimed=True).filter(pk__in=won).values_list("pk", flat=True))
        if len(still) < len(won):
            release(token, [w for w in won if w not in still])
        if still:
            chunks.append((token, [w for w in won if w in still]))
    return chunks


def collect_chunk(kind: str, token: uuid.UUID, subject_ids) -> int:
    """Pull every subject of one claimed chunk; the lease is renewed before each pull. A
    subject whose claim is gone (expired and taken, or already stored) is skipped; a 429 or a
    failure releases that claim so a later sweep tries again. Returns the snapshots stored."""
    done = 0
    for subject_id in subject_ids:
        if not PullClaim.objects.filter(subject_id=subject_id, token=token).exists():
            continue
        renew(token)
        subject: Publication | SocialProfile | None = (
            Publication.objects.select_related("profile").filter(pk=subject_id).first()
            if kind == PullClaim.POST
            else SocialProfile.objects.filter(pk=subject_id).first()
        )
        if subject is None:
            release(token, [subject_id])
            continue
        try:
            if isinstance(subject, Publication):
                stored = collect_publication(subject, token=token) is not None
            else:
                stored = collect_profile(subject, token=token) is not None
        except LeaseLost:
            log.warning("metrics pull of %s %s outlived its lease; another worker owns it", kind, subject_id)
            continue
        except Backoff:
            release(token, [subject_id])  # this profile (or the whole platform) is paused; others go on
            continue
        except Exception:  # one subject's failure does not stop the chunk
            log.exception("metrics pull failed for %s %s", kind, subject_id)
            release(token, [subject_id])
            continue
        if stored:
            done += 1
        else:
            release(token, [subject_id])
    return done
