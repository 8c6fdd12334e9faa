"""Profile writes: settings, brand association, disconnect, bulk updates, posting slots."""

from __future__ import annotations

import datetime
import re
import zoneinfo

from django.db import transaction
from django.utils import timezone

from apps.core.errors import InvalidSubject, UnknownReference, ValidationFailed
from apps.core.exceptions import details_in
from apps.core.timezones import is_timezone
from apps.events.services import event_record

from .models import SocialProfile

HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
#: Instagram and Threads refresh their long-lived access token itself (no refresh token)
SELF_REFRESHING_PLATFORMS = ("instagram", "threads")
#: a token that cannot be refreshed is announced this many days before it expires
TOKEN_WARN_DAYS = (7, 1)
VISIBILITIES = ("public", "private", "unlisted", "followers", "connections")


def validate_timezone(name: str, subject: str = "timezone") -> str:
    """`name` if it is an IANA time zone; else an InvalidSubject about `subject` (a profile's
    `timezone`, a schedule's `schedule_timezone`)."""
    if not is_timezone(name):
        raise InvalidSubject(
            f"Unknown time zone '{name}'.", subject, "Must be an IANA time zone, e.g. Europe/Paris."
        )
    return name


def validate_posting_times(times: list[str]) -> list[str]:
    bad = [t for t in times if not isinstance(t, str) or not HHMM.match(t)]
    if bad:
        raise InvalidSubject(
            "postingTimes must be HH:MM.", "posting_times", f"Invalid: {', '.join(map(str, bad))}."
        )
    return sorted(set(times))


def settings_normalized(values: dict) -> dict:
    """A profile's settings as they are stored; ValidationFailed names the first bad value."""
    out: dict[str, object] = {}
    if "autoHashtags" in values:
        tags = []
        for t in values["autoHashtags"] or []:
            word = str(t).strip().lstrip("#")
            if word:
                tags.append(f"#{word}")
        out["autoHashtags"] = tags
    if "postingTimes" in values:
        out["postingTimes"] = validate_posting_times(values["postingTimes"] or [])
    if "timezone" in values:
        out["timezone"] = validate_timezone(values["timezone"])
    if "defaultVisibility" in values:
        if values["defaultVisibility"] not in VISIBILITIES:
            raise InvalidSubject(
                "Unknown visibility.", "default_visibility", f"Must be one of {', '.join(VISIBILITIES)}."
            )
        out["defaultVisibility"] = values["defaultVisibility"]
    return out


@transaction.atomic
def profile_update_settings(
    *,
    profile: SocialProfile,
    display_name: str | None = None,
    settings: dict | None = None,
    brand=None,
    generation_settings: dict | None = None,
) -> SocialProfile:
    profile = SocialProfile.objects.select_for_update().get(pk=profile.pk)
    if display_name is not None:
        profile.display_name = display_name
    if settings:
        profile.settings = {**profile.settings, **settings_normalized(settings)}
    if brand is not None:
        if brand.organization_id != profile.organization_id:
            raise UnknownReference("brand")
        profile.brand = brand
    if generation_settings is not None:
        from apps.brands.services import deep_merge

        profile.generation_settings = deep_merge(profile.generation_settings, generation_settings)
    profile.save()
    event_record(
        organization=profile.organization_id, type="profile.updated", data={"profileId": str(profile.pk)}
    )
    return profile


@transaction.atomic
def profile_disconnect(*, profile: SocialProfile) -> None:
    """Remove a profile: tokens are dropped with the row; history of posts stays on content."""
    org_id, pk, platform = profile.organization_id, profile.pk, profile.platform
    profile.delete()
    event_record(
        organization=org_id, type="profile.disconnected", data={"profileId": str(pk), "platform": platform}
    )


def profile_bulk_update(*, organization, updates: list[dict]) -> list[dict]:
    """Family B `POST /api/profiles/bulk`: several settings updates, each on its own; returns
    one result per item, its `details` in Family B's request fields (`details_in`)."""
    from apps.core import ids

    results = []
    for item in updates:
        raw_id = item.get("id")
        pk = ids.parse(raw_id, "profile")
        profile = SocialProfile.objects.for_organization(organization).filter(pk=pk).first() if pk else None
        if profile is None:
            results.append({"id": raw_id, "status": "error", "error": "Profile not found."})
            continue
        try:
            profile_update_settings(
                profile=profile,
                display_name=item.get("displayName"),
                settings=item.get("settings"),
                generation_settings=item.get("generationSettings"),
            )
            results.append({"id": str(profile.pk), "status": "ok"})
        except ValidationFailed as exc:
            results.append(
                {
                    "id": str(profile.pk),
                    "status": "error",
                    "error": exc.message,
                    "details": details_in(exc, "api"),
                }
            )
    return results


