"""A slow receiver cannot stall anyone's webhooks (issue 20).

An endpoint that answers `200` with `Content-Length: 100000` and then drips one byte at a time
held a worker slot for hours: the socket timeout bounded each read, not the attempt, the
sender waited for 2 KB of body and then drained the declared length. Now an attempt ends at
WEBHOOK_TIMEOUT_SECONDS of wall clock (headers included), reads no more than the logged bytes
and closes the connection; one organization holds at most its share of the worker slots; and
another organization's delivery goes out while the first one's receivers drip."""

from __future__ import annotations

import time
import uuid

import pytest

from apps.accounts.services import organization_get_or_create
from apps.core import ids
from apps.webhooks import services, tasks
from apps.webhooks.models import WebhookAttempt, WebhookDelivery
from apps.webhooks.sending import Sender

from .drip import DripServer
from .receiver import Receiver


def _post(url: str):
    sender = Sender()
    try:
        return sender.post(url, b'{"type":"webhook.test"}', {"content-type": "application/json"})
    finally:
        sender.close()


def _due(endpoint) -> WebhookDelivery:
    """A delivery due now, as the outbox writes one (left to the cluster's sweep: this test
    process runs tasks eagerly, it must not send them itself)."""
    message_id = ids.render(uuid.uuid4(), "event")
    return WebhookDelivery.objects.create(
        organization_id=endpoint.organization_id,
        endpoint=endpoint,
        message_id=message_id,
        event_type="webhook.test",
        payload={"id": message_id, "type": "webhook.test", "data": {}},
        next_attempt_at=services.clock(),
    )


