"""Scheduling, cancelling, retrying and publishing now: the checks both API families share."""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from apps.content import states
from apps.content.machine import ensure_allowed, event_data, transition
from apps.content.models import Content
from apps.core.errors import Conflict, InvalidSubject, InvalidTransition, PlatformFailure, RuleViolation
from apps.events.services import event_record
from apps.platforms.gates import visibility_refusal
from apps.profiles.models import SocialProfile
from apps.profiles.services import validate_timezone

from ..models import Publication
from .bluesky_video import bluesky_video_check
from .preflight import content_preflight, preflight_enforce, subject_of_content
from .running import publications_run
from .tiktok import CreatorInfo, tiktok_choices_check, tiktok_creator_info
from .timing import parse_when

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
    gated = [
        reason
        for p in profiles
        if (
            reason := visibility_refusal(
                p.platform, p.settings.get("defaultVisibility", "public"), sandbox=p.sandbox
            )
        )
    ]
    if gated:  # the platform would lock it private or refuse it: said before anything is scheduled
        raise RuleViolation(" ".join(gated), problems={"profile": gated})
    disconnected = [p for p in profiles if not p.connected or p.token_status != "valid"]
    if disconnected:
        reasons = [
            f"{p.username}: {p.token_status if p.connected else 'disconnected'}"
            + (f" ({p.token_error})" if p.token_error else "")
            for p in disconnected
        ]
        raise RuleViolation(
            "A profile needs to be reconnected before it can publish: " + "; ".join(reasons),
            problems={"profile": reasons},
        )


def _check_token_lifetime(profiles: list[SocialProfile], when: datetime.datetime) -> None:
    """A post due after its profile's token expires, when nothing can renew that token
    (LinkedIn's 60 days without a refresh token), would fail: refused with the date."""
    from apps.profiles.services import token_refreshable

    late = [
        p
        for p in profiles
        if not p.sandbox
        and p.token_expires_at is not None
        and when >= p.token_expires_at
        and not token_refreshable(p)
    ]
    if late:
        reasons = [
            f"{p.username}: the {p.platform} token expires on {p.token_expires_at:%Y-%m-%d %H:%M} UTC and "
            "cannot be renewed without you; reconnect the profile, then schedule past that date"
            for p in late
            if p.token_expires_at is not None
        ]
        raise RuleViolation(
            "A post is scheduled after its profile's access runs out: " + "; ".join(reasons),
            problems={"scheduled_for": reasons},
        )


#: the last year a post may be moved to: the calendar shows months up to it (the six weeks
#: around a month must stay representable)
LAST_YEAR = 9998


def publication_reschedule(
    *, publication: Publication, when: object, tz_name: str | None = None, actor: object = None
) -> Publication:
    """Move one scheduled publication to ``when`` (ISO 8601; without an offset read in
    ``tz_name``, else the profile's zone), through ``publications_schedule`` and its rules (not
    in the past, the profile still connected, the content's state). A publication that is not
    scheduled is a Conflict; a time the calendar cannot show (past ``LAST_YEAR``) is refused."""
    if publication.status != Publication.SCHEDULED:
        raise Conflict(f"Only a scheduled post can be moved; this one is {publication.status}.")
    zone = tz_name or publication.profile.timezone_name
    moved_to = parse_when(when, zone)
    if moved_to.astimezone(zoneinfo.ZoneInfo(zone)).year > LAST_YEAR or moved_to.year > LAST_YEAR:
        raise InvalidSubject(
            f"A post can be scheduled up to the end of {LAST_YEAR}.", "scheduled_for", "Too far ahead."
        )
    publications_schedule(
        content=publication.content,
        profiles=[publication.profile],
        scheduled_for=moved_to,
        options=publication.options,
        actor=actor,
    )
    publication.refresh_from_db()
    return publication


# --- scheduling -----------------------------------------------------------------------------


