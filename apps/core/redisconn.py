"""One Redis client per URL for the process (rate limits, socket caps, worker heartbeats).

Redis has three roles, each with its own URL defaulting to REDIS_URL (docs/deploy.md): the
Celery broker (CELERY_BROKER_URL; worker heartbeats live there too), caches and rate limits
(CACHE_REDIS_URL; websocket caps too) and the channel layer (CHANNELS_REDIS_URL)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from redis import Redis
    from redis.commands.core import Script


def cache_url() -> str:
    """The Redis of caches, rate limits and websocket caps (CACHE_REDIS_URL, else REDIS_URL;
    "" in the embedded default: those count in the process)."""
    from django.conf import settings

    return str(getattr(settings, "CACHE_REDIS_URL", "") or settings.REDIS_URL)


def channels_url() -> str:
    """The Redis of the channel layer (CHANNELS_REDIS_URL, else REDIS_URL)."""
    from django.conf import settings

    return str(getattr(settings, "CHANNELS_REDIS_URL", "") or settings.REDIS_URL)


@lru_cache(maxsize=8)
def client(url: str) -> Redis:
    import redis

    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


@lru_cache(maxsize=16)
def script(url: str, lua: str) -> Script:
    """A registered Lua script on that client (EVALSHA, loaded again after a Redis restart)."""
    return client(url).register_script(lua)
