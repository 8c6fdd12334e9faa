"""Container healthchecks and exec probes, fast (no Django start): `python -m apps.core.probe`

- `worker`: this host's Celery worker beat its heartbeat key (`pf:worker:<name>@<hostname>`,
  apps.core.workers) within its expiry.
- `beat`: this host's beat did (`pf:beat:<hostname>`, config/celery.py).
- `http URL`: the URL answers 2xx (web's and ws's /readyz in compose).

Redis is CELERY_BROKER_URL, else REDIS_URL (the heartbeats live beside the broker). Exit 0 when
healthy, 1 with the reason on stderr otherwise."""

from __future__ import annotations

import os
import socket
import sys
import urllib.request

WORKER_PREFIX = "pf:worker:"
BEAT_PREFIX = "pf:beat:"


def _redis_url() -> str:
    return os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or ""


def heartbeat_alive(role: str, hostname: str | None = None) -> tuple[bool, str]:
    """Whether a heartbeat key of `role` (worker or beat) names this host."""
    import redis

    url = _redis_url()
    if not url.startswith("redis"):
        return False, f"no Redis broker configured ({url or 'unset'}): the heartbeat probe needs one"
    host = hostname or socket.gethostname()
    client = redis.Redis.from_url(url, socket_timeout=3, socket_connect_timeout=3)
    if role == "beat":
        found = client.exists(BEAT_PREFIX + host)
    else:
        found = any(
            key.decode().endswith("@" + host)
            for key in client.scan_iter(match=WORKER_PREFIX + "*", count=500)
        )
    return bool(found), f"{role} heartbeat for {host}: {'found' if found else 'missing'}"


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("worker", "beat", "http"):
        print("usage: python -m apps.core.probe worker|beat|http URL", file=sys.stderr)
        return 2
    try:
        if argv[0] == "http":
            with urllib.request.urlopen(argv[1], timeout=5) as answer:  # noqa: S310 - the operator's own URL
                return 0 if 200 <= answer.status < 300 else 1
        ok, why = heartbeat_alive(argv[0], argv[1] if len(argv) > 1 else None)
    except Exception as exc:  # a probe answers, it does not raise
        print(f"unhealthy: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 1
    if not ok:
        print(f"unhealthy: {why}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
