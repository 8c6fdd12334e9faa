"""What several benchmarks share: percentiles and Celery's own no-op throughput as a baseline."""

from __future__ import annotations

import time
import uuid


def pct(values, p):
    """The p-th percentile (nearest rank) of values; NaN for none."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


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


def setup_django(database: str, **env: str) -> None:
    """Django on the bench's own database (created when missing, migrated), with the
    bench.baseline app that the workers' baseline tasks live in, private secrets, and `env`."""
    import os

    # BENCH_DATABASE_URL names the database (each engineer's own); `database` when it is unset
    url = os.environ.get("BENCH_DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    ensure_database(url)
    os.environ["DATABASE_URL"] = url
    os.environ["POSTFORGE_BENCH_VIEWS"] = "1"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.update(env)
    ensure_secrets()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def ensure_database(url: str) -> None:
    """Create the benchmark's PostgreSQL database when it is missing (a fresh machine)."""
    import subprocess

    name = url.rsplit("/", 1)[1].split("?", 1)[0]
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-c", f"CREATE DATABASE {name}"],
        capture_output=True,
        check=False,
    )


def free_port() -> int:
    """A TCP port nothing listens on now (the OS picks it)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
