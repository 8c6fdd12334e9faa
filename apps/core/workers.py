"""Worker liveness: each Celery worker's main process refreshes a key in Redis
(`pf:worker:<hostname>`, expiring after three intervals) every WORKER_HEARTBEAT_SECONDS;
/readyz and the admin count the live ones."""

from __future__ import annotations

import json
import logging
import threading
import time

from django.conf import settings

from apps.core import redisconn

logger = logging.getLogger(__name__)
PREFIX = "pf:worker:"


def _redis():
    return redisconn.client(settings.CELERY_BROKER_URL)


def beat_once(hostname: str, queues: list[str]) -> None:
    interval = settings.WORKER_HEARTBEAT_SECONDS
    _redis().set(PREFIX + hostname, json.dumps({"at": time.time(), "queues": queues}), ex=max(1, int(interval * 3)))


def start(hostname: str, queues: list[str]) -> threading.Thread | None:
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        return None

    def loop():
        while True:
            try:
                beat_once(hostname, queues)
            except Exception:  # Redis restarting: the next beat writes it again
                logger.debug("worker heartbeat failed", exc_info=True)
            time.sleep(settings.WORKER_HEARTBEAT_SECONDS)

    thread = threading.Thread(target=loop, daemon=True, name="worker-heartbeat")
    thread.start()
    return thread


def alive() -> list[dict]:
    """The live workers: [{name, queues, age}] (empty without a Redis broker)."""
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        return []
    client = _redis()
    found = []
    keys = list(client.scan_iter(match=PREFIX + "*", count=200))
    now = time.time()
    for key, raw in zip(keys, client.mget(keys) if keys else [], strict=False):
        if raw is None:
            continue
        data = json.loads(raw)
        found.append({"name": key.decode()[len(PREFIX):], "queues": data.get("queues", []),
                      "age": round(now - data.get("at", now), 1)})
    return sorted(found, key=lambda w: w["name"])
