"""Worker liveness: each Celery worker's main process refreshes a key in Redis
(`pf:worker:<hostname>`, expiring after three intervals) every WORKER_HEARTBEAT_SECONDS;
/readyz and the admin count the live ones. On the embedded default's filesystem broker (no
Redis) the heartbeat is a file, `var/workers/<hostname>.json`, with the same expiry.

The same thread watches the worker's consumer. Celery's Redis consumer can reconnect after a
broker restart and then take nothing more (celery/celery#8030, #9054, #10205: still reported on
5.6): the worker looks alive while its queues fill. When the worker has had a free pool slot,
its queues have held messages and it has received none, all for WORKER_STALL_SECONDS, it
logs why and exits (warm shutdown, then a hard exit) so that its supervisor (compose's
restart policy, systemd, Kubernetes) starts a fresh one. Nothing is lost: tasks are
acknowledged late, and every job has a lease and a sweep."""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings

from apps.core import redisconn

if TYPE_CHECKING:
    from redis import Redis

logger = logging.getLogger(__name__)
PREFIX = "pf:worker:"


def _redis() -> Redis:
    return redisconn.client(settings.CELERY_BROKER_URL)


def _on_redis() -> bool:
    return str(settings.CELERY_BROKER_URL).startswith("redis")


def _folder() -> Path:
    """The embedded default's heartbeats (one JSON file per worker)."""
    return Path(settings.VAR_DIR) / "workers"


def beat_once(hostname: str, queues: list[str], concurrency: int = 1) -> None:
    interval = settings.WORKER_HEARTBEAT_SECONDS
    now, ttl = time.time(), max(1, int(interval * 3))
    record = {"at": now, "queues": queues, "concurrency": concurrency}
    if _on_redis():
        _redis().set(PREFIX + hostname, json.dumps(record), ex=ttl)
        return
    folder = _folder()
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{hostname}.{os.getpid()}.tmp"
    partial.write_text(json.dumps({**record, "expires": now + ttl}))
    partial.replace(folder / f"{hostname}.json")  # readers see the old beat or the new one


def forget(hostname: str) -> None:
    """Drop a worker's heartbeat (it stopped cleanly; tests clean up theirs)."""
    if _on_redis():
        _redis().delete(PREFIX + hostname)
    else:
        (_folder() / f"{hostname}.json").unlink(missing_ok=True)


