"""TikTok's creator choices: what a client's composer shows, and what each post must carry.

TikTok's content sharing guidelines (https://developers.tiktok.com/doc/content-sharing-guidelines)
ask a Direct Post app to read ``creator_info`` before each post, to show the creator's nickname
and avatar, to let the creator pick the privacy level from ``privacy_level_options`` with no
default, to offer the comment, duet and stitch toggles the creator has not disabled, and to
post only after the creator's explicit consent. So every TikTok publication carries
``options.tiktok``: ``privacyLevel`` (one of the creator's current options), ``consent: true``
and the interaction toggles; a schedule or publish without them is refused (400) before
anything is scheduled, and one whose level the creator no longer offers is refused with the
options there are. ``tiktok_creator_info`` is what the composer reads (both API families).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from django.conf import settings

from apps.core.errors import InvalidSubject, PlatformFailure, Problem, RuleViolation
from apps.platforms.gates import connect_notice, tiktok_privacy_refusal
from apps.profiles.models import SocialProfile

from ..platforms.base import PlatformError
from ..platforms.tiktok import TIKTOK_PRIVACY_LEVELS

#: what the sandbox answers for creator_info (its posts go nowhere; every level is offered)
SANDBOX_MAX_SECONDS = 600


class CreatorInfo(TypedDict):
    nickname: str
    username: str
    avatar_url: str
    privacy_level_options: list[str]
    max_video_post_duration_sec: int | None
    comment_disabled: bool
    duet_disabled: bool
    stitch_disabled: bool
    app_audited: bool
    notice: str | None


def _read_creator_info(profile: SocialProfile) -> dict[str, Any]:
    from ..platforms.tiktok import TikTokClient
    from .clients import client_for
    from .tokens import token_fresh_for_use

    if profile.sandbox:
        return {
            "creator_nickname": profile.display_name or profile.username,
            "creator_username": profile.username,
            "creator_avatar_url": profile.picture_url,
            "privacy_level_options": list(TIKTOK_PRIVACY_LEVELS),
            "max_video_post_duration_sec": SANDBOX_MAX_SECONDS,
            "comment_disabled": False,
            "duet_disabled": False,
            "stitch_disabled": False,
        }
    if not profile.connected or profile.token_status != "valid":
        reason = f" ({profile.token_error})" if profile.token_error else ""
        raise RuleViolation(
            f"{profile.username} needs to be reconnected before TikTok can be asked about it{reason}.",
            problems={"profile": [f"{profile.username}: {profile.token_status}{reason}"]},
        )
    client = client_for(token_fresh_for_use(profile))
    if not isinstance(client, TikTokClient):  # pragma: no cover - client_for returns TikTok's client
        raise PlatformFailure("This profile has no TikTok client.")
    try:
        return client.creator_info()
    except PlatformError as exc:
        raise PlatformFailure(
            f"TikTok did not answer creator_info for {profile.username}: {exc.message}",
            {"platformCode": str(exc.code or exc.status_code or "")},
        ) from None


def tiktok_creator_info(*, profile: SocialProfile) -> CreatorInfo:
    """The creator's current posting options, read from TikTok (``creator_info/query``)."""
    if profile.platform != "tiktok":
        raise InvalidSubject(
            "Creator info is TikTok's: this profile is on another platform.",
            "profile",
            f"{profile.username} is on {profile.platform}, not tiktok.",
        )
    raw = _read_creator_info(profile)
    max_seconds = raw.get("max_video_post_duration_sec")
    return {
        "nickname": str(raw.get("creator_nickname") or ""),
        "username": str(raw.get("creator_username") or profile.username),
        "avatar_url": str(raw.get("creator_avatar_url") or ""),
        "privacy_level_options": [str(o) for o in raw.get("privacy_level_options") or []],
        "max_video_post_duration_sec": int(max_seconds) if max_seconds else None,
        "comment_disabled": bool(raw.get("comment_disabled")),
        "duet_disabled": bool(raw.get("duet_disabled")),
        "stitch_disabled": bool(raw.get("stitch_disabled")),
        "app_audited": bool(getattr(settings, "TIKTOK_APP_AUDITED", False)),
        "notice": connect_notice("tiktok", sandbox=profile.sandbox),
    }


def tiktok_choices_check(
    *,
    platforms: list[str],
    profiles: list[SocialProfile],
    options: dict[str, Any],
    read: Callable[..., CreatorInfo] | None = None,
) -> None:
    """Refuse, before anything is scheduled, a TikTok post without the creator's choices: the
    privacy level (one of TikTok's, allowed by the app's audit status, among the creator's
    current options) and the consent. Other platforms' profiles pass untouched, as do TikTok
    profiles the content was not made for (the schedule's own check names those)."""
    tiktok = [p for p in profiles if p.platform == "tiktok" and "tiktok" in platforms]
    if not tiktok:
        return
    chosen = options.get("tiktok")
    chosen = chosen if isinstance(chosen, dict) else {}
    level = chosen.get("privacyLevel")
    problems: dict[str, Problem] = {}
    if not level:
        problems["tiktok_privacy_level"] = (
            "Required for a TikTok post (TikTok has no default): one of the creator's "
            "privacy_level_options (GET the profile's tiktok/creator-info)."
        )
    elif level not in TIKTOK_PRIVACY_LEVELS:
        problems["tiktok_privacy_level"] = f"Must be one of {', '.join(TIKTOK_PRIVACY_LEVELS)}."
    if chosen.get("consent") is not True:
        problems["tiktok_consent"] = (
            "Must be true: the creator agreed to post this content to TikTok (TikTok's content "
            "sharing guidelines ask for explicit consent before each post)."
        )
    if problems:
        raise InvalidSubject(
            "A TikTok post needs the creator's own choice of privacy level (TikTok has no default) and "
            "the creator's consent.",
            problems=problems,
        )
    gated = [r for p in tiktok if (r := tiktok_privacy_refusal(str(level), sandbox=p.sandbox))]
    if gated:
        raise RuleViolation(gated[0], problems={"tiktok_privacy_level": gated[0]})
    for profile in tiktok:
        offered = (read or tiktok_creator_info)(profile=profile)["privacy_level_options"]
        if level not in offered:
            problem = (
                f"{profile.username} can post on TikTok only as {', '.join(offered) or 'nothing'} "
                f"now, not {level}."
            )
            raise InvalidSubject(problem, "tiktok_privacy_level", problem)
