"""Bluesky's video limits, read when a video is scheduled (issue 28).

Bluesky's video service caps each account's uploads per day (videos and bytes) and may refuse an
account outright (``app.bsky.video.getUploadLimits``: ``canUpload``, ``remainingDailyVideos``,
``remainingDailyBytes``, ``message``; https://docs.bsky.app/docs/tutorials/video). A schedule or
publish-now of a video to a Bluesky profile reads them first and refuses (422, the reason in
Bluesky's words) what the service would refuse now; the publish reads them again before the
upload. A video service that does not answer does not block the schedule (the publish checks).
"""

from __future__ import annotations

import logging

from apps.content.models import Content
from apps.content.selectors import current_media
from apps.core.errors import RuleViolation
from apps.profiles.models import SocialProfile

from ..platforms.base import PlatformError

logger = logging.getLogger(__name__)


def bluesky_video_check(*, content: Content, profiles: list[SocialProfile]) -> None:
    """Refuse a video for a Bluesky profile whose upload limits would refuse it now."""
    from ..platforms.bluesky import BlueskyClient
    from .clients import client_for
    from .tokens import token_fresh_for_use

    bluesky = [
        p for p in profiles if p.platform == "bluesky" and not p.sandbox and "bluesky" in content.platforms
    ]
    if not bluesky:
        return
    video = next((a for a in current_media(content) if a.media_type == "video"), None)
    if video is None or not video.file:
        return
    size = int(video.file.size)
    reasons: list[str] = []
    for profile in bluesky:
        if not profile.connected or profile.token_status != "valid":
            continue  # the schedule's own check names it
        client = client_for(token_fresh_for_use(profile))
        if not isinstance(client, BlueskyClient):  # pragma: no cover - Bluesky's client
            continue
        try:
            refusal = client.video_refusal(size)
        except PlatformError as exc:
            logger.warning("Bluesky's upload limits for %s were not read: %s", profile.username, exc.message)
            continue
        if refusal:
            reasons.append(f"{profile.username}: {refusal}")
    if reasons:
        raise RuleViolation(
            "Bluesky would refuse this video now: " + "; ".join(reasons), problems={"profile": reasons}
        )
