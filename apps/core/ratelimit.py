"""Fixed-window rate limits per credential.

With Redis (CACHE_REDIS_URL, else REDIS_URL), the count is one atomic Lua script on Redis, so every web process
shares one exact count. Without it, a process-local counter under a lock.

Redis unreachable (a restart, an outage): the limits never answer 500. Each process counts
in its own local counter meanwhile (so a limit still holds per process, and a client never
gets more than the process count times its limit) and logs one warning per
RATE_LIMIT_REDIS_RETRY_SECONDS; Redis is tried again after that many seconds
(docs/decisions.md, 2026-11-29).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, TypeVar, cast

from django.conf import settings

from apps.core import redisconn

if TYPE_CHECKING:
    from redis import Redis
    from redis.commands.core import Script

_LUA = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


# Charge `cost` only when it fits: a refused request consumes nothing.
_CHARGE_LUA = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[2])
if cur + cost > tonumber(ARGV[3]) then return {0, cur} end
local n = redis.call('INCRBY', KEYS[1], cost)
if n == cost then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {1, n}
"""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    reset: int  # epoch seconds when the window ends

    @property
    def retry_after(self) -> int:
        return max(1, self.reset - int(time.time()))


def limit_for(bucket: str) -> int:
    limits: dict[str, int] = {
        "default": settings.RATE_LIMIT_DEFAULT,
        "generation": settings.RATE_LIMIT_GENERATION,
        "batch": settings.RATE_LIMIT_BATCH,
        "auth_failure": settings.AUTH_FAILURE_LIMIT,
    }
    return limits[bucket]


def _redis(url: str) -> Redis:
    return redisconn.client(url)


def _script(url: str) -> Script:
    return redisconn.script(url, _LUA)


logger = logging.getLogger(__name__)
T = TypeVar("T")
#: monotonic time until which Redis is not asked (it failed just before)
_redis_down_until = 0.0
#: seconds the local counters stand in after Redis failed (and between warnings)
REDIS_RETRY_SECONDS = 5.0


def _shared(call: Callable[[], T]) -> T | None:
    """``call()`` on Redis, or None while Redis is unreachable (logged once per retry period):
    the caller counts locally instead."""
    global _redis_down_until  # noqa: PLW0603 - one process-wide switch
    if not redisconn.cache_url() or time.monotonic() < _redis_down_until:
        return None
    from redis.exceptions import RedisError

    try:
        return call()
    except (RedisError, OSError) as exc:
        _redis_down_until = time.monotonic() + REDIS_RETRY_SECONDS
        logger.warning(
            "Redis is unreachable for rate limits (%s); counting in this process for %g s",
            exc,
            REDIS_RETRY_SECONDS,
        )
        return None


_local_lock = threading.Lock()
_local_counts: dict[str, tuple[int, int]] = {}


def _incr_local(key: str, window_end: int) -> int:
    with _local_lock:
        # the key names its window: an entry found is this window's
        _, count = _local_counts.get(key, (window_end, 0))
        count += 1
        _local_counts[key] = (window_end, count)
        if len(_local_counts) > 50_000:  # drop windows that have passed (one ending now has)
            now = int(time.time())
            for k in [k for k, (e, _) in _local_counts.items() if e <= now]:
                _local_counts.pop(k, None)
        return count


def hit(credential: str, bucket: str = "default", *, limit: int | None = None) -> Decision:
    """Count one request of ``bucket`` for ``credential`` and decide (against ``limit``, e.g.
    the organization's plan's, or the bucket's global figure)."""
    limit = limit_for(bucket) if limit is None else limit
    window = settings.RATE_LIMIT_WINDOW_SECONDS
    now = time.time()
    window_start = int(now // window * window)
    window_end = window_start + window
    key = f"pf:rl:{bucket}:{credential}:{window_start}"
    shared = _shared(lambda: int(_script(redisconn.cache_url())(keys=[key], args=[window + 1])))
    count = shared if shared is not None else _incr_local(key, window_end)
    return Decision(allowed=count <= limit, limit=limit, remaining=max(0, limit - count), reset=window_end)


def peek(credential: str, bucket: str, *, limit: int | None = None) -> Decision:
    """The current window's count for ``credential`` without counting this call."""
    limit = limit_for(bucket) if limit is None else limit
    window = settings.RATE_LIMIT_WINDOW_SECONDS
    window_start = int(time.time() // window * window)
    window_end = window_start + window
    key = f"pf:rl:{bucket}:{credential}:{window_start}"
    # redis-py types its commands for the sync and asyncio clients at once (`Awaitable | Any`)
    shared = _shared(lambda: int(cast("bytes | None", _redis(redisconn.cache_url()).get(key)) or 0))
    if shared is not None:
        count = shared
    else:
        with _local_lock:
            _, count = _local_counts.get(key, (window_end, 0))
    return Decision(allowed=count < limit, limit=limit, remaining=max(0, limit - count), reset=window_end)


@lru_cache(maxsize=1)
def _charge_script(url: str) -> Script:
    return _redis(url).register_script(_CHARGE_LUA)


def charge(credential: str, bucket: str, cost: int, *, limit: int | None = None) -> Decision:
    """Count `cost` requests of `bucket` at once if they all fit in this window; otherwise
    count nothing and refuse (a batch of N generations is N generations)."""
    limit = limit_for(bucket) if limit is None else limit
    window = settings.RATE_LIMIT_WINDOW_SECONDS
    window_start = int(time.time() // window * window)
    window_end = window_start + window
    key = f"pf:rl:{bucket}:{credential}:{window_start}"

    def shared_charge() -> tuple[bool, int]:
        ok, count = _charge_script(redisconn.cache_url())(keys=[key], args=[window + 1, cost, limit])
        return bool(int(ok)), int(count)

    shared = _shared(shared_charge)
    if shared is not None:
        ok, count = shared
    else:
        with _local_lock:
            _, count = _local_counts.get(key, (window_end, 0))
            ok = count + cost <= limit
            if ok:
                count += cost
                _local_counts[key] = (window_end, count)
    return Decision(allowed=ok, limit=limit, remaining=max(0, limit - count), reset=window_end)


def reset_local() -> None:
    global _redis_down_until  # noqa: PLW0603
    with _local_lock:
        _local_counts.clear()
    _redis_down_until = 0.0
