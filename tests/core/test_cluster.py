"""A one-machine cluster (issue 33): two gunicorn web processes, the three worker groups and two
beats, all on PostgreSQL through PgBouncer in transaction mode (a pool of 4 server
connections) with PGBOUNCER set, and a private Redis. 300 posts fall due within 20 s; meanwhile
a beat is SIGKILLed, the publishing worker is stopped with SIGTERM (its soft shutdown), Redis
restarts and PgBouncer is down for 5 s. Every post goes out exactly once, and an
Idempotency-Key sent to both web replicas creates one object.

Not covered here (said so in the report): two uvicorn ws replicas with each websocket event
received once, webhook deliveries, token refreshes and metric pulls under the same chaos."""

from __future__ import annotations

import signal
import time

import pytest
import requests
from django.db import connection

from tests import pgbouncer as pgb
from tests.live import wsgi_server
from tests.publishing.harness import Cluster, audit, make_due_publications, wait_until_terminal

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
GROUPS = ["default,publishing,analytics", "generation", "webhooks"]


def test_two_web_three_worker_groups_two_beats_through_pgbouncer_with_chaos_publish_exactly_once(owner):
    assert pgb.available(), "install Debian's pgbouncer (make test does)"
    db = connection.settings_dict
    bouncer = pgb.PgBouncer(database=db["NAME"], pool_size=4).start()
    url = f"postgres://{db['USER']}@127.0.0.1:{bouncer.port}/{db['NAME']}"
    org = make_due_publications(n=300, spread_seconds=20, start_in=8)
    cluster = Cluster(
        workers=3,
        concurrency=2,
        beats=2,
        worker_queues=GROUPS,
        env={
            "DATABASE_URL": url,
            "PGBOUNCER": "1",
            "REMAP_SIGTERM": "SIGQUIT",
            "CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT": "5",
        },
    )
    redis_url = cluster.env["REDIS_URL"]
    web = dict(DATABASE_URL=url, PGBOUNCER="1", REDIS_URL=redis_url, CONN_MAX_AGE="60")
    try:
        # the web replicas first (their start is the slowest part on a loaded machine), then
        # Redis, the workers and the beats
        with wsgi_server(workers=2, **web) as web_a, wsgi_server(workers=2, **web) as web_b:
            cluster.start()
            # one Idempotency-Key, both replicas: one brand, the same answer
            headers = {"Authorization": f"Bearer {owner.key}", "Idempotency-Key": "cluster-brand-1"}
            body = {"name": "Across replicas"}
            first = requests.post(f"{web_a}/v1/brands", headers=headers, json=body, timeout=60)
            again = requests.post(f"{web_b}/v1/brands", headers=headers, json=body, timeout=60)
            assert first.status_code == 201, first.text
            assert again.status_code == 201 and again.json()["id"] == first.json()["id"]

            started = time.monotonic()
            done: set[str] = set()

            def chaos(counts) -> None:
                elapsed = time.monotonic() - started
                if elapsed > 6 and "beat" not in done:
                    cluster.beats[0].send_signal(signal.SIGKILL)
                    done.add("beat")
                if elapsed > 9 and "worker" not in done:
                    cluster.workers[0].send_signal(signal.SIGTERM)  # the publishing group; supervised
                    done.add("worker")
                if elapsed > 12 and "redis" not in done:
                    cluster.restart_redis()
                    done.add("redis")
                if elapsed > 15 and "pgbouncer" not in done:
                    bouncer.stop()
                    time.sleep(5)
                    bouncer.start()
                    done.add("pgbouncer")

            counts = wait_until_terminal(org, timeout=150, on_tick=chaos)
            took = time.monotonic() - started
            # the replica's kept connection died with PgBouncer: one 503 with Retry-After, then served
            for _ in range(5):
                brands = requests.get(
                    f"{web_b}/v1/brands?limit=100",
                    headers={"Authorization": f"Bearer {owner.key}"},
                    timeout=60,
                )
                if brands.status_code != 503:
                    break
                time.sleep(float(brands.headers.get("Retry-After", "1")))
            assert brands.status_code == 200, brands.text
            assert [b["name"] for b in brands.json()["data"]].count("Across replicas") == 1
    finally:
        cluster.stop()
        bouncer.close()
    assert done == {"beat", "worker", "redis", "pgbouncer"}
    report = audit(org)
    assert report["duplicates"] == [], report["duplicates"][:5]
    assert report["early"] == []
    assert report["published_without_post"] == []
    assert counts["published"] == 300, (counts, cluster.log_tails())
    assert report["posts"] == 300
    assert took < 150
