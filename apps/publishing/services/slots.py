"""The queue and posting slots."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from django.db import transaction
from django.utils import timezone

from apps.content.models import Content
from apps.core.errors import RuleViolation
from apps.profiles.models import SocialProfile
from apps.profiles.services import schedule_slots

from ..models import Publication
from .scheduling import publications_schedule

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


def queue_add(*, content: Content, profile: SocialProfile, options: dict[str, Any] | None = None) -> Content:
    """Schedule at the profile's next free slot; `options` as for a schedule (a TikTok post
    carries the creator's choices, `options.tiktok`)."""
    with transaction.atomic():
        SocialProfile.objects.select_for_update().get(pk=profile.pk)  # one slot pick at a time per profile
        slot = next_free_slot(profile=profile)
        return publications_schedule(
            content=content, profiles=[profile], scheduled_for=slot, options=dict(options or {})
        )


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
    if profile.platform == "tiktok":  # the creator chooses the privacy level and consents, each post
        return
    if not profile.posting_times and not fallback_slots([profile]).get(profile.pk, (None, []))[1]:
        return
    queue_add(content=content, profile=profile)