def publications_schedule(
    *,
    content: Content,
    profiles: list[SocialProfile],
    scheduled_for: object,
    options: dict[str, Any] | None = None,
    actor: object = None,
    force: bool = False,
) -> Content:
    """Schedule ``content`` on ``profiles``; after the rules of schedule itself, the pre-flight
    check (`preflight`) refuses what a platform would refuse (409), unless an admin ``force``s it."""
    options = dict(options or {})
    read = _creator_info_once()
    # TikTok's creator_info is read first, outside the transaction that locks the content
    tiktok_choices_check(platforms=list(content.platforms), profiles=profiles, options=options, read=read)
    bluesky_video_check(content=content, profiles=profiles)
    return _schedule(
        content=content,
        profiles=profiles,
        scheduled_for=scheduled_for,
        options=options,
        preflight=lambda locked, when: preflight_enforce(
            reports=content_preflight(
                subject=subject_of_content(locked),
                profiles=profiles,
                scheduled_for=when,
                options=options,
                creator_info=read,
            ),
            force=force,
            actor=actor,
            only=RESCHEDULE_CODES if _only_moving(locked, profiles) else None,
        ),
    )


#: what a new time can change: a reschedule (every profile already scheduled) re-checks only these
RESCHEDULE_CODES = frozenset({"token_expired", "token_expires_before_schedule", "profile_disconnected"})


def _only_moving(content: Content, profiles: list[SocialProfile]) -> bool:
    """Every profile already has this content scheduled: the request moves it in time (the post
    itself was checked, or forced, when it was scheduled)."""
    scheduled = set(
        Publication.objects.filter(content=content, status=Publication.SCHEDULED).values_list(
            "profile_id", flat=True
        )
    )
    return bool(profiles) and all(p.pk in scheduled for p in profiles)


def _creator_info_once() -> Callable[..., CreatorInfo]:
    """TikTok's creator_info, read once per profile for one request (choices, then pre-flight)."""
    seen: dict[Any, CreatorInfo] = {}

    def read(*, profile: SocialProfile) -> CreatorInfo:
        if profile.pk not in seen:
            seen[profile.pk] = tiktok_creator_info(profile=profile)
        return seen[profile.pk]

    return read


@transaction.atomic
def _schedule(
    *,
    content: Content,
    profiles: list[SocialProfile],
    scheduled_for: object,
    options: dict[str, Any],
    preflight: Callable[[Content, datetime.datetime], None] | None = None,
) -> Content:
    tz_name = options.get("timezone")
    if tz_name:
        validate_timezone(tz_name, "schedule_timezone")
    content = Content.objects.select_for_update(of=("self",)).select_related("brand").get(pk=content.pk)
    _check_publishable(content)
    _check_profiles(content, profiles)
    when = parse_when(scheduled_for, tz_name or profiles[0].timezone_name)
    if when <= timezone.now():
        raise InvalidSubject("scheduledFor is in the past.", "scheduled_for", "Must be in the future.")
    _check_token_lifetime(profiles, when)
    if preflight is not None:
        preflight(content, when)
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
        data=event_data(content, scheduledFor=when.isoformat(), profileIds=[str(p.pk) for p in profiles]),
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
    force: bool = False,
) -> tuple[Content, list[Publication]]:
    """Publish at once, in the request: a platform refusal is reported to the caller (what the
    pre-flight check finds first, as for a schedule)."""
    now = timezone.now()
    read = _creator_info_once()
    tiktok_choices_check(
        platforms=list(content.platforms), profiles=profiles, options=dict(options or {}), read=read
    )
    bluesky_video_check(content=content, profiles=profiles)
    with transaction.atomic():
        content = Content.objects.select_for_update(of=("self",)).select_related("brand").get(pk=content.pk)
        _check_publishable(content)
        _check_profiles(content, profiles)
        preflight_enforce(
            reports=content_preflight(
                subject=subject_of_content(content),
                profiles=profiles,
                scheduled_for=now,
                options=dict(options or {}),
                creator_info=read,
            ),
            force=force,
            actor=actor,
        )
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