def schedule_slots(
    *,
    profile: SocialProfile,
    days: int = 7,
    start: datetime.datetime | None = None,
    weekly: list[tuple[int, int]] | None = None,
) -> list[datetime.datetime]:
    """The profile's posting slots from `start` for `days` days, as aware UTC datetimes: its
    daily posting times, or with `weekly` those (ISO weekday, hour) pairs instead."""
    tz = zoneinfo.ZoneInfo(profile.timezone_name)
    start = start or timezone.now()
    local_start = start.astimezone(tz)
    slots = []
    for offset in range(days + 1):
        day = (local_start + datetime.timedelta(days=offset)).date()
        if weekly is not None:
            times = [(hour, 0) for weekday, hour in weekly if weekday == day.isoweekday()]
        else:
            times = [(int(hhmm[:2]), int(hhmm[3:5])) for hhmm in profile.posting_times]  # validated "HH:MM"
        for hour, minute in times:
            local = datetime.datetime.combine(day, datetime.time(hour, minute), tzinfo=tz)
            if local > local_start:
                slots.append(local.astimezone(datetime.UTC))
    slots.sort()
    end = start + datetime.timedelta(days=days)
    return [s for s in slots if s <= end]


@transaction.atomic
def profile_access_revoked(
    *, platforms, external_id: str, user_id: str = "", report: list | None = None
) -> int:
    """The platform says the account's grant is gone (deauthorized, data deletion, TikTok's
    authorization.removed): its profiles are marked disconnected and their tokens (and a stored
    app password) deleted, each with a `profile.disconnected` event. A profile matches by its
    account id, or by the id of the person who granted access (``user_id``: Meta's app-scoped
    user id of a Facebook Page's admin). ``report`` receives ``{platform, username}`` of each.
    Returns how many were connected."""
    from django.db.models import Q

    match = Q(external_id=str(external_id))
    if user_id:
        match |= Q(platform_user_id=str(user_id))
    profiles = list(
        SocialProfile.objects.select_for_update().filter(match, platform__in=list(platforms), connected=True)
    )
    if not profiles:
        return 0
    SocialProfile.objects.filter(pk__in=[p.pk for p in profiles]).update(
        connected=False,
        access_token_enc="",
        refresh_token_enc="",
        secret_enc="",
        token_status="revoked",
        token_error="The account removed the app's access at the platform.",
        token_expires_at=None,
        updated_at=timezone.now(),
    )
    for profile in profiles:
        if report is not None:
            report.append({"platform": profile.platform, "username": profile.username})
        event_record(
            organization=profile.organization_id,
            type="profile.disconnected",
            data={"profileId": str(profile.pk), "platform": profile.platform, "reason": "access_revoked"},
        )
    return len(profiles)


def token_refreshable(profile: SocialProfile) -> bool:
    """Whether the service can renew the token itself before it expires (a refresh token, or
    a token that refreshes itself). LinkedIn apps outside the partner program get none: the
    member must reconnect by day 60."""
    return bool(profile.refresh_token_enc) or profile.platform in SELF_REFRESHING_PLATFORMS


def token_expiring_soon(
    profile: SocialProfile, *, now: datetime.datetime | None = None, days: int = TOKEN_WARN_DAYS[0]
) -> bool:
    """A valid token that nothing can refresh and that expires within ``days``."""
    if profile.sandbox or profile.token_status != "valid" or profile.token_expires_at is None:
        return False
    if token_refreshable(profile):
        return False
    return profile.token_expires_at <= (now or timezone.now()) + datetime.timedelta(days=days)


def profiles_move_brand(*, brand, successor) -> int:
    """A retiring brand's profiles go to its successor (brands.signals.brand_retiring), each
    with the `profile.updated` a change of brand through `profile_update` records."""
    moved = list(SocialProfile.objects.select_for_update().filter(brand=brand).values_list("pk", flat=True))
    SocialProfile.objects.filter(pk__in=moved).update(brand=successor, updated_at=timezone.now())
    for pk in moved:
        event_record(
            organization=successor.organization_id, type="profile.updated", data={"profileId": str(pk)}
        )
    return len(moved)
