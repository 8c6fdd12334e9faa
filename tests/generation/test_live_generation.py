"""Generation end to end on real processes: Celery workers on Redis, an ASGI server, websockets.

Nothing runs eagerly here: content_request_generation / batch_start enqueue on commit to the
Redis broker, a real `celery worker` (prefork) on the test database runs the pipeline and the
outbox dispatcher, and a client on a real uvicorn server follows it over /ws/events/.

The worker is started only after the client has subscribed: the task waits in Redis, so the
client sees every progress message without any sleep or race.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import uuid
from pathlib import Path

import pytest
import websockets
from django.utils import timezone

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.content import services
from apps.content.models import Batch, Content, ContentSchedule
from apps.core import ids
from apps.events.models import Event
from apps.media.models import Kind, MediaAsset
from tests.factories import ProfileFactory
from tests.generation.provider_fakes import ReplicateFake
from tests.live import asgi_server, celery_worker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

OUTCOMES = ("content.generated", "content.failed")
REPLICATE_KINDS = {"meta/llama-test": "text", "bfl/flux-test": "image", "wan/video-test": "video"}


@pytest.fixture
def broker():
    """Send tasks to the Redis broker instead of running them in this process."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield app
    app.conf.task_always_eager = previous


@pytest.fixture
def tenant():
    org = organization_get_or_create(name="Live Generation Org")
    brand = Brand.objects.get(organization=org, is_default=True)
    return org, brand, api_key_create(organization=org).secret


async def _receive_until(ws, done, timeout: float) -> list[dict]:
    """Every message up to and including the first for which done(message) is true."""
    messages: list[dict] = []

    async def loop():
        while True:
            message = json.loads(await ws.recv())
            messages.append(message)
            if done(message):
                return

    await asyncio.wait_for(loop(), timeout)
    return messages


async def _follow(
    base: str, key: str, subscribe: dict | None, done, *, timeout: float = 90.0, **worker
) -> list[dict]:
    """Connect, subscribe, then start the worker and collect messages until done."""
    url = base.replace("http", "ws") + f"/ws/events/?token={key}"
    async with websockets.connect(url) as ws:
        await _receive_until(ws, lambda m: m["type"] == "connection.ready", 10)
        if subscribe is not None:
            await ws.send(json.dumps({"action": "subscribe", **subscribe}))
            reply = await _receive_until(ws, lambda m: m["type"] in ("subscribed", "error"), 10)
            assert reply[-1]["type"] == "subscribed", reply[-1]
        with celery_worker(**worker):
            return await _receive_until(ws, done, timeout)


def _generate(org, brand, **extra) -> Content:
    return services.content_request_generation(
        organization=org,
        inp=services.GenerationInput(
            prompt="fresh croissants on a marble counter",
            platforms=["instagram", "linkedin"],
            brand=brand,
            **extra,
        ),
    )


def test_a_subscriber_follows_a_generation_on_a_real_worker_from_progress_to_review(broker, tenant):
    org, brand, key = tenant
    content = _generate(org, brand)  # enqueued to Redis on commit; no worker is running yet
    assert Content.objects.get(pk=content.pk).status == "pending"

    with asgi_server() as base:
        messages = asyncio.run(
            _follow(
                base,
                key,
                {"contentId": ids.render(content.pk, "content")},
                lambda m: m["type"] in OUTCOMES,
                concurrency=2,
            )
        )

    types = [m["type"] for m in messages]
    assert types[-1] == "content.generated", types
    progress = [m["data"] for m in messages if m["type"] == "content.generation.progress"]
    values = [p["progress"] for p in progress]
    assert values == sorted(values) and values[0] < 100 and values[-1] == 100, values
    assert next(p["stage"] for p in progress) == "settings"
    assert {"settings", "text", "media", "adapt", "done"} <= {p["stage"] for p in progress}
    # an API key's socket reads Family A: `cnt_` ids and `generated`, as GET /v1/content answers
    assert all(p["contentId"] == ids.render(content.pk, "content") for p in progress)
    generated = messages[-1]["data"]
    assert generated["contentId"] == ids.render(content.pk, "content")
    assert generated["status"] == "generated" and generated["previousStatus"] == "generating"
    assert generated["id"].startswith("evt_")

    content.refresh_from_db()
    assert content.status == "review" and content.progress == 100 and content.generated_at is not None
    assert sorted(content.variants.values_list("platform", flat=True)) == ["instagram", "linkedin"]
    assert all(v.caption for v in content.variants.all())
    # each platform its own picture (issue 30): Instagram's 4:5 and LinkedIn's 1.91:1
    media = {m.ratio: m for m in MediaAsset.objects.filter(content=content, kind=Kind.GENERATED)}
    assert sorted(media) == ["1.91:1", "4:5"]
    assert (media["4:5"].width, media["4:5"].height) == (1080, 1350)
    assert media["1.91:1"].width > media["1.91:1"].height
    assert all(Path(m.file.path).stat().st_size > 10_000 for m in media.values())  # real images


