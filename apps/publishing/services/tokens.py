"""Token freshness before a platform call, and the refresh after a refusal."""

from __future__ import annotations

import datetime
import logging

from django.conf import settings
from django.utils import timezone

from apps.profiles.models import SocialProfile

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
