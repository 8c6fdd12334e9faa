"""The stall watch (apps.core.workers): a worker whose Redis consumer stops taking messages
(Celery's consumer can stay stuck after a broker reconnect) exits, its supervisor starts a fresh
one, and the waiting work gets done."""

from __future__ import annotations

import datetime
import time

import pytest
from django.utils import timezone

from apps.accounts.services import organization_get_or_create
from apps.core.workers import StallWatch
from apps.webhooks import services
from apps.webhooks.models import WebhookDelivery
from tests.publishing.harness import Cluster
from tests.webhooks.receiver import Receiver


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_worker_with_room_and_waiting_messages_that_receives_none_is_stalled_after_the_window():
    clock = Clock()
    watch = StallWatch(queues=["default"], concurrency=2, stall_seconds=60, clock=clock)
    assert watch.check(reserved=0, waiting=5) is False  # first look starts the window
    clock.now += 59
    assert watch.check(reserved=1, waiting=5) is False
    clock.now += 1
    assert watch.check(reserved=1, waiting=5) is True


def test_receiving_a_message_being_busy_or_an_empty_queue_restarts_the_window():
    clock = Clock()
    watch = StallWatch(queues=["default"], concurrency=2, stall_seconds=60, clock=clock)
    watch.check(reserved=0, waiting=3)
    clock.now += 50
    watch.received()
    clock.now += 20
    assert watch.check(reserved=0, waiting=3) is False  # took one 20 s ago: a new window starts
    clock.now += 59
    assert watch.check(reserved=0, waiting=3) is False
    clock.now += 30
    assert watch.check(reserved=2, waiting=3) is False  # every slot busy: it cannot take more
    clock.now += 100
    assert watch.check(reserved=0, waiting=0) is False  # nothing to take
    clock.now += 100
    assert watch.check(reserved=0, waiting=1) is False  # the window starts again
    clock.now += 60
    assert watch.check(reserved=0, waiting=1) is True


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_whose_consumer_stops_taking_messages_exits_and_its_replacement_does_the_work(settings):
    from celery import Celery

    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    org = organization_get_or_create(name="Stalled worker")
    with Receiver() as receiver:
        endpoint = services.webhook_create(organization=org, url=receiver.url, events=["content.published"])
        cluster = Cluster(
            workers=1,
            concurrency=1,
            beats=1,
            queues="default,webhooks",
            env={
                "WEBHOOK_ALLOW_HTTP": "true",
                "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8",
                "WORKER_STALL_SECONDS": "4",
                "WORKER_HEARTBEAT_SECONDS": "1",
                "WORKER_STALL_EXIT_GRACE_SECONDS": "5",
                "LOG_LEVEL": "WARNING",
            },
        ).start()
        try:
            node = cluster.node_names[0]
            # remote control on the cluster's broker; not the current app (the suite's stays eager)
            control = Celery(broker=cluster.env["REDIS_URL"], set_as_current=False).control
            replies = []
            deadline = time.monotonic() + 60
            while not replies and time.monotonic() < deadline:  # the worker is still starting
                replies = control.ping(destination=[node], timeout=1)
            assert replies, "the worker never answered"
            # the consumer stops taking messages, as Celery's does when it is stuck after a reconnect
            for queue in ("default", "webhooks"):
                answer = control.cancel_consumer(queue, destination=[node], reply=True, timeout=5)
                assert answer and "no longer consuming" in str(answer)
            # work arrives while it takes nothing: the beat's sweeps queue up, and a delivery is due
            WebhookDelivery.objects.create(
                organization_id=org.pk,
                endpoint=endpoint,
                message_id="evt_stalled0000000000000000000000000",
                event_type="webhook.test",
                payload={"type": "webhook.test"},
                next_attempt_at=timezone.now() - datetime.timedelta(seconds=5),
            )
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and not receiver.requests:
                time.sleep(0.2)
            restarts, first_exit = cluster.restarts, cluster.workers[0].returncode
        finally:
            cluster.stop()
        log = (cluster.var_dir / "worker-0.log").read_text(errors="replace")
    assert "its broker consumer is stuck; exiting" in log, cluster.log_tails()
    assert first_exit is not None and restarts == 1, cluster.log_tails()
    assert [r["headers"]["webhook-id"] for r in receiver.requests] == ["evt_stalled0000000000000000000000000"]
    assert WebhookDelivery.objects.get(endpoint=endpoint).status == "succeeded"
