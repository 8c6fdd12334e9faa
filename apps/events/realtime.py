"""Sending to the channel layer from synchronous code (workers, views).

`async_to_sync(layer.group_send)` starts a fresh event loop for every call, and
channels-redis keeps its connection pool per loop: every message then paid for a new Redis
connection and a thread (about 3.5 ms a group here). With the Redis layer we keep one event
loop per process in a daemon thread and hand it all of a call's group sends at once, so the
connections stay open and one call costs one round of sends. Other layers (the in-memory one
of the embedded default) keep `async_to_sync`: their queues belong to the consumer's loop.
"""

from __future__ import annotations

import asyncio
import os
import threading

from asgiref.sync import async_to_sync

_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid: int | None = None

SEND_TIMEOUT_SECONDS = 10.0


def _process_loop() -> asyncio.AbstractEventLoop:
    """This process's sender loop (a forked child starts its own)."""
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid() or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="channel-layer-sender", daemon=True)
            thread.start()
            _loop, _loop_pid = loop, os.getpid()
        return _loop


def _uses_redis(layer) -> bool:
    """A channels-redis layer (or ours built on one: apps.events.layers)."""
    return any(cls.__module__.startswith("channels_redis") for cls in type(layer).__mro__)


async def _send_all(layer, sends: list[tuple[str, dict]]) -> None:
    for group, message in sends:
        await layer.group_send(group, message)


def group_send_many(sends: list[tuple[str, dict]]) -> None:
    """Send each (group, message) through the default channel layer; raises on failure."""
    if not sends:
        return
    from channels.layers import get_channel_layer

    from . import tap

    for payload in {id(m["payload"]): m["payload"] for _, m in sends if "payload" in m}.values():
        tap.record(payload, family=None)

    layer = get_channel_layer()
    if layer is None:
        return
    if not _uses_redis(layer):
        async_to_sync(_send_all)(layer, sends)
        return
    future = asyncio.run_coroutine_threadsafe(_send_all(layer, sends), _process_loop())
    try:
        future.result(timeout=SEND_TIMEOUT_SECONDS)
    except TimeoutError:
        future.cancel()  # the caller releases the claim and the sweep sends again: stop this round
        raise
