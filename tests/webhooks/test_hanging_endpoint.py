"""A hanging endpoint (it accepts the connection and never answers) costs at most one worker
slot at a time, from its very first deliveries: real beat and worker processes on the
`webhooks` queue, a burst of events for a hanging endpoint and a healthy one of the same
organization, and the hanging server counting the connections held open at once."""

from __future__ import annotations

import datetime
import socketserver
import threading
import time

import pytest

from apps.accounts.services import organization_get_or_create
from apps.events.models import Event
from apps.webhooks import services
from apps.webhooks.models import WebhookAttempt, WebhookDelivery
from apps.webhooks.sending import Outcome
from tests.publishing.harness import Cluster

from .receiver import Receiver

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N = 12


class HangingServer:
    """Reads each request and never answers; a connection ends only when the client gives up.
    Counts the connections open at once (each is a worker waiting for its timeout)."""

    def __init__(self):
        self.open = self.most = self.accepted = 0
        self.lock = threading.Lock()
        hanging = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                with hanging.lock:
                    hanging.open += 1
                    hanging.accepted += 1
                    hanging.most = max(hanging.most, hanging.open)
                try:
                    self.request.settimeout(60)
                    while self.request.recv(65536):  # b"": the client closed (its timeout)
                        pass
                except OSError:
                    pass
                finally:
                    with hanging.lock:
                        hanging.open -= 1

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.handmade_events  # hand-made payloads through the webhook plumbing
def test_a_hanging_endpoint_holds_one_worker_slot_and_the_healthy_one_gets_everything(settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    org = organization_get_or_create(name="Hanging endpoint")
    with HangingServer() as hanging, Receiver() as healthy:
        stuck = services.webhook_create(organization=org, url=hanging.url, events=["content.published"])
        fine = services.webhook_create(organization=org, url=healthy.url, events=["content.published"])
        # 2 workers x 2 slots: before the bound, the first wave of a burst took all 4
        cluster = Cluster(
            workers=2,
            concurrency=2,
            beats=1,
            queues="default,webhooks",
            env={
                "WEBHOOK_ALLOW_HTTP": "true",
                "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8",
                "WEBHOOK_TIMEOUT_SECONDS": "4",
                "WEBHOOK_LEASE_SECONDS": "6",
                "WEBHOOK_ENDPOINT_CONCURRENCY": "4",
            },
        ).start()
        try:
            # a burst committed at once: the beat's outbox pass fans it out to both endpoints
            Event.objects.bulk_create(
                [Event(organization=org, type="content.published", data={"n": i}) for i in range(N)]
            )
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                timed_out = WebhookAttempt.objects.filter(delivery__endpoint=stuck).count()
                if len(healthy.requests) >= N and timed_out >= 2:
                    break
                time.sleep(0.2)
        finally:
            cluster.stop()
    assert hanging.accepted >= 2, "the hanging endpoint was not tried (again)"
    assert hanging.most == 1, f"{hanging.most} worker slots waited on the hanging endpoint at once"
    assert len({r["headers"]["webhook-id"] for r in healthy.requests}) == N  # the healthy one got all
    attempts = WebhookAttempt.objects.filter(delivery__endpoint=stuck)
    assert all(a.status_code is None and "timed out" in a.error for a in attempts)
    assert WebhookDelivery.objects.filter(endpoint=stuck, status="pending").count() == N  # waiting, not lost
    assert WebhookDelivery.objects.filter(endpoint=fine, status="succeeded").count() == N


def test_an_endpoint_not_yet_answering_gets_one_attempt_in_flight_until_it_answers(
    loopback, broker, settings
):
    """The bound in the claim itself: a fresh endpoint is probed by one attempt; once it has
    answered 2xx, it gets WEBHOOK_ENDPOINT_CONCURRENCY, and drains are kicked to use it (the
    real kick, its tasks queued on the broker, no worker running them here)."""
    settings.WEBHOOK_ENDPOINT_CONCURRENCY = 4
    settings.WEBHOOK_ORGANIZATION_CONCURRENCY = 4  # the organization's share is not the bound here
    org = organization_get_or_create(name="Probe first")
    endpoint = services.webhook_create(organization=org, url="http://127.0.0.1:9/hook", events=["*"])
    for n in range(3):  # due deliveries, written directly (no task sends them here)
        WebhookDelivery.objects.create(
            organization_id=org.pk,
            endpoint=endpoint,
            message_id=f"evt_{n:032d}",
            event_type="webhook.test",
            payload={},
            next_attempt_at=services.clock(),
        )
    first = services.delivery_claim(endpoint_id=endpoint.pk)
    assert first is not None
    assert services.delivery_claim(endpoint_id=endpoint.pk) is None  # unproven: one in flight
    services._record(first, first.endpoint, services.clock(), 5, Outcome(status_code=204), True)
    # three drains of this endpoint kicked (the two due deliveries left and the bound's room)
    assert broker("webhooks") == [("apps.webhooks.tasks.deliver_endpoint", [str(endpoint.pk)])] * 3
    second = services.delivery_claim(endpoint_id=endpoint.pk)
    third = services.delivery_claim(endpoint_id=endpoint.pk)
    assert second is not None and third is not None  # it answered: the healthy bound applies


def test_an_answering_endpoint_with_an_attempt_waiting_too_long_gets_no_second_one(loopback, settings):
    settings.WEBHOOK_ENDPOINT_CONCURRENCY = 4
    settings.WEBHOOK_TIMEOUT_SECONDS = 15.0
    org = organization_get_or_create(name="Gone quiet")
    endpoint = services.webhook_create(organization=org, url="http://127.0.0.1:9/hook", events=["*"])
    now = services.clock()
    endpoint.answered_at = now
    lease = datetime.timedelta(seconds=services._lease_seconds())
    assert services.endpoint_bound(endpoint, now) == 4
    assert (
        services.endpoint_bound(endpoint, now, oldest_lease=now + lease - datetime.timedelta(seconds=1)) == 4
    )
    assert (
        services.endpoint_bound(endpoint, now, oldest_lease=now + lease - datetime.timedelta(seconds=6)) == 1
    )
    endpoint.answered_at = now - datetime.timedelta(minutes=11)  # idle: probed again
    assert services.endpoint_bound(endpoint, now) == 1


@pytest.mark.handmade_events  # hand-made payloads through the webhook plumbing
def test_a_failing_endpoints_new_deliveries_wait_for_its_back_off_instead_of_each_costing_an_attempt(
    loopback, broker
):
    from apps.events.services import event_record, events_dispatch

    org = organization_get_or_create(name="Dead beside")
    dead = services.webhook_create(
        organization=org, url="http://127.0.0.1:9/dead", events=["content.published"]
    )
    alive = services.webhook_create(
        organization=org, url="http://127.0.0.1:9/alive", events=["content.published"]
    )
    failing_since = services.clock() - datetime.timedelta(minutes=10)
    dead.__class__.objects.filter(pk=dead.pk).update(failing_since=failing_since)
    before = services.clock()
    events = [event_record(organization=org, type="content.published", data={"n": n}) for n in range(3)]
    events_dispatch(event_ids=[e.pk for e in events])  # (already done after each commit, eagerly here)
    waiting = WebhookDelivery.objects.filter(endpoint=dead)
    assert waiting.count() == 3
    # a tenth of how long it has failed (10 min): a minute, as its other deliveries
    assert all(d.next_attempt_at >= before + datetime.timedelta(seconds=59) for d in waiting)
    assert all(d.next_attempt_at <= services.clock() for d in WebhookDelivery.objects.filter(endpoint=alive))
    # drains for the answering endpoint only, queued by the real kick
    assert broker("webhooks") == [("apps.webhooks.tasks.deliver_endpoint", [str(alive.pk)])] * 3
