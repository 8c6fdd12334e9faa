"""What several benchmarks share: percentiles and Celery's own no-op throughput as a baseline."""

from __future__ import annotations

import time
import uuid


def pct(values, p):
    """The p-th percentile (nearest rank) of values; NaN for none."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def noop_throughput(cluster, n: int, queue: str) -> float:
    """Tasks per second that the cluster's workers run of a task doing nothing but count (the baseline)."""
    import redis
    from celery import Celery

    app = Celery(broker=cluster.env["REDIS_URL"])
    key = f"bench:noop:{uuid.uuid4().hex}"
    client = redis.Redis(port=cluster.redis_port)
    started = time.perf_counter()
    with app.producer_or_acquire() as producer:
        for _ in range(n):
            app.send_task("bench.baseline.tasks.bench_noop", args=[key], queue=queue, producer=producer)
    while int(client.get(key) or 0) < n:
        time.sleep(0.02)
    return n / (time.perf_counter() - started)


def ensure_secrets() -> None:
    """Private secrets for this run's processes: every entry (web, worker, beat) refuses the
    public development defaults outside the embedded default (apps/core/secrets_policy.py)."""
    import os
    import secrets

    from cryptography.fernet import Fernet

    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("TOKEN_ENCRYPTION_KEYS", Fernet.generate_key().decode())
