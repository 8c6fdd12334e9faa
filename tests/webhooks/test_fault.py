"""At least once under faults: real beat and worker processes on the `webhooks` queue, a
worker SIGKILLed while deliveries are in flight, and the broker's Redis restarted (every
queued task lost). Every committed event reaches the receiver, signed, and the receiver can
dedupe on `webhook-id`."""

from __future__ import annotations

import time

import pytest
from standardwebhooks.webhooks import Webhook

from apps.accounts.services import organization_get_or_create
from apps.core import ids
from apps.events.models import Event
from apps.webhooks import services
from apps.webhooks.models import WebhookDelivery
from tests.publishing.harness import Cluster

from .receiver import Receiver

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N = 150


def _state(endpoint, events) -> str:
    """Where the undelivered ones are stuck (for the failure message)."""
    from django.db.models import Count

    deliveries = dict(
        WebhookDelivery.objects.filter(endpoint=endpoint).values_list("status").annotate(n=Count("pk"))
    )
    leased = WebhookDelivery.objects.filter(
        endpoint=endpoint, leased_until__isnull=False, status="pending"
    ).count()
    undispatched = Event.objects.filter(pk__in=[e.pk for e in events], dispatched_at__isnull=True).count()
    endpoint.refresh_from_db()
    return (
        f"deliveries by status {deliveries}, pending with a lease {leased}, events not dispatched "
        f"{undispatched}, endpoint failing_since={endpoint.failing_since} active={endpoint.active}"
    )


@pytest.mark.handmade_events  # hand-made payloads through the webhook plumbing
def test_every_event_is_delivered_despite_a_killed_worker_and_a_redis_restart(settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    org = organization_get_or_create(name="Webhook faults")
    with Receiver() as receiver:
        receiver.delay = 0.15  # every answer takes a while: deliveries are in flight when the worker dies
        endpoint = services.webhook_create(organization=org, url=receiver.url, events=["content.published"])
        cluster = Cluster(
            workers=2,
            concurrency=2,
            beats=1,
            queues="default,webhooks",
            env={
                "WEBHOOK_ALLOW_HTTP": "true",
                "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8",
                "WEBHOOK_TIMEOUT_SECONDS": "3",
                "WEBHOOK_LEASE_SECONDS": "5",
            },
        ).start()
        try:
            # committed outbox rows whose committing process never dispatched them (it died):
            # the beat's outbox sweep must find them
            events = Event.objects.bulk_create(
                [Event(organization=org, type="content.published", data={"n": i}) for i in range(N)]
            )
            expected = {ids.render(e.pk, "event") for e in events}
            deadline = time.monotonic() + 240
            killed = restarted = False
            while time.monotonic() < deadline:
                got = {r["headers"]["webhook-id"] for r in receiver.requests}
                if not killed and len(receiver.requests) >= 20:
                    cluster.kill_random_worker()  # mid-delivery: the receiver is holding requests
                    killed = True
                if killed and not restarted and len(receiver.requests) >= 60:
                    cluster.restart_redis()
                    restarted = True
                done = WebhookDelivery.objects.filter(endpoint=endpoint, status="succeeded").count()
                if restarted and expected <= got and done == N:
                    break
                time.sleep(0.2)
        finally:
            cluster.stop()
        requests = list(receiver.requests)
    got = {r["headers"]["webhook-id"] for r in requests}
    assert killed and restarted and cluster.kills == 1 and cluster.redis_restarts == 1
    assert expected - got == set(), (
        f"{len(expected - got)} event(s) never delivered; {_state(endpoint, events)}\n{cluster.log_tails()}"
    )
    assert WebhookDelivery.objects.filter(endpoint=endpoint).count() == N
    assert WebhookDelivery.objects.filter(endpoint=endpoint, status="succeeded").count() == N
    for request in requests:  # every copy, duplicates too, is signed and carries its event's id
        payload = Webhook(endpoint.secret).verify(request["body"], request["headers"])
        assert payload["id"] == request["headers"]["webhook-id"]
    # at least once: duplicates are possible (a killed attempt is tried again), and the
    # receiver tells them apart by webhook-id
    assert len(requests) >= N and len(got) == N
