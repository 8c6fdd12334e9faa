"""Scheduler benchmarks on real processes (PostgreSQL `postforge_bench`, a private Redis).

(a) throughput: 10,000 publications due at once on the sandbox publisher, 2 worker
    processes, next to Celery's own no-op task throughput measured in the same run
    (target: at least a quarter of it);
(b) lateness: 100 publications due in the same second while a steady load (half the
    throughput measured in (a), for 30 s) keeps the workers busy (target: p99 lateness after
    the due time at most 2 s);
(c) chaos: 2,000 publications due within a minute, two beats, workers SIGKILLed at random,
    Redis restarted once: none twice, none early, none lost.

    .venv/bin/python bench/scheduler.py [--n 10000] [--skip-chaos]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import noop_throughput, pct, setup_django  # noqa: E402


def setup() -> None:
    setup_django("postforge_bench")
    # leftovers of an interrupted run would compete with this one's publications
    from apps.publishing.models import Publication

    Publication.objects.filter(status__in=("scheduled", "queued", "publishing")).update(status="cancelled")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--skip-chaos", action="store_true")
    parser.add_argument("--only-a", action="store_true", help="throughput only (quick iterations)")
    args = parser.parse_args()
    setup()
    from tests.publishing.harness import Cluster, audit, make_due_publications, wait_until_terminal

    # (a) throughput ------------------------------------------------------------------------
    cluster = Cluster(workers=2, concurrency=2, beats=1, env={"PUBLISH_CONCURRENCY_DEFAULT": "64"}).start()
    try:
        time.sleep(3)
        noop = noop_throughput(cluster, 5000, "publishing")
        print(f"(a) celery no-op tasks: {noop:,.0f} tasks/s (2 workers x 2)", flush=True)
        org = make_due_publications(n=args.n, spread_seconds=0, start_in=2, profiles=50)
        t0 = time.perf_counter()
        counts = wait_until_terminal(org, timeout=900)
        elapsed = time.perf_counter() - t0 - 2
        report = audit(org)
        rate = counts["published"] / elapsed
        print(
            f"(a) {args.n:,} publications due at once: {rate:,.0f} publications/s ({elapsed:.1f} s); "
            f"ratio to no-op {rate / noop:.2f} (target >= 0.25); duplicates {len(report['duplicates'])}",
            flush=True,
        )

        if args.only_a:
            return
        # (b) lateness under load -------------------------------------------------------------
        # steady load: half of the throughput just measured, for 30 s; the probe lands mid-way
        load_rate = max(1, int(rate / 2))
        load = make_due_publications(n=load_rate * 30, spread_seconds=30, start_in=1, profiles=20)
        probe = make_due_publications(n=100, spread_seconds=0, start_in=15, profiles=10)
        wait_until_terminal(probe, timeout=300)
        wait_until_terminal(load, timeout=300)
        late = audit(probe)["lateness"]
        load_late = audit(load)["lateness"]
        print(
            f"(b) 100 due in the same second under a steady load of {load_rate} publications/s: lateness "
            f"p50 {pct(late, 50):.2f} s, p99 {pct(late, 99):.2f} s, max {max(late):.2f} s (target p99 <= 2 s); "
            f"the load's own p99 {pct(load_late, 99):.2f} s",
            flush=True,
        )
    finally:
        cluster.stop()

    if args.skip_chaos:
        return
    # (c) chaos -------------------------------------------------------------------------------
    org = make_due_publications(n=2000, spread_seconds=60, start_in=5, profiles=20)
    cluster = Cluster(workers=2, concurrency=2, beats=2).start()
    started = time.monotonic()
    state = {"redis": False}

    def chaos(counts):
        if time.monotonic() - started > 5 and random.random() < 0.1:
            cluster.kill_random_worker()
        if time.monotonic() - started > 30 and not state["redis"]:
            cluster.restart_redis()
            state["redis"] = True

    try:
        counts = wait_until_terminal(org, timeout=600, on_tick=chaos)
    finally:
        cluster.stop()
    report = audit(org)
    print(
        f"(c) chaos: {counts['published']} published, {counts['failed']} failed of 2000; workers killed {cluster.kills}, "
        f"redis restarts {cluster.redis_restarts}; duplicates {len(report['duplicates'])}, early {len(report['early'])}, "
        f"lateness p50 {pct(report['lateness'], 50):.1f} s p99 {pct(report['lateness'], 99):.1f} s"
    )


if __name__ == "__main__":
    main()
