"""Which client speaks for which platform: one entry per platform module.

The platform modules know only `base` (and `meta`); this module knows them all, and none of
them imports it back.
"""

from __future__ import annotations

from .base import PlatformClient
from .bluesky import BlueskyClient
from .facebook import FacebookClient
from .instagram import InstagramClient
from .linkedin import LinkedInClient
from .pinterest import PinterestClient
from .threads import ThreadsClient
from .tiktok import TikTokClient
from .x import XClient
from .youtube import YouTubeClient

CLIENTS: dict[str, type[PlatformClient]] = {
    cls.platform: cls
    for cls in (
        BlueskyClient,
        FacebookClient,
        InstagramClient,
        LinkedInClient,
        PinterestClient,
        ThreadsClient,
        TikTokClient,
        XClient,
        YouTubeClient,
    )
}


def get_client_class(platform: str) -> type[PlatformClient]:
    try:
        return CLIENTS[platform]
    except KeyError:
        raise KeyError(f"no platform client for {platform!r}") from None
