"""The metric registry: per platform, which names its current API accepts, what they
mean in our vocabulary, which names are retired (and since when), and the windows in
which the platform answers at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta


@dataclass(frozen=True)
class PlatformMetrics:
    api_version: str
    #: platform name -> our name, as the current version accepts them
    metrics: dict[str, str]
    #: retired platform name -> (replacement platform name, since version)
    retired: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the platform answers for posts younger than this (None: always)
    window: timedelta | None = None
    #: metrics only answered for posts younger than this (X's non-public metrics)
    recent_only: tuple[tuple[str, ...], timedelta] | None = None
    #: the publication's external id must be resolved before metrics exist (TikTok publish id)
    resolve_id_first: bool = False


REGISTRY: dict[str, PlatformMetrics] = {
    "instagram": PlatformMetrics(
        api_version="v22.0",
        metrics={
            "views": "views",
            "reach": "reach",
            "likes": "likes",
            "comments": "comments",
            "shares": "shares",
            "saved": "saves",
        },
        retired={
            "impressions": ("views", "v22.0"),
            "plays": ("views", "v22.0"),
            "video_views": ("views", "v22.0"),
            "clips_replays_count": ("views", "v22.0"),
        },
    ),
    "facebook": PlatformMetrics(
        api_version="v22.0",
        metrics={
            "post_media_view": "views",
            "post_total_media_view_unique": "reach",
            "post_clicks": "clicks",
        },
        retired={
            "post_impressions": ("post_media_view", "v22.0"),
            "post_impressions_unique": ("post_total_media_view_unique", "v22.0"),
            "page_impressions": ("page_media_view", "v22.0"),
            "page_impressions_unique": ("page_total_media_view_unique", "v22.0"),
        },
    ),
    "threads": PlatformMetrics(
        api_version="v1.0",
        metrics={
            "views": "views",
            "likes": "likes",
            "replies": "replies",
            "reposts": "reposts",
            "quotes": "quotes",
            "shares": "shares",
        },
    ),
    "x": PlatformMetrics(
        api_version="2",
        metrics={
            "impression_count": "impressions",
            "like_count": "likes",
            "reply_count": "replies",
            "retweet_count": "reposts",
            "quote_count": "quotes",
            "bookmark_count": "saves",
            "url_link_clicks": "clicks",
            "user_profile_clicks": "clicks",
        },
        recent_only=(("url_link_clicks", "user_profile_clicks"), timedelta(days=30)),
    ),
    "linkedin": PlatformMetrics(
        api_version="202502",
        metrics={
            "IMPRESSION": "impressions",
            "MEMBERS_REACHED": "reach",
            "REACTION": "likes",
            "COMMENT": "comments",
            "RESHARE": "shares",
        },
    ),
    "pinterest": PlatformMetrics(
        api_version="v5",
        metrics={
            "IMPRESSION": "impressions",
            "SAVE": "saves",
            "PIN_CLICK": "clicks",
            "TOTAL_COMMENTS": "comments",
            "TOTAL_REACTIONS": "likes",
        },
        window=timedelta(days=90),
    ),
    "tiktok": PlatformMetrics(
        api_version="v2",
        metrics={
            "view_count": "views",
            "like_count": "likes",
            "comment_count": "comments",
            "share_count": "shares",
        },
        resolve_id_first=True,
    ),
    "youtube": PlatformMetrics(
        api_version="v3",
        metrics={"viewCount": "views", "likeCount": "likes", "commentCount": "comments"},
    ),
    "sandbox": PlatformMetrics(
        api_version="1",
        metrics={
            "views": "views",
            "reach": "reach",
            "likes": "likes",
            "comments": "comments",
            "shares": "shares",
            "saves": "saves",
        },
    ),
}


def for_platform(platform: str) -> PlatformMetrics:
    return REGISTRY.get(platform) or REGISTRY["sandbox"]


def current_name(platform: str, name: str) -> str:
    """A retired name's replacement (a name still current is returned as is)."""
    spec = for_platform(platform)
    return spec.retired.get(name, (name, ""))[0]
