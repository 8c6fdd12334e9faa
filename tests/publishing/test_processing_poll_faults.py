"""The processing-status poll under faults: real beat and worker processes, the worker SIGKILLed
while it is reading TikTok's status, and the private Redis restarted.

36 TikTok posts on 12 profiles are `processing` (accepted by TikTok, in moderation). The real
TikTok client reads `status/fetch` from the local fake speaking TikTok's wire format, which
answers "still processing" twice per post, then PUBLISH_COMPLETE with the public post id (or
FAILED for every sixth post). Two worker processes (two pool processes each, so polls run side
by side). Twice the fake holds a status read and the worker whose poller waits for that answer
is SIGKILLed (found by the read's TCP connection); Redis is restarted once (every queued poll is
lost). Every post must reach its final state, and exactly once: one `publication.updated` per
post (the recorded change is conditional on the poller's claim, so a poller whose lease ran out
changes nothing), the id and URL the platform gave, the content following.
"""

from __future__ import annotations

import datetime
import json
import random
import threading
import time

import pytest
from django.db.models import Count
from django.utils import timezone

from apps.accounts.services import organization_get_or_create
from apps.brands.services import brand_ensure_default
from apps.content.models import Content
from apps.events.models import Event
from apps.profiles.models import SocialProfile
from apps.publishing.crypto import encrypt
from apps.publishing.models import Publication
from tests.publishing.fakes import TikTokFake
from tests.publishing.harness import Cluster

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N_PROFILES, PER_PROFILE = 12, 3  # 3 posts per token: well under status/fetch's 30 reads a minute
N_POSTS = N_PROFILES * PER_PROFILE
KILLS = 2
LEASE_SECONDS = 5
SCOPES = ["user.info.basic", "video.publish", "video.upload", "video.list"]


class HoldingTikTok(TikTokFake):
    """TikTok's fake that, when armed, holds the next status read (the poller waits for its
    answer) until released, and says which caller's port it holds."""

    def __init__(self) -> None:
        super().__init__()
        self._armed = False
        self._hold_lock = threading.Lock()
        self.held: list[int] = []  # callers' ports, in the order their reads were held
        self.release = threading.Event()
        self.first_read_at: float | None = None

    def arm(self) -> None:
        with self._hold_lock:
            self._armed, self.held = True, []
            self.release.clear()

    def dispatch(self, req):
        if req.path == "/v2/post/publish/status/fetch/":
            self.first_read_at = self.first_read_at or time.time()
            with self._hold_lock:
                hold, self._armed = self._armed, False
                if hold:
                    self.held.append(req.client[1])
            if hold:
                self.release.wait(30)
        return super().dispatch(req)


def _processing_posts(org, fake: HoldingTikTok) -> list[Publication]:
    brand = brand_ensure_default(organization=org)
    now = timezone.now()
    profiles = []
    for i in range(N_PROFILES):
        token = fake.issue(f"tiktok-access-{org.pk.hex[:6]}-{i}", scopes=SCOPES)
        profiles.append(
            SocialProfile.objects.create(
                organization=org,
                brand=brand,
                platform="tiktok",
                external_id=f"-000Zq{i:04d}",
                username=f"creator{i}",
                sandbox=False,
                connected_at=now,
                access_token_enc=encrypt(token),
                token_scopes=",".join(SCOPES),
                token_status="valid",
                token_expires_at=now + datetime.timedelta(hours=20),
            )
        )
    contents = Content.objects.bulk_create(
        [
            Content(
                organization=org, brand=brand, platforms=["tiktok"], prompt=f"clip {i}", status="publishing"
            )
            for i in range(N_POSTS)
        ]
    )
    pubs = []
    for i, content in enumerate(contents):
        publish_id = f"v_pub_url~v2.{7000000000000000000 + i}"
        fake.publishes[publish_id] = {
            "id": publish_id,
            "post_info": {"privacy_level": "PUBLIC_TO_EVERYONE"},
            "source_info": {"source": "PULL_FROM_URL"},
            "polls_left": 2,
            "failure": "video_pull_failed" if i % 6 == 5 else None,
            "post_id": str(7300000000000000000 + i),
        }
        profile = profiles[i % N_PROFILES]
        pubs.append(
            Publication(
                organization=org,
                content=content,
                profile=profile,
                platform="tiktok",
                scheduled_for=now,
                due_at=now,
                status="processing",
                attempts=1,
                published_at=None,
                platform_state={
                    "publish_id": publish_id,
                    "kind": "video",
                    "username": profile.username,
                    "public": True,
                    "status": "PROCESSING_DOWNLOAD",
                    "since": now.isoformat(),
                    "polls": 0,
                },
            )
        )
    return Publication.objects.bulk_create(pubs)


