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
from apps.events.models import Event, SubjectSequence

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


def test_one_subjects_events_go_out_in_order_numbered_even_when_a_later_one_is_dispatched_first(monkeypatch):
    """A later event's dispatch takes the subject's earlier undispatched events with it, in
    order; numbers go on from the last sent; a failed send keeps no numbers (issue 28)."""
    from apps.events import dispatch

    org = organization_get_or_create(name="Order Org")
    content_id, other_id = uuid.uuid4(), uuid.uuid4()
    data = {"contentId": str(content_id), "status": "approved", "platforms": ["x"]}
    events = []
    for type_ in ("content.approved", "content.scheduled", "content.publishing"):
        with transaction.atomic():
            events.append(services.event_record(organization=org, type=type_, data=data))
    with transaction.atomic():
        unrelated = services.event_record(
            organization=org, type="content.updated", data={**data, "contentId": str(other_id)}
        )
    # their dispatch tasks were lost or are still queued (eager Celery sent them: undo that)
    Event.objects.filter(organization=org).update(dispatched_at=None)
    base = SubjectSequence.objects.get(subject=f"content:{content_id.hex}").last  # eager Celery's sends
    sent: list[dict] = []
    monkeypatch.setattr(
        dispatch,
        "group_send_many",
        lambda sends: sent.extend(m["payload"] for g, m in sends if g.startswith("org.")),
    )
    assert services.events_dispatch(event_ids=[str(events[-1].pk)]) == 3  # the last one asked for
    assert [(m["type"], m["data"]["sequence"]) for m in sent] == [
        ("content.approved", base + 1),
        ("content.scheduled", base + 2),
        ("content.publishing", base + 3),
    ]
    assert all(m["data"]["occurredAt"].endswith("Z") for m in sent)
    assert Event.objects.get(pk=unrelated.pk).dispatched_at is None  # another subject: not taken

    def refuse(sends):
        raise ConnectionError("channel layer away")

    with transaction.atomic():
        published = services.event_record(organization=org, type="content.published", data=data)
    Event.objects.filter(pk=published.pk).update(dispatched_at=None)
    before = SubjectSequence.objects.get(subject=f"content:{content_id.hex}").last
    monkeypatch.setattr(dispatch, "group_send_many", refuse)
    with pytest.raises(ConnectionError):
        services.events_dispatch(event_ids=[str(published.pk)])
    assert Event.objects.get(pk=published.pk).dispatched_at is None  # released for the sweep
    sent.clear()
    monkeypatch.setattr(
        dispatch,
        "group_send_many",
        lambda sends: sent.extend(m["payload"] for g, m in sends if g.startswith("org.")),
    )
    assert services.events_dispatch_pending(older_than_seconds=0) == 2
    numbers = {m["type"]: m["data"]["sequence"] for m in sent}
    # the failed send kept no number
    assert numbers == {"content.published": before + 1, "content.updated": 2}
