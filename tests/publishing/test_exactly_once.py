"""Exactly once under faults: real beat and worker processes, SIGKILLed workers, Redis restarted.

1,000 publications due within 30 s (the issue asks for a minute; halved to keep the suite
short); bench/scheduler.py runs 2,000 within a minute.
"""

from __future__ import annotations

import random
import time

import pytest

from tests.publishing.harness import Cluster, audit, make_due_publications, wait_until_terminal

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_every_publication_goes_out_once_and_on_time_despite_killed_workers_and_a_redis_restart():
    org = make_due_publications(n=1000, spread_seconds=30, start_in=4)
    cluster = Cluster(workers=2, concurrency=2, beats=2).start()
    try:
        started = time.monotonic()
        events = {"redis": False}

        def chaos(counts):
            elapsed = time.monotonic() - started
            if elapsed > 3 and random.random() < 0.25 and cluster.kills < 6:
                cluster.kill_random_worker()
            if elapsed > 15 and not events["redis"]:
                cluster.restart_redis()
                events["redis"] = True

        counts = wait_until_terminal(org, timeout=150, on_tick=chaos)
    finally:
        cluster.stop()
    report = audit(org)
    assert cluster.kills >= 3 and cluster.redis_restarts == 1
    assert counts["published"] + counts["failed"] == 1000, counts
    assert report["duplicates"] == []
    assert report["early"] == []
    assert report["published_without_post"] == []
    assert report["failed_without_reason"] == []
    assert report["posts"] == counts["published"]
    assert counts["published"] == 1000  # the sandbox never refuses these posts
