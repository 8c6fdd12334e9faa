"""The outbox dispatcher: batched claims, one round of channel-layer sends, deferral in tasks."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction

from apps.accounts.services import organization_get_or_create
from apps.events import realtime, services
from apps.events.models import Event

pytestmark = pytest.mark.django_db(transaction=True)


def _record(org, n: int) -> list[Event]:
    with transaction.atomic():
        return [
            services.event_record(
                organization=org, type="profile.updated", data={"profileId": str(uuid.uuid4())}
            )
            for _ in range(n)
        ]


def test_events_committed_inside_a_deferred_block_are_sent_when_it_ends(request):
    from celery.signals import task_prerun

    org = organization_get_or_create(name="Deferred Org")
    # the real dispatch task runs (eager Celery); Celery's own signal records each run's ids
    enqueued = []

    def started_task(sender=None, args=None, **_):
        if sender.name == "apps.events.tasks.dispatch_event_batch":
            enqueued.append(args[0])

    task_prerun.connect(started_task, weak=False)
    request.addfinalizer(lambda: task_prerun.disconnect(started_task))
    with services.dispatch_deferred():
        events = _record(org, 2) + _record(org, 1)  # two transactions
        assert Event.objects.filter(pk__in=[e.pk for e in events], dispatched_at__isnull=True).count() == 3
    assert enqueued == []  # no dispatch task: the block sent them
    assert Event.objects.filter(pk__in=[e.pk for e in events], dispatched_at__isnull=False).count() == 3
    # outside a block, a transaction's events go to one dispatch task
    more = _record(org, 2)
    assert enqueued == [[str(e.pk) for e in more]]
    assert Event.objects.filter(pk__in=[e.pk for e in more], dispatched_at__isnull=False).count() == 2


def test_each_event_is_dispatched_once_even_when_asked_twice():
    org = organization_get_or_create(name="Once Org")
    events = _record(org, 3)  # (eager Celery dispatched them on commit)
    ids = [str(e.pk) for e in events]
    assert services.events_dispatch(event_ids=ids) == 0
    Event.objects.filter(pk__in=ids).update(dispatched_at=None)  # as if that task were lost
    assert services.events_dispatch(event_ids=ids) == 3
    assert services.events_dispatch(event_ids=ids) == 0
    assert services.events_dispatch_pending(older_than_seconds=0) == 0


@pytest.mark.services
@pytest.mark.handmade_events  # {"n": i}: the sender's order, not an event
def test_the_process_sender_loop_reaches_a_redis_group(settings):
    layer = get_channel_layer()
    if not realtime._uses_redis(layer):
        pytest.fail("this test needs REDIS_URL (the Redis channel layer)")

    async def scenario():
        # one loop holds the receiving channel throughout (the pub/sub layer's subscription
        # lives as long as its loop), as a websocket server's does
        channel = await layer.new_channel()
        await layer.group_add("org.sendertest", channel)
        send = sync_to_async(realtime.group_send_many, thread_sensitive=False)
        await send([("org.sendertest", {"type": "event.message", "payload": {"n": i}}) for i in range(3)])
        await send([("org.sendertest", {"type": "event.message", "payload": {"n": 3}})])  # same loop again
        return [(await asyncio.wait_for(layer.receive(channel), 10))["payload"]["n"] for _ in range(4)]

    assert async_to_sync(scenario)() == [0, 1, 2, 3]
    assert realtime._loop is not None and realtime._loop.is_running()