def test_a_provider_refusal_ends_failed_and_the_subscriber_gets_the_reason(broker, tenant):
    org, brand, key = tenant
    content = _generate(org, brand)
    with ReplicateFake(REPLICATE_KINDS) as replicate:
        # The worker generates with the Replicate adapter against the fake provider, which
        # fails every prediction with a safety refusal (not retryable: fails at once).
        replicate.fail_predictions_with = "NSFW content detected in the output"
        engine = {
            "GENERATION_ENGINE": "replicate",
            "REPLICATE_API_TOKEN": replicate.token,
            "REPLICATE_BASE_URL": replicate.url,
            "REPLICATE_TEXT_MODEL": "meta/llama-test",
            "REPLICATE_IMAGE_MODEL": "bfl/flux-test",
            "REPLICATE_VIDEO_MODEL": "wan/video-test",
        }
        with asgi_server() as base:
            messages = asyncio.run(
                _follow(
                    base,
                    key,
                    {"contentId": str(content.pk)},
                    lambda m: m["type"] in OUTCOMES,
                    concurrency=1,
                    **engine,
                )
            )
        assert replicate.requests_to("/predictions", method="POST")  # the provider was really asked

    failed = messages[-1]
    assert failed["type"] == "content.failed", [m["type"] for m in messages]
    content.refresh_from_db()
    assert content.status == "failed"
    assert content.status_reason == (
        "Generation failed: replicate: refused by content policy: NSFW content detected in the output"
    )
    assert failed["data"]["reason"] == content.status_reason
    assert failed["data"]["previousStatus"] == "generating"
    assert [m["data"]["stage"] for m in messages if m["type"] == "content.generation.progress"] == [
        "settings"
    ]
    assert not content.variants.exists()
    assert not MediaAsset.objects.filter(content=content).exists()


def test_a_batch_of_four_runs_on_two_worker_processes_and_completes_once(broker, tenant):
    org, brand, key = tenant
    profile = ProfileFactory(organization=org, brand=brand, platform="instagram")
    schedules = [
        services.schedule_plan(
            organization=org,
            profile=profile,
            scheduled_date=timezone.localdate(),
            task=f"{topic} for our autumn menu",
            generation_mode="prompt_based",
            platform=None,
            post_type="feed",
            media_type="image",
            dimensions=None,
        )
        for topic in ("pumpkin soup", "apple tart", "chestnut latte", "mushroom risotto")
    ]
    batch = services.batch_start(organization=org, schedules=schedules)

    with asgi_server() as base:
        messages = asyncio.run(
            _follow(
                base,
                key,
                {"batchId": ids.render(batch.pk, "batch")},
                lambda m: m["type"] == "batch.completed",
                concurrency=2,
            )
        )

    progress = [m["data"] for m in messages if m["type"] == "batch.progress"]
    assert progress, [m["type"] for m in messages]
    assert all(p["batchId"] == ids.render(batch.pk, "batch") and p["total"] == 4 for p in progress)
    completed = messages[-1]["data"]
    assert completed["status"] == "completed"
    assert (completed["completed"], completed["failed"], completed["total"], completed["progress"]) == (
        4,
        0,
        4,
        100,
    )
    assert sorted(i["status"] for i in completed["items"]) == ["generated"] * 4  # Family A's word
    # per-item progress of the batch's contents reaches batch subscribers too
    item_ids = {
        ids.render(c, "content") for c in Content.objects.filter(batch=batch).values_list("pk", flat=True)
    }
    streamed = {m["data"]["contentId"] for m in messages if m["type"] == "content.generation.progress"}
    assert streamed == item_ids

    batch.refresh_from_db()
    assert batch.status == Batch.COMPLETED and batch.finished_at is not None
    assert Event.objects.filter(type="batch.completed", data__batchId=str(batch.pk)).count() == 1
    assert set(Content.objects.filter(batch=batch).values_list("status", flat=True)) == {"review"}
    assert set(
        ContentSchedule.objects.filter(pk__in=[s.pk for s in schedules]).values_list("status", flat=True)
    ) == {ContentSchedule.GENERATED}


def test_an_event_left_in_the_outbox_reaches_the_websocket_through_the_sweep(broker, tenant):
    org, _, key = tenant
    # A committed event whose dispatch was never enqueued (the broker was down, or the
    # process died right after commit): only the outbox row exists.
    profile_id = uuid.uuid4()
    event = Event.objects.create(
        organization=org, type="profile.updated", data={"profileId": str(profile_id)}
    )
    Event.objects.filter(pk=event.pk).update(created_at=timezone.now() - datetime.timedelta(minutes=1))

    async def scenario(base):
        url = base.replace("http", "ws") + f"/ws/events/?token={key}"
        async with websockets.connect(url) as ws:
            await _receive_until(ws, lambda m: m["type"] == "connection.ready", 10)
            with celery_worker(queues="default", concurrency=1):
                # what beat sends every 5 s (CELERY_BEAT_SCHEDULE["dispatch-events"])
                broker.send_task("apps.events.tasks.dispatch_events")
                return await _receive_until(ws, lambda m: m["type"] == "profile.updated", 60)

    with asgi_server() as base:
        messages = asyncio.run(scenario(base))

    delivered = messages[-1]["data"]
    # frames carry their subject's sequence and when the event happened (issue 28)
    assert delivered == {
        "id": ids.render(event.pk, "event"),
        "profileId": ids.render(profile_id, "profile"),
        "sequence": 1,
        "occurredAt": delivered["occurredAt"],
    }
    assert delivered["occurredAt"].endswith("Z")
    event.refresh_from_db()
    assert event.dispatched_at is not None
