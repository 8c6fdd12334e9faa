"""One subject's events reach a socket in the order they were committed, numbered (issue 28).

The red team's reproduction: approve, schedule, then publish now. Approving and scheduling
hand their events to dispatch tasks on the broker; publishing now dispatches its own events in
the request. With a worker that is late (the machine is busy), a socket read
`publication.updated` (published) and `content.published` before `content.approved`,
`content.scheduled` and `content.publishing`, and a client applying frames as they came ended
in `publishing`. Here the worker starts only after the publish: the content's frames must
still arrive approved, scheduled, publishing, published, each with the next `sequence` of the
content, and nothing twice once the worker has run the late dispatch tasks.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import time

import pytest
import redis
import requests
import websockets
from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Content, Variant
from apps.core import ids
from tests.events.asyncapi_check import message_errors
from tests.factories import ProfileFactory
from tests.live import asgi_server, celery_worker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _post(url: str, key: str, body: dict) -> dict:
    answer = requests.post(url, headers={"Authorization": f"Bearer {key}"}, json=body, timeout=60)
    assert answer.status_code in (200, 201, 202), answer.text
    return answer.json()


def test_a_subjects_events_arrive_in_commit_order_with_growing_sequences_though_the_worker_is_late():
    org = organization_get_or_create(name="Event Order Org")
    key = api_key_create(organization=org, role="admin").secret
    brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(organization=org, brand=brand, platform="instagram", sandbox=True)
    content = Content.objects.create(
        organization=org, brand=brand, platforms=["instagram"], prompt="Launch", status=states.REVIEW
    )
    Variant.objects.create(content=content, platform="instagram", caption="Launch day", hashtags=["#launch"])
    cnt, prf = ids.render(content.pk, "content"), ids.render(profile.pk, "profile")
    later = (timezone.now() + datetime.timedelta(hours=3)).isoformat()

    async def scenario(base: str) -> tuple[list[dict], str]:
        async with websockets.connect(f"{base.replace('http', 'ws')}/ws/events/?token={key}") as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "connection.ready"
            await sync_to_async(_post)(f"{base}/v1/content/{cnt}/approve", key, {})
            await sync_to_async(_post)(
                f"{base}/v1/content/{cnt}/schedule", key, {"scheduledFor": later, "profiles": [prf]}
            )
            published = await sync_to_async(_post)(
                f"{base}/v1/content/{cnt}/publish", key, {"profiles": [prf]}
            )
            frames: list[dict] = []

            async def read(seconds: float) -> None:
                try:
                    while True:
                        frames.append(json.loads(await asyncio.wait_for(ws.recv(), seconds)))
                except TimeoutError:
                    pass

            await read(3.0)
            queue = settings.CELERY_TASK_DEFAULT_QUEUE
            broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
            assert broker.llen(queue) >= 2  # the approval's and the schedule's dispatch tasks wait
            # the late worker runs them now
            with celery_worker(queues=queue, concurrency=1):
                deadline = time.monotonic() + 90
                while broker.llen(queue) and time.monotonic() < deadline:
                    await read(0.5)
                assert broker.llen(queue) == 0
                await read(3.0)
            return frames, published["status"]

    with asgi_server() as base:
        frames, rest_status = asyncio.run(scenario(base))

    about_content = [f for f in frames if f["data"].get("contentId") == cnt]
    types = [f["type"] for f in about_content]
    assert types == [
        "content.approved",
        "content.scheduled",
        "content.publishing",
        "publication.updated",
        "content.published",
    ], types
    sequences = [f["data"]["sequence"] for f in about_content]
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences))), sequences
    occurred = [datetime.datetime.fromisoformat(f["data"]["occurredAt"]) for f in about_content]
    assert occurred == sorted(occurred), occurred
    # a client applying the frames in arrival order ends where the REST answer is
    assert about_content[-1]["data"]["status"] == rest_status == "published"
    for frame in frames:
        assert message_errors(frame, "v1") == [], frame
