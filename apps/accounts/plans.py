"""Billing plans and the limits they set on an organization.

A plan is a key of ``settings.PLANS``; each names its limits (a missing or null limit is
none): ``generationsPerMonth`` (generated contents per calendar month, UTC),
``profiles`` (connected social profiles), and per-credential rate limits per minute
``requestsPerMinute``, ``generationsPerMinute``, ``batchesPerMinute`` (in place of the
global RATE_LIMIT_* figures). An organization that never had a subscription is on
``PLAN_DEFAULT`` (empty: no plan limits, only the global rate limits).
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.utils import timezone

from apps.core.errors import PermissionDenied

#: the rate-limit bucket each plan limit replaces
RATE_BUCKETS = {"default": "requestsPerMinute", "generation": "generationsPerMinute", "batch": "batchesPerMinute"}


class PlanLimitExceeded(PermissionDenied):
    """A limit of the organization's plan is reached (403, naming the limit)."""


def plan_of(organization) -> str:
    return (getattr(organization, "plan", "") or settings.PLAN_DEFAULT or "").strip()


def plan_limits(organization) -> dict:
    return dict(settings.PLANS.get(plan_of(organization)) or {})


def plan_rate_limit(organization, bucket: str) -> int | None:
    """The plan's per-minute limit for this rate-limit bucket, or None (the global figure)."""
    name = RATE_BUCKETS.get(bucket)
    if organization is None or name is None:
        return None
    value = plan_limits(organization).get(name)
    return int(value) if value is not None else None


def _refuse(organization, limit: str, allowed: int, used: int, message: str) -> None:
    plan = plan_of(organization)
    raise PlanLimitExceeded(
        f"{message} The {plan} plan allows {allowed}; {used} used. Upgrade the plan to go further.",
        {"limit": limit, "plan": plan, "allowed": allowed, "used": used},
    )


def month_start(now: datetime.datetime | None = None) -> datetime.datetime:
    now = now or timezone.now()
    return now.astimezone(datetime.UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def plan_check_generations(organization, count: int = 1) -> None:
    """Refuse `count` more generations when they would pass the plan's monthly allowance."""
    allowed = plan_limits(organization).get("generationsPerMonth")
    if allowed is None:
        return
    from apps.content.models import Content, GenerationMode

    used = (Content.objects.filter(organization=organization, created_at__gte=month_start())
            .exclude(generation_mode=GenerationMode.MANUAL).count())
    if used + count > int(allowed):
        _refuse(organization, "generationsPerMonth", int(allowed), used,
                f"This would make {used + count} generations this month.")


def plan_check_profiles(organization, adding: int = 1) -> None:
    """Refuse connecting another profile past the plan's number of connected profiles."""
    allowed = plan_limits(organization).get("profiles")
    if allowed is None:
        return
    from apps.profiles.models import SocialProfile

    used = SocialProfile.objects.filter(organization=organization, connected=True).count()
    if used + adding > int(allowed):
        _refuse(organization, "profiles", int(allowed), used, "No more social profiles can be connected.")
