"""Collecting metric snapshots.

Which publications are due is read from the database every sweep (age of the post and
time of its newest snapshot), so a worker killed mid-pull or a lost Redis queue leaves the
publication due and the next sweep takes it again: nothing to lease or recover.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from apps.profiles.models import SocialProfile
from apps.publishing.models import Publication

from . import registry
from .models import POST_METRICS, PostSnapshot, ProfileSnapshot

log = logging.getLogger(__name__)

PUBLISHED = "published"


def interval_for(age: timedelta) -> timedelta:
    """How often a post this old is pulled (settings ANALYTICS_*)."""
    if age < timedelta(hours=settings.ANALYTICS_HOURLY_UNTIL_HOURS):
        return timedelta(hours=1)
    if age < timedelta(days=settings.ANALYTICS_DAILY_UNTIL_DAYS):
        return timedelta(days=1)
    return timedelta(days=7)


def due_publications(now=None, limit: int = 500):
    """Published publications whose newest snapshot is older than their interval.

    One query; the three age bands are three conditions on (published_at, last taken_at).
    """
    now = now or timezone.now()
    last = PostSnapshot.objects.filter(publication=OuterRef("pk"), latest=True).values("taken_at")[:1]
    qs = (Publication.objects.filter(status=PUBLISHED, published_at__isnull=False).exclude(external_id="")
          .annotate(last_taken=Subquery(last)))
    hourly = timedelta(hours=settings.ANALYTICS_HOURLY_UNTIL_HOURS)
    daily = timedelta(days=settings.ANALYTICS_DAILY_UNTIL_DAYS)
    due = (
        Q(last_taken__isnull=True)
        | Q(published_at__gt=now - hourly, last_taken__lte=now - timedelta(hours=1))
        | Q(published_at__lte=now - hourly, published_at__gt=now - daily, last_taken__lte=now - timedelta(days=1))
        | Q(published_at__lte=now - daily, last_taken__lte=now - timedelta(days=7))
    )
    return qs.filter(due).order_by("last_taken", "published_at")[:limit]


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


def collect_publication(publication: Publication, now=None) -> PostSnapshot | None:
    """Pull one publication's metrics and store a snapshot (None when the platform is paused
    after a 429 or the post is outside the platform's window and nothing can be read)."""
    from apps.publishing.platforms.base import PlatformError
    from apps.publishing.services import client_for

    now = now or timezone.now()
    platform = publication.profile.platform if not publication.profile.sandbox else "sandbox"
    spec = registry.for_platform(platform)
    age = now - publication.published_at
    if _platform_paused(platform):
        return None
    unavailable: dict[str, str] = {}
    values: dict[str, int | None] = {}
    if spec.window is not None and age > spec.window:
        reason = f"{publication.profile.platform} reports analytics only for the last {spec.window.days} days"
        unavailable = {m: reason for m in set(spec.metrics.values())}
    else:
        try:
            m = client_for(publication.profile).fetch_metrics(publication.external_id)
        except PlatformError as exc:
            if exc.retryable:
                _pause_platform(platform, exc.retry_after or settings.ANALYTICS_BACKOFF_SECONDS)
                raise Backoff(exc.retry_after or settings.ANALYTICS_BACKOFF_SECONDS) from exc
            unavailable = {m: exc.message for m in set(spec.metrics.values())}
        else:
            for name in POST_METRICS:
                values[name] = getattr(m, name, None)
            unavailable.update(m.unavailable)
            if spec.recent_only and age > spec.recent_only[1]:
                for name in spec.recent_only[0]:
                    unavailable.setdefault(spec.metrics[name], f"only for posts under {spec.recent_only[1].days} days")
    offered = set(spec.metrics.values()) | {"views", "likes", "comments", "shares"}
    for name in POST_METRICS:
        if values.get(name) is None and name in offered and name not in unavailable:
            unavailable[name] = "not reported by the platform"
        if name in unavailable:
            values[name] = None
    with transaction.atomic():
        PostSnapshot.objects.filter(publication=publication, latest=True).update(latest=False)
        return PostSnapshot.objects.create(
            organization_id=publication.organization_id, publication=publication, content_id=publication.content_id,
            profile_id=publication.profile_id, platform=publication.profile.platform, taken_at=now,
            published_at=publication.published_at, unavailable=unavailable, latest=True,
            **{k: v for k, v in values.items() if k in POST_METRICS},
        )


def collect_profile(profile: SocialProfile, now=None) -> ProfileSnapshot:
    from apps.publishing.platforms.base import PlatformError
    from apps.publishing.services import client_for

    now = now or timezone.now()
    try:
        account = client_for(profile).fetch_account()
    except PlatformError as exc:
        if exc.retryable:
            raise Backoff(exc.retry_after or settings.ANALYTICS_BACKOFF_SECONDS) from exc
        return ProfileSnapshot.objects.create(organization_id=profile.organization_id, profile=profile, taken_at=now,
                                              unavailable={"followers": exc.message})
    posts = Publication.objects.filter(profile=profile, status=PUBLISHED).count()
    return ProfileSnapshot.objects.create(organization_id=profile.organization_id, profile=profile, taken_at=now,
                                          followers=account.followers, posts=posts,
                                          unavailable={"following": "not reported by the platform"})


def due_profiles(now=None):
    now = now or timezone.now()
    recent = ProfileSnapshot.objects.filter(taken_at__gt=now - timedelta(days=1)).values("profile_id")
    return SocialProfile.objects.filter(connected=True).exclude(pk__in=recent)
