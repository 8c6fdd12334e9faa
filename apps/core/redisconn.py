"""One Redis client per URL for the process (rate limits, socket caps, worker heartbeats)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from redis import Redis
    from redis.commands.core import Script


@lru_cache(maxsize=8)
def client(url: str) -> Redis:
    import redis

    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


@lru_cache(maxsize=16)
def script(url: str, lua: str) -> Script:
    """A registered Lua script on that client (EVALSHA, loaded again after a Redis restart)."""
    return client(url).register_script(lua)
