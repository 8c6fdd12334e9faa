"""One machine keeps up with its own beat (issue 33): the embedded default (`manage.py serve`,
SQLite, the filesystem broker) before and after, in the same run.

- baseline: plain Celery beat (every tick sent), one worker for every queue and kombu's 1 s
  filesystem polling interval, as before;
- now: beat sends a periodic task only once its last copy started (apps/core/beat.py),
  generation has a worker of its own, and an idle worker looks for messages every 0.1 s.

For each: N generations posted through the API at once; generations per second (first post to
the last content out of pending/generating), the oldest queued message's age sampled every
second meanwhile (the filesystem broker's oldest message file), then 60 s at idle: messages
still queued and the oldest one's age at the end.

    .venv/bin/python bench/beat.py [--generations 100] [--idle 60]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _queue(var: Path) -> tuple[int, float]:
    """(messages queued, age in seconds of the oldest) in the filesystem broker."""
    now = time.time()
    ages = []
    for path in (var / "broker" / "in").glob("*.msg"):
        try:
            ages.append(now - path.stat().st_mtime)
        except FileNotFoundError:  # taken meanwhile
            continue
    return len(ages), max(ages, default=0.0)


def run(label: str, n: int, idle: float, **extra: str) -> dict:
    var = Path(tempfile.mkdtemp(prefix=f"pf-bench-beat-{label}-"))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(
        POSTFORGE_VAR_DIR=str(var),
        PYTHONPATH=str(ROOT),
        RATE_LIMIT_GENERATION="100000",
        RATE_LIMIT_DEFAULT="100000",
        **extra,
    )
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
    seeded = subprocess.run(
        [*manage, "seed_demo"], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    key = seeded.stdout.strip().splitlines()[-1]
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with open(var / "serve.out", "w") as out:
        proc = subprocess.Popen(
            [*manage, "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 180
        while "Postforge is up" not in (var / "serve.out").read_text():
            assert proc.poll() is None and time.monotonic() < deadline, (var / "serve.out").read_text()
            time.sleep(0.2)
        headers = {"Authorization": f"Bearer {key}"}
        started = time.monotonic()
        for i in range(n):
            answer = requests.post(
                f"{base}/v1/content/generate",
                headers=headers,
                json={"prompt": f"Bench post {i}: a quiet harbour at dawn", "platforms": ["x"]},
                timeout=60,
            )
            assert answer.status_code in (200, 201, 202), answer.text
        oldest_during, queued_during = 0.0, 0
        while True:
            count, age = _queue(var)
            oldest_during, queued_during = max(oldest_during, age), max(queued_during, count)
            page = requests.get(f"{base}/v1/content?limit=100", headers=headers, timeout=60).json()["data"]
            waiting = [c for c in page if c["status"] in ("pending", "generating")]
            if not waiting and len(page) >= min(n, 100):
                break
            assert time.monotonic() - started < 1200, "generations did not finish in 20 minutes"
            time.sleep(1.0)
        took = time.monotonic() - started
        time.sleep(idle)
        idle_count, idle_age = _queue(var)
        return {
            "label": label,
            "generations/s": n / took,
            "took s": took,
            "oldest queued during s": oldest_during,
            "max queued during": queued_during,
            "queued after idle": idle_count,
            "oldest after idle s": idle_age,
        }
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--generations", type=int, default=100)
    parser.add_argument("--idle", type=float, default=60.0)
    args = parser.parse_args()
    rows = [
        run(
            "baseline",
            args.generations,
            args.idle,
            CELERY_BEAT_SCHEDULER="celery.beat:PersistentScheduler",
            SERVE_GENERATION_WORKER="0",
            FILESYSTEM_BROKER_POLLING_INTERVAL="1",
        ),
        run("now", args.generations, args.idle),
    ]
    keys = list(rows[0])
    print(" | ".join(keys))
    for row in rows:
        print(" | ".join(f"{row[k]:.2f}" if isinstance(row[k], float) else str(row[k]) for k in keys))
    print(f"generations/s now / baseline: {rows[1]['generations/s'] / rows[0]['generations/s']:.2f}")


if __name__ == "__main__":
    main()