def test_every_processing_post_reaches_its_final_state_once_despite_kills_mid_poll_and_a_redis_restart():
    org = organization_get_or_create(name=f"Processing chaos {random.randint(0, 1 << 30)}")
    fake = HoldingTikTok()
    pubs = _processing_posts(org, fake)
    cluster = Cluster(
        workers=2,
        concurrency=2,
        beats=1,
        queues="publishing",
        env={
            "PUBLISH_PROCESSING_POLL_INTERVAL": "0.5",
            "PUBLISH_PROCESSING_POLL_DELAYS": "1",
            "PUBLISH_LEASE_SECONDS": str(LEASE_SECONDS),
            "TIKTOK_CLIENT_ID": "fake-client",
            "TIKTOK_CLIENT_SECRET": "fake-secret",
            "OAUTH_ENDPOINT_OVERRIDES": json.dumps({"tiktok": {"api": fake.base_url}}),
        },
    ).start()
    rows = Publication.objects.filter(organization=org)
    stale_leases_seen: set = set()
    try:
        started, started_wall = time.monotonic(), time.time()
        last_kill = 0.0
        while time.monotonic() < started + 90:
            final = rows.filter(status__in=("published", "failed")).count()
            if final == N_POSTS and cluster.kills == KILLS and cluster.redis_restarts:
                break
            # a killed poller's rows stay claimed until their lease runs out, then are polled again
            stale_leases_seen |= set(
                rows.filter(status="processing", lease_until__lt=timezone.now()).values_list("pk", flat=True)
            )
            if cluster.kills < KILLS and time.monotonic() - last_kill > 3 and final < N_POSTS:
                # hold the next status read, and kill the worker whose poller is waiting for it
                fake.arm()
                waited = time.monotonic()
                while not fake.held and time.monotonic() - waited < 20:
                    stale_leases_seen |= set(  # keep watching while we wait for a held read
                        rows.filter(status="processing", lease_until__lt=timezone.now()).values_list(
                            "pk", flat=True
                        )
                    )
                    time.sleep(0.02)
                if fake.held and cluster.kill_worker_calling_from(fake.held[0]):
                    last_kill = time.monotonic()
                fake.release.set()
            if cluster.kills >= 1 and not cluster.redis_restarts:
                cluster.restart_redis()
            time.sleep(0.05)
        elapsed = time.monotonic() - started
        time.sleep(LEASE_SECONDS + 1)  # leave any poller whose lease ran out the time to record a second time
    finally:
        cluster.stop()
        fake.close()

    assert cluster.kills == KILLS and cluster.redis_restarts == 1, (cluster.kills, cluster.redis_restarts)
    statuses = dict(rows.values_list("status").annotate(n=Count("id")).order_by())
    failing = {p.pk for i, p in enumerate(pubs) if i % 6 == 5}
    assert statuses == {"published": N_POSTS - len(failing), "failed": len(failing)}, statuses
    # exactly once: one status change per post, recorded by the poller that held its claim
    changes = dict(
        Event.objects.filter(organization=org, type="publication.updated")
        .values_list("data__publicationId")
        .annotate(n=Count("id"))
        .order_by()
    )
    assert changes == {str(p.pk): 1 for p in pubs}, {k: n for k, n in changes.items() if n != 1}
    for i, pub in enumerate(pubs):
        pub.refresh_from_db()
        if pub.pk in failing:
            assert pub.status == "failed" and "video_pull_failed" in pub.last_error
            continue
        post_id = str(7300000000000000000 + i)
        assert (pub.status, pub.external_id, pub.url) == (
            "published",
            post_id,
            f"https://www.tiktok.com/@{pub.profile.username}/video/{post_id}",
        )
        assert (
            pub.lease_until is None
            and pub.platform_state["publish_id"] == f"v_pub_url~v2.{7000000000000000000 + i}"
        )
    content_status = dict(
        Content.objects.filter(organization=org).values_list("status").annotate(n=Count("id")).order_by()
    )
    assert content_status == {"published": N_POSTS - len(failing), "failed": len(failing)}
    assert stale_leases_seen  # a killed poll's claim outlived it, and was taken over after its lease
    reads = len(fake.calls("status_fetch"))
    assert reads >= 3 * N_POSTS  # two "still processing" answers and the final one, per post
    assert not [
        r for r in fake.requests if r.route != "status_fetch"
    ]  # nothing but status reads: never re-posted
    first_read = (fake.first_read_at or 0) - started_wall
    print(
        f"\n{N_POSTS} processing posts final in {elapsed:.0f} s (first status read after {first_read:.0f} s), {cluster.kills} kills mid-read, Redis restarted "
        f"once, {reads} status reads ({reads - 3 * N_POSTS} repeated), {len(stale_leases_seen)} posts polled again after a killed poll's lease"
    )
