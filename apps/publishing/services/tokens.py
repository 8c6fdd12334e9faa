"""Token freshness before a platform call, and the refresh after a refusal."""

from __future__ import annotations

import datetime
import logging
from typing import Literal

from django.conf import settings
from django.utils import timezone

from apps.profiles.models import SocialProfile

from ..platforms.base import PlatformError

logger = logging.getLogger(__name__)


def _token_refresh(
    profile: SocialProfile,
    *,
    unless_valid_until: datetime.datetime | None = None,
    unless_access_changed_from: str = "",
) -> bool:
    """Refresh the profile's token now (its own transaction); the refreshed fields are copied
    onto ``profile``. False when the platform refused the refresh (the profile is then marked
    revoked or expired by the refresh itself) or could not be reached (nothing changes)."""
    from ..oauth import TokenRefreshFailed, profile_refresh_token

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
        "token_error",
    ):
        setattr(profile, field, getattr(fresh, field))
    return profile.token_status == "valid"


#: Google expires the refresh tokens of an app whose OAuth consent screen is in Testing 7 days
#: after consent (https://developers.google.com/identity/protocols/oauth2#expiration)
GOOGLE_TESTING_REFRESH_DAYS = 7


def refresh_refusal(profile: SocialProfile, detail: str, *, now: datetime.datetime) -> tuple[str, str]:
    """The token status and reason when the platform refused a refresh token (``invalid_grant``).

    A YouTube grant refused 7 days or more after the account connected is, most likely,
    Google's rule for apps whose consent screen is still in Testing: the profile is
    ``expired`` with that reason and the operator's fix, not a bare "revoked"."""
    said = f" ({detail})" if detail else ""
    connected = profile.connected_at
    if (
        profile.platform == "youtube"
        and connected is not None
        and now - connected >= datetime.timedelta(days=GOOGLE_TESTING_REFRESH_DAYS)
    ):
        days = (now - connected).days
        return "expired", (
            f"Google refused to refresh the token{said} {days} days after the account connected. Google "
            f"expires refresh tokens after {GOOGLE_TESTING_REFRESH_DAYS} days while the app's OAuth consent "
            "screen is in Testing: the operator sets it to In production (Google Cloud console, OAuth "
            "consent screen; docs/platforms.md), then the profile is reconnected."
        )
    return (
        "revoked",
        f"{profile.platform.capitalize()} refused to refresh the token{said}: reconnect the profile.",
    )


def token_fresh_for_use(profile: SocialProfile) -> SocialProfile:
    """A token that expires within TOKEN_REFRESH_BEFORE_USE_SECONDS is refreshed before use."""
    if profile.sandbox or profile.token_expires_at is None or profile.token_status != "valid":
        return profile
    soon = timezone.now() + datetime.timedelta(seconds=settings.TOKEN_REFRESH_BEFORE_USE_SECONDS)
    if profile.token_expires_at <= soon:
        _token_refresh(profile, unless_valid_until=soon)
    return profile


def token_refusal_reason(profile: SocialProfile, error: PlatformError) -> str:
    """The platform's refusal of a token, in words a person can act on (Graph: code/subcode)."""
    code = str(error.code or error.status_code or "")
    body = error.raw.get("error") if isinstance(error.raw, dict) else None
    subcode = body.get("error_subcode") if isinstance(body, dict) else None
    if subcode:
        code = f"{code}/{subcode}"
    return (
        f"{profile.platform.capitalize()} refused the token ({code}: {error.message[:300]}) and it "
        f"cannot be refreshed: reconnect the profile."
    )


def token_refused(profile: SocialProfile, error: PlatformError) -> Literal["refreshed", "dead", "later"]:
    """The platform refused the profile's token (a 401, Graph's 190): refresh it once.

    ``refreshed``: there is a new token to try. ``dead``: nothing can renew it (a Facebook Page
    token never refreshes, LinkedIn gives most apps no refresh token, or the platform refused
    the refresh): the profile is marked expired with the platform's reason, once, with its
    ``profile.token_expired`` event (and webhook). ``later``: the refresh could not be tried
    (network, the platform down): the grant stands."""
    from ..crypto import decrypt
    from ..oauth import profile_mark_token

    stale = decrypt(profile.access_token_enc)
    refreshed = _token_refresh(profile, unless_access_changed_from=stale)
    if profile.token_status != "valid":
        return "dead"
    if not refreshed:
        return "later"
    if decrypt(profile.access_token_enc) != stale:
        return "refreshed"
    # The refresh "succeeded" without a new token: the refused one is all there is.
    profile_mark_token(profile, "expired", token_refusal_reason(profile, error))
    return "dead"


def tokens_warn_expiring(*, now: datetime.datetime | None = None) -> int:
    """``profile.token_expiring`` (event and webhook) 7 days and 1 day before a token that
    nothing can renew expires (LinkedIn's 60-day token for apps without refresh tokens): once
    per warning per token (``platform_data.tokenWarned`` holds the days already announced for
    the current expiry; a new token starts again). Returns how many warnings were sent."""
    from django.db import transaction

    from apps.events.services import event_record
    from apps.profiles.services import TOKEN_WARN_DAYS, token_expiring_soon

    now = now or timezone.now()
    horizon = now + datetime.timedelta(days=max(TOKEN_WARN_DAYS))
    sent = 0
    candidates = SocialProfile.objects.filter(
        connected=True,
        sandbox=False,
        token_status="valid",
        token_expires_at__gt=now,
        token_expires_at__lte=horizon,
    ).values_list("pk", flat=True)
    for pk in list(candidates):
        with transaction.atomic():
            profile = SocialProfile.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if profile is None or profile.token_expires_at is None:
                continue
            expires = profile.token_expires_at.isoformat()
            warned = dict((profile.platform_data or {}).get("tokenWarned") or {})
            done = set(warned.get(expires) or [])
            due = [
                d for d in TOKEN_WARN_DAYS if d not in done and token_expiring_soon(profile, now=now, days=d)
            ]
            if not due:
                continue
            left = (profile.token_expires_at - now).total_seconds() / 86400
            event_record(
                organization=profile.organization_id,
                type="profile.token_expiring",
                data={
                    "profileId": str(profile.pk),
                    "platform": profile.platform,
                    "expiresAt": expires,
                    "daysLeft": round(left, 1),
                    "reason": (
                        f"The {profile.platform} token expires on {profile.token_expires_at:%Y-%m-%d %H:%M} UTC "
                        f"and cannot be renewed without the member: reconnect the profile before then."
                    ),
                },
            )
            profile.platform_data = {
                **(profile.platform_data or {}),
                "tokenWarned": {expires: sorted(done | set(due))},
            }
            profile.save(update_fields=["platform_data", "updated_at"])
            sent += 1
    return sent
