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
RATE_BUCKETS = {
    "default": "requestsPerMinute",
    "generation": "generationsPerMinute",
    "batch": "batchesPerMinute",
}


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


def plan_check(organization, limit: str, *, used: int, adding: int = 1) -> None:
    """Refuse `adding` more of `limit` ("generationsPerMonth", "profiles") past the plan's
    allowance; the caller, which owns those rows, counts what is `used`."""
    allowed = plan_limits(organization).get(limit)
    if allowed is None:
        return
    if used + adding > int(allowed):
        message = {
            "generationsPerMonth": f"This would make {used + adding} generations this month.",
            "profiles": "No more social profiles can be connected.",
        }.get(limit, f"The {limit} limit is reached.")
        _refuse(organization, limit, int(allowed), used, message)


def plan_has_limit(organization, limit: str) -> bool:
    """Whether the plan limits this at all (a caller counts only then)."""
    return plan_limits(organization).get(limit) is not None
