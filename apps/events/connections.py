"""Live websocket connections per credential and per organization (the caps).

Each open socket is a member of two sorted sets (its credential's and its organization's),
scored by the time it last said it was alive; a consumer refreshes its entries every
``HEARTBEAT_SECONDS`` and removes them on disconnect. Entries older than ``STALE_SECONDS``
belong to a process that died and are dropped before counting, so a crash never leaves a
credential locked out for longer than that. With Redis (CACHE_REDIS_URL, else REDIS_URL) the check-and-add is one Lua
script shared by every web process; without it (the embedded default: one process) a
process-local table under a lock.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time

from django.conf import settings

from apps.core import redisconn

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 60
STALE_SECONDS = 180

OK, CREDENTIAL_FULL, ORGANIZATION_FULL = 0, 1, 2

_LUA = """
local now = tonumber(ARGV[1])
local stale = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - stale)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - stale)
local cred_limit = tonumber(ARGV[4])
local org_limit = tonumber(ARGV[5])
if cred_limit > 0 and redis.call('ZCARD', KEYS[1]) >= cred_limit then return 1 end
if org_limit > 0 and redis.call('ZCARD', KEYS[2]) >= org_limit then return 2 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('EXPIRE', KEYS[1], stale)
redis.call('EXPIRE', KEYS[2], stale)
return 0
"""


def credential_group(credential_id: str) -> str:
    """The channel-layer group every socket of one credential joins (revocation goes there)."""
    return "cred." + hashlib.sha256(credential_id.encode()).hexdigest()[:40]


def _keys(credential_id: str, organization_id) -> list[str]:
    digest = hashlib.sha256(credential_id.encode()).hexdigest()[:40]
    return [f"pf:ws:cred:{digest}", f"pf:ws:org:{organization_id}"]


def _redis(url: str):
    return redisconn.client(url)


def _script(url: str):
    return redisconn.script(url, _LUA)


_lock = threading.Lock()
_local: dict[str, dict[str, float]] = {}


def register(*, credential_id: str, organization_id, channel_name: str) -> int:
    """Count this socket in; OK, or which cap it would exceed (the socket is then not counted)."""
    keys = _keys(credential_id, organization_id)
    cred_limit = settings.WS_MAX_CONNECTIONS_PER_CREDENTIAL
    org_limit = settings.WS_MAX_CONNECTIONS_PER_ORGANIZATION
    now = time.time()
    if redisconn.cache_url():
        return int(
            _script(redisconn.cache_url())(
                keys=keys, args=[now, STALE_SECONDS, channel_name, cred_limit, org_limit]
            )
        )
    with _lock:
        tables = [_local.setdefault(k, {}) for k in keys]
        for table in tables:
            for member in [m for m, seen in table.items() if seen < now - STALE_SECONDS]:
                del table[member]
        if cred_limit > 0 and len(tables[0]) >= cred_limit:
            return CREDENTIAL_FULL
        if org_limit > 0 and len(tables[1]) >= org_limit:
            return ORGANIZATION_FULL
        for table in tables:
            table[channel_name] = now
        return OK


def refresh(*, credential_id: str, organization_id, channel_name: str) -> None:
    keys = _keys(credential_id, organization_id)
    now = time.time()
    if redisconn.cache_url():
        pipe = _redis(redisconn.cache_url()).pipeline()
        for key in keys:
            pipe.zadd(key, {channel_name: now}, xx=True)
            pipe.expire(key, STALE_SECONDS)
        pipe.execute()
        return
    with _lock:
        for key in keys:
            if channel_name in _local.get(key, {}):
                _local[key][channel_name] = now


def unregister(*, credential_id: str, organization_id, channel_name: str) -> None:
    keys = _keys(credential_id, organization_id)
    if redisconn.cache_url():
        pipe = _redis(redisconn.cache_url()).pipeline()
        for key in keys:
            pipe.zrem(key, channel_name)
        pipe.execute()
        return
    with _lock:
        for key in keys:
            _local.get(key, {}).pop(channel_name, None)


def reset_local() -> None:
    with _lock:
        _local.clear()


def close_sockets_of(sender: object = None, *, credential_id: str, **kwargs: object) -> None:
    """A credential was revoked (apps.accounts.signals.credential_revoked): its open sockets
    close (each consumer in the group answers `credential.revoked`)."""
    from .realtime import group_send_many

    try:
        group_send_many([(credential_group(credential_id), {"type": "credential.revoked"})])
    except Exception:  # the channel layer is down: no socket can receive events either
        logger.warning("Could not notify the websockets of revoked %s", credential_id)