def _closed(drip: DripServer, n: int = 1, timeout: float = 30.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while len(drip.closed) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    return list(drip.closed)


def test_a_dripping_body_ends_the_attempt_at_the_deadline_with_its_status_and_the_connection_closed(
    loopback, settings
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 1.5
    # the server gives up by itself after 20 s: before the deadline, an attempt lasted that long
    with DripServer(interval=0.5, limit_seconds=20) as drip:
        outcome = _post(drip.url())
        closed = _closed(drip)
    assert outcome.status_code == 200 and outcome.error == ""
    assert set(outcome.body) == {"x"} and 1 <= len(outcome.body) <= 5  # what arrived in time
    assert len(closed) == 1
    # the client closed the connection after a few bytes of the declared 100,000 (no drain)
    assert 1 <= closed[0]["sent"] <= 6, closed


def test_dripping_headers_time_out_at_the_deadline(loopback, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 1.0
    with DripServer(interval=0.3, headers_too=True, limit_seconds=20) as drip:
        outcome = _post(drip.url())
        closed = _closed(drip)
    assert outcome.status_code is None
    assert outcome.error == "timed out after 1 s"
    assert closed[0]["sent"] == 0  # it never got past the headers (38 bytes at 0.3 s each)


def test_an_answer_read_whole_keeps_its_connection_and_a_longer_one_is_closed(loopback, settings):
    with Receiver() as receiver:
        sender = Sender()
        try:
            receiver.answer(200, body=b"fine")
            assert sender.post(receiver.url, b"{}", {}).body == "fine"
            assert sender.post(receiver.url, b"{}", {}).body == "fine"
            receiver.answer(200, body=b"y" * 5000)  # more than the log keeps: read 2 KB, close
            assert sender.post(receiver.url, b"{}", {}).body == "y" * 2048
            assert sender.post(receiver.url, b"{}", {}).body == "y" * 2048
        finally:
            sender.close()
    peers = [r["peer"] for r in receiver.requests]
    assert peers[0] == peers[1] == peers[2]  # kept alive while answers were read whole
    assert peers[3] != peers[2]  # the 5,000-byte answer was not drained: a new connection


def test_delivery_tasks_have_soft_and_hard_time_limits(settings):
    # the drain budget, one attempt's deadline and the database work around them
    assert tasks.SOFT_LIMIT == settings.WEBHOOK_DRAIN_SECONDS + settings.WEBHOOK_TIMEOUT_SECONDS + 30.0
    assert tasks.HARD_LIMIT == tasks.SOFT_LIMIT + 15.0
    for task in (tasks.deliver, tasks.deliver_endpoint):
        assert (task.soft_time_limit, task.time_limit) == (tasks.SOFT_LIMIT, tasks.HARD_LIMIT)


@pytest.mark.django_db
def test_one_organization_gets_at_most_its_share_of_attempts_in_flight(loopback, settings):
    settings.WEBHOOK_ORGANIZATION_CONCURRENCY = 1
    settings.WEBHOOK_ENDPOINT_CONCURRENCY = 4
    org_a = organization_get_or_create(name="Slow tenant")
    org_b = organization_get_or_create(name="Other tenant")
    first = services.webhook_create(organization=org_a, url="http://127.0.0.1:9/a", events=["*"])
    second = services.webhook_create(organization=org_a, url="http://127.0.0.1:9/b", events=["*"])
    other = services.webhook_create(organization=org_b, url="http://127.0.0.1:9/c", events=["*"])
    for endpoint in (first, second, other):
        WebhookDelivery.objects.create(
            organization_id=endpoint.organization_id,
            endpoint=endpoint,
            message_id=f"evt_{endpoint.pk.hex}",
            event_type="webhook.test",
            payload={},
            next_attempt_at=services.clock(),
        )
    assert services.delivery_claim(endpoint_id=first.pk) is not None
    assert services.delivery_claim(endpoint_id=second.pk) is None  # org A's one place is taken
    assert services.delivery_claim(endpoint_id=other.pk) is not None  # org B has its own
    settings.WEBHOOK_ORGANIZATION_CONCURRENCY = 2
    assert services.delivery_claim(endpoint_id=second.pk) is not None


@pytest.mark.django_db
def test_the_automatic_share_is_half_the_live_webhooks_slots(settings, monkeypatch):
    from apps.core import workers

    settings.WEBHOOK_ORGANIZATION_CONCURRENCY = 0
    live = [
        {"name": "a", "queues": ["webhooks"], "concurrency": 2, "age": 0.1},
        {"name": "b", "queues": ["default", "webhooks"], "concurrency": 4, "age": 0.1},
        {"name": "c", "queues": ["default"], "concurrency": 8, "age": 0.1},
    ]
    monkeypatch.setattr(workers, "alive", lambda: live)  # the heartbeats a Redis broker would hold
    services._slots_seen.clear()
    assert services.webhook_worker_slots() == 6
    assert services.organization_bound() == 3
    services._slots_seen.clear()
    live[:] = [live[0]]
    assert services.organization_bound() == 1
    services._slots_seen.clear()
    live.clear()  # no heartbeats known (the embedded default): one at a time
    assert services.organization_bound() == 1
    services._slots_seen.clear()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_dripping_endpoints_of_one_organization_do_not_stall_another_organizations_delivery(settings):
    """Real processes as docker/compose.yaml runs them: a `webhooks` worker with two slots (and
    one for `default`), beat, a private Redis; the receivers drip one byte a second."""
    from tests.publishing.harness import Cluster

    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    org_a = organization_get_or_create(name="Dripping tenant")
    org_b = organization_get_or_create(name="Prompt tenant")
    with DripServer(interval=1.0, limit_seconds=120) as drip, Receiver() as prompt:
        slow = [
            services.webhook_create(organization=org_a, url=drip.url(f"/{n}"), events=["*"]) for n in "ab"
        ]
        fine = services.webhook_create(organization=org_b, url=prompt.url, events=["*"])
        cluster = Cluster(
            workers=2,
            concurrency=2,
            beats=1,
            queues="default,webhooks",
            worker_queues=["webhooks", "default"],
            env={
                "WEBHOOK_ALLOW_HTTP": "true",
                "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8",
                "WEBHOOK_TIMEOUT_SECONDS": "4",
            },
        ).start()
        try:
            for endpoint in slow:  # a backlog on both: org A always wants both slots
                for _ in range(3):
                    _due(endpoint)
            deadline = time.monotonic() + 90
            while drip.accepted == 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert drip.accepted >= 1, cluster.log_tails()
            test = _due(fine)
            got = prompt.wait_for(1, timeout=90)
            # org A's receivers go on dripping: the slots they may use keep being taken
            deadline = time.monotonic() + 60
            while len(drip.closed) < 3 and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            cluster.stop()
    assert [r["headers"]["webhook-id"] for r in got] == [test.message_id], cluster.log_tails()
    # org B's went out while org A's backlog was still dripping, not after it
    assert any(c["at"] > got[0]["at"] for c in drip.closed), (got[0]["at"], drip.closed)
    assert drip.most == 1  # org A never held both slots (half of the webhooks worker's two)
    assert len(drip.closed) >= 3
    # every dripping attempt was cut at the 4 s deadline: a few bytes of the declared 100,000
    assert all(c["sent"] <= 8 for c in drip.closed), drip.closed
    attempts = WebhookAttempt.objects.filter(delivery__endpoint__in=slow)
    assert attempts.count() >= 3
    assert {a.status_code for a in attempts} == {200}
    assert all(set(a.response_body) <= {"x"} and len(a.response_body) <= 8 for a in attempts)
    assert WebhookDelivery.objects.get(pk=test.pk).status == "succeeded"
