"""Celery beat that keeps up on one machine and says it is alive (issue 33).

- **One queued copy per periodic task.** Before sending a tick, beat takes a marker for the task
  (`pf:tick:<task>` in the broker's Redis, SET NX with an expiry; in the embedded default a file
  in var/ticks/); a worker drops it when it receives the task (or starts it, or the copy
  expires unstarted). While the previous copy still waits in its queue, the tick is skipped: a
  slow or stopped worker finds one message per periodic task waiting, not thousands (the soak of
  issue 33 had 360-400 queued at idle), and the backlog drains. A copy lost with the Redis it
  waited in loses its marker with it; one lost otherwise frees it when the marker expires.
  Two beats share the markers, so a second beat does not double the queue either.
- **Heartbeat.** Every loop refreshes `pf:beat:<hostname>` (or var/beats/<hostname>.json), read by
  compose's healthcheck and the Kubernetes liveness probe (apps.core.probe).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from pathlib import Path
from typing import Any, cast

from celery.beat import PersistentScheduler, ScheduleEntry
from django.conf import settings

from apps.core import redisconn

logger = logging.getLogger(__name__)
TICK_PREFIX = "pf:tick:"
BEAT_PREFIX = "pf:beat:"


def _on_redis() -> bool:
    return str(settings.CELERY_BROKER_URL).startswith("redis")


def _tick_folder() -> Path:
    folder = Path(settings.VAR_DIR) / "ticks"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def marker_ttl(entry: ScheduleEntry) -> int:
    """How long a sent tick blocks the next: ten intervals, at least BEAT_TICK_MARKER_MIN_SECONDS
    (a copy lost with a killed worker is sent again after this)."""
    try:
        interval = float(entry.schedule.run_every.total_seconds())
    except AttributeError:  # crontab and solar schedules
        interval = 60.0
    return int(max(settings.BEAT_TICK_MARKER_MIN_SECONDS, interval * 10))


def claim_tick(task: str, ttl: int) -> bool:
    """Take the marker of `task`: False while a sent copy has not started yet."""
    if _on_redis():
        return bool(
            redisconn.client(settings.CELERY_BROKER_URL).set(TICK_PREFIX + task, "1", nx=True, ex=ttl)
        )
    path = _tick_folder() / task
    try:
        if time.time() - path.stat().st_mtime < ttl:
            return False
        path.unlink(missing_ok=True)  # expired: its copy was lost
    except FileNotFoundError:
        pass
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    except FileExistsError:  # another beat took it meanwhile
        return False
    return True


def release_tick(task: str) -> None:
    """A worker received `task`: the next tick may be sent."""
    try:
        if _on_redis():
            redisconn.client(settings.CELERY_BROKER_URL).delete(TICK_PREFIX + task)
        else:
            (_tick_folder() / task).unlink(missing_ok=True)
    except Exception:  # Redis away: the marker expires by itself
        logger.debug("could not release the tick marker of %s", task, exc_info=True)


def queued_ticks() -> list[str]:
    """The periodic tasks with a copy sent and not yet started."""
    if _on_redis():
        # redis-py types its commands for the sync and asyncio clients at once (`Awaitable | Any`)
        keys = cast("list[bytes]", redisconn.client(settings.CELERY_BROKER_URL).keys(TICK_PREFIX + "*"))
        return sorted(k.decode()[len(TICK_PREFIX) :] for k in keys)
    return sorted(p.name for p in _tick_folder().iterdir())


def heartbeat(hostname: str | None = None) -> None:
    host = hostname or socket.gethostname()
    ttl = max(1, int(settings.WORKER_HEARTBEAT_SECONDS * 3))
    record = json.dumps({"at": time.time(), "pid": os.getpid()})
    if _on_redis():
        redisconn.client(settings.CELERY_BROKER_URL).set(BEAT_PREFIX + host, record, ex=ttl)
        return
    folder = Path(settings.VAR_DIR) / "beats"
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{host}.{os.getpid()}.tmp"
    partial.write_text(record)
    partial.replace(folder / f"{host}.json")


class Scheduler(PersistentScheduler):
    """PersistentScheduler (the schedule file of `-s`) with the tick markers and the heartbeat."""

    _last_beat = 0.0

    def tick(self, *args: Any, **kwargs: Any) -> float:
        now = time.monotonic()
        if now - self._last_beat >= min(5.0, settings.WORKER_HEARTBEAT_SECONDS):
            try:
                heartbeat()
                self._last_beat = now
            except Exception:  # Redis restarting: the next loop writes it again
                logger.debug("beat heartbeat failed", exc_info=True)
        return float(super().tick(*args, **kwargs))

    def apply_entry(self, entry: ScheduleEntry, producer: Any = None) -> None:
        try:
            claimed = claim_tick(entry.task, marker_ttl(entry))
        except Exception:  # the marker store is away: send, as plain beat would
            logger.debug("tick marker unavailable for %s", entry.task, exc_info=True)
            claimed = True
        if not claimed:
            logger.debug("Scheduler: %s still queued from its last tick; not sent again", entry.name)
            return
        super().apply_entry(entry, producer=producer)