class StallWatch:
    """Whether a worker's consumer has stopped taking messages (see the module's doc)."""

    def __init__(
        self,
        *,
        queues: list[str],
        concurrency: int,
        stall_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.queues, self.concurrency, self.stall_seconds, self.clock = (
            queues,
            concurrency,
            stall_seconds,
            clock,
        )
        self.last_received = clock()
        self.stalled_since: float | None = None

    def received(self) -> None:
        self.last_received = self.clock()

    def check(self, *, reserved: int, waiting: int) -> bool:
        """One look: `reserved` tasks held by this worker, `waiting` messages in its queues.
        True once every look for `stall_seconds` found room and work waiting and no message
        arrived meanwhile."""
        now = self.clock()
        if reserved >= self.concurrency or waiting == 0:
            self.stalled_since = None  # busy, or nothing to take: not stalled
            return False
        if self.stalled_since is None or self.stalled_since < self.last_received:
            self.stalled_since = now
            return False
        return now - self.stalled_since >= self.stall_seconds


def queued_messages(queues: list[str]) -> int:
    """Messages waiting in these queues of the Redis broker (every priority step)."""
    from kombu.transport.redis import PRIORITY_STEPS, Channel

    client = _redis()
    with client.pipeline() as pipe:
        for queue in queues:
            for pri in PRIORITY_STEPS:
                pipe.llen(f"{queue}{Channel.sep}{pri}" if pri else queue)
        return sum(n for n in pipe.execute() if isinstance(n, int))


_watch: dict[str, StallWatch] = {}  # this process's, under "current"


def note_received(**kwargs: Any) -> None:
    """A task message reached this worker's consumer (Celery's task_received / task_revoked)."""
    watch = _watch.get("current")
    if watch is not None:
        watch.received()


def _exit_stalled(hostname: str) -> None:
    logger.error(
        "Worker %s has taken no task for %.0f s while its queues hold messages and it has room: "
        "its broker consumer is stuck; exiting so that its supervisor starts a fresh one",
        hostname,
        settings.WORKER_STALL_SECONDS,
    )
    os.kill(os.getpid(), signal.SIGTERM)  # warm shutdown: running tasks finish
    time.sleep(settings.WORKER_STALL_EXIT_GRACE_SECONDS)
    os._exit(70)  # the shutdown itself hung on the broken consumer


def start(hostname: str, queues: list[str], concurrency: int = 1) -> threading.Thread | None:
    if not _on_redis():
        return _start_heartbeat_only(hostname, queues, max(1, concurrency))
    watch = _watch["current"] = StallWatch(
        queues=queues, concurrency=max(1, concurrency), stall_seconds=settings.WORKER_STALL_SECONDS
    )

    def loop() -> None:
        from celery.worker import state

        while True:
            try:
                beat_once(hostname, queues, max(1, concurrency))
            except Exception:  # Redis restarting: the next beat writes it again
                logger.debug("worker heartbeat failed", exc_info=True)
            if watch.stall_seconds > 0:
                try:
                    stalled = watch.check(
                        reserved=len(state.reserved_requests), waiting=queued_messages(queues)
                    )
                except Exception:  # Redis restarting: no verdict this time
                    logger.debug("worker stall check failed", exc_info=True)
                    stalled = False
                if stalled:
                    _exit_stalled(hostname)
                    return
            time.sleep(min(settings.WORKER_HEARTBEAT_SECONDS, max(1.0, watch.stall_seconds / 6)))

    thread = threading.Thread(target=loop, daemon=True, name="worker-heartbeat")
    thread.start()
    return thread


def alive() -> list[dict]:
    """The live workers: [{name, queues, concurrency, age}]."""
    if not _on_redis():
        return _alive_in_files()
    client = _redis()
    found = []
    keys = list(client.scan_iter(match=PREFIX + "*", count=200))
    now = time.time()
    # redis-py types its commands for the sync and asyncio clients at once (`Awaitable | Any`)
    values = cast("list[bytes | None]", client.mget(keys)) if keys else []
    for key, raw in zip(keys, values, strict=False):
        if raw is None:
            continue
        data = json.loads(raw)
        found.append(
            {
                "name": key.decode()[len(PREFIX) :],
                "queues": data.get("queues", []),
                "concurrency": int(data.get("concurrency") or 1),
                "age": round(now - data.get("at", now), 1),
            }
        )
    return sorted(found, key=lambda w: w["name"])


def _start_heartbeat_only(hostname: str, queues: list[str], concurrency: int) -> threading.Thread:
    """The embedded default's worker: its heartbeat file (the stall watch reads Redis queues)."""

    def loop() -> None:
        while True:
            try:
                beat_once(hostname, queues, concurrency)
            except OSError:  # a full or read-only disk: the next beat tries again
                logger.debug("worker heartbeat failed", exc_info=True)
            time.sleep(settings.WORKER_HEARTBEAT_SECONDS)

    thread = threading.Thread(target=loop, daemon=True, name="worker-heartbeat")
    thread.start()
    return thread


def _alive_in_files() -> list[dict]:
    now = time.time()
    found = []
    for path in sorted(_folder().glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):  # removed meanwhile, or a partial file of another writer
            continue
        if data.get("expires", 0) <= now:
            continue
        found.append(
            {
                "name": path.name[: -len(".json")],
                "queues": data.get("queues", []),
                "concurrency": int(data.get("concurrency") or 1),
                "age": round(now - data["at"], 1),
            }
        )
    return found
