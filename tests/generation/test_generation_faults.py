"""Generation under faults: real beat and worker processes, SIGKILLed workers, Redis restarted (issue 9).

50 generations (images and videos) are left pending with their tasks "lost" (never sent:
the sweep must find them, as after a Redis restart); workers are SIGKILLed at random while
they generate and the private Redis is restarted once. Every content must end `review` or
`failed` with a reason within five minutes, and none may run its engine again after it
finished (no claim after `generated_at`, one generated media item each).
"""

from __future__ import annotations

import datetime
import random
import time

import pytest
from django.db.models import Count, F, Q
from django.utils import timezone

from apps.accounts.services import organization_get_or_create
from apps.brands.services import brand_ensure_default
from apps.content.models import Content
from apps.media.models import Kind
from tests.publishing.harness import Cluster

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N_IMAGES, N_VIDEOS = 42, 8


def _pending_generations(org):
    brand = brand_ensure_default(organization=org)
    contents = Content.objects.bulk_create(
        [
            Content(
                organization=org,
                brand=brand,
                platforms=["x"],
                prompt=f"Faulty generation {i}",
                status="pending",
                media_type="video" if i < N_VIDEOS else "image",
                post_type="feed",
                dimensions="16:9" if i < N_VIDEOS else "1:1",
                seed=i,
            )
            for i in range(N_IMAGES + N_VIDEOS)
        ]
    )
    # as if their tasks were lost: only the sweep can start them
    Content.objects.filter(pk__in=[c.pk for c in contents]).update(
        updated_at=timezone.now() - datetime.timedelta(hours=1)
    )
    return contents


def test_every_generation_ends_review_or_failed_despite_killed_workers_and_a_redis_restart():
    org = organization_get_or_create(name=f"Generation chaos {random.randint(0, 1 << 30)}")
    contents = _pending_generations(org)
    total = len(contents)
    cluster = Cluster(
        workers=2,
        concurrency=2,
        beats=1,
        env={
            "GENERATION_LEASE_SECONDS": "6",
            "GENERATION_HEARTBEAT_SECONDS": "2",
            "GENERATION_SWEEP_INTERVAL": "2",
            "GENERATION_QUEUED_STUCK_SECONDS": "10",
            "GENERATION_MAX_ATTEMPTS": "4",
            "GENERATION_ENGINE": "local",
            "WORKER_HEARTBEAT_SECONDS": "2",
        },
    ).start()
    qs = Content.objects.filter(organization=org)
    try:
        started = time.monotonic()
        redis_done = False
        last_kill = started
        deadline = started + 300
        while time.monotonic() < deadline:
            finished = qs.filter(status__in=("review", "failed")).count()
            if finished == total:
                break
            elapsed = time.monotonic() - started
            # a kill every 3 s from the start (six at most), so that at least three land while work runs
            if time.monotonic() - last_kill >= 3 and cluster.kills < 6:
                cluster.kill_random_worker()
                last_kill = time.monotonic()
            if finished >= total // 3 and not redis_done:
                cluster.restart_redis()
                redis_done = True
            time.sleep(1)
        elapsed = time.monotonic() - started
    finally:
        cluster.stop()
    statuses = dict(qs.values_list("status").annotate(n=Count("id")).order_by())
    assert cluster.kills >= 3 and cluster.redis_restarts == 1
    assert statuses.get("review", 0) + statuses.get("failed", 0) == total, (statuses, elapsed)
    assert not qs.filter(status="failed", status_reason="").exists()
    # no engine run after the content finished: its last claim came before generated_at
    reviewed = qs.filter(status="review")
    assert reviewed.count() >= total * 0.8, statuses
    assert not reviewed.filter(
        Q(generated_at__isnull=True) | Q(generation_started_at__gt=F("generated_at"))
    ).exists()
    media = dict(
        reviewed.annotate(n=Count("media_assets", filter=Q(media_assets__kind=Kind.GENERATED))).values_list(
            "pk", "n"
        )
    )
    assert set(media.values()) == {1}, media  # one run's media each, nothing from a second run
    print(f"\n{total} generations in {elapsed:.0f} s, {cluster.kills} workers killed, statuses {statuses}")
