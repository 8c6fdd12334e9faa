"""Outbound webhooks: registration API (both families), deliveries from the outbox, Standard
Webhooks signatures checked by the `standardwebhooks` package, retries, the log, disabling."""

from __future__ import annotations

import datetime
import json
import uuid

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from apps.core import ids
from apps.events.models import Event
from apps.events.services import event_record, events_dispatch
from apps.webhooks import services
from apps.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db


def _create(persona, url, events=("*",), **extra):
    return persona.client().post("/v1/webhooks", {"url": url, "events": list(events), **extra}, format="json")


def _attempt(delivery):
    return services.delivery_attempt(delivery_id=delivery.pk)


# --- registration -------------------------------------------------------------------------


def test_create_shows_secret_once_and_lists_without_it(owner, viewer, loopback):
    r = _create(owner, "http://127.0.0.1:9/hook", ["content.published", "content.failed"])
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["id"].startswith("whk_") and body["secret"].startswith("whsec_")
    assert body["events"] == ["content.published", "content.failed"] and body["active"] is True
    listed = viewer.client().get("/v1/webhooks").json()
    assert [w["id"] for w in listed["data"]] == [body["id"]] and "secret" not in listed["data"][0]
    assert "secret" not in owner.client().get(f"/v1/webhooks/{body['id']}").json()


def test_viewer_and_editor_cannot_manage(editor, viewer, loopback):
    for persona in (editor, viewer):
        r = _create(persona, "http://127.0.0.1:9/hook")
        assert r.status_code == 403 and r.json()["error"]["code"] == "AUTHORIZATION_ERROR"


def test_unknown_event_and_bad_secret_are_400(owner, loopback):
    r = _create(owner, "http://127.0.0.1:9/hook", ["content.published", "content.exploded"])
    assert r.status_code == 400
    assert "content.exploded" in r.json()["error"]["message"]
    assert "content.published" in r.json()["error"]["details"]["events"][0]  # lists the known ones
    r = _create(owner, "http://127.0.0.1:9/hook", secret="not-a-secret")
    assert r.status_code == 400 and "secret" in r.json()["error"]["details"]
    r = _create(owner, "http://127.0.0.1:9/hook", secret="whsec_" + "QUFB")  # 3 bytes: too short
    assert r.status_code == 400
    given = services.secret_make()
    r = _create(owner, "http://127.0.0.1:9/hook", secret=given)
    assert r.status_code == 201 and r.json()["secret"] == given


def test_update_delete_and_other_org_is_404(owner, outsider, loopback):
    wid = _create(owner, "http://127.0.0.1:9/hook").json()["id"]
    r = owner.client().put(
        f"/v1/webhooks/{wid}", {"events": ["content.created"], "active": False}, format="json"
    )
    assert r.status_code == 200 and r.json()["events"] == ["content.created"] and r.json()["active"] is False
    assert outsider.client().get(f"/v1/webhooks/{wid}").status_code == 404
    assert outsider.client().delete(f"/v1/webhooks/{wid}").status_code == 404
    assert owner.client().delete(f"/v1/webhooks/{wid}").status_code == 204
    assert owner.client().get(f"/v1/webhooks/{wid}").status_code == 404


def test_family_b_same_service(owner, loopback):
    c = owner.client()
    r = c.post("/api/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["nope"]}, format="json")
    assert r.status_code == 400 and isinstance(r.json()["error"], str)
    r = c.post("/api/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["*"]}, format="json")
    assert r.status_code == 201
    data = r.json()["data"]
    assert ids.parse(data["id"]) and "_" not in data["id"] and data["secret"].startswith("whsec_")
    assert c.get("/api/webhooks").json()["pagination"]["total"] == 1
    assert c.get(f"/v1/webhooks/{ids.render(data['id'], 'webhook')}").status_code == 200


# --- deliveries and signatures ------------------------------------------------------------


@pytest.mark.handmade_events  # hand-made payloads through the webhook plumbing
def test_event_from_outbox_is_delivered_signed(owner, receiver):
    wid = _create(owner, receiver.url, ["content.published"]).json()
    other = _create(owner, receiver.url, ["content.failed"]).json()  # not subscribed to this one
    content_id = ids.render(uuid.uuid4(), "content")
    event = event_record(
        organization=owner.org,
        type="content.published",
        data={"contentId": content_id, "status": "published"},
    )
    assert events_dispatch(event_ids=[event.pk]) == 1  # dispatch creates the delivery and kicks the task
    [request] = receiver.wait_for(1)
    payload = Webhook(wid["secret"]).verify(request["body"], request["headers"])
    assert payload == {
        "id": ids.render(event.pk, "event"),
        "type": "content.published",
        "timestamp": payload["timestamp"],
        "organizationId": ids.render(owner.org.pk, "organization"),
        "data": {"contentId": content_id, "status": "published"},
    }
    assert request["headers"]["webhook-id"] == payload["id"]
    assert request["headers"]["content-type"] == "application/json"
    assert "Postforge" in request["headers"]["user-agent"]
    with pytest.raises(WebhookVerificationError):
        Webhook(other["secret"]).verify(request["body"], request["headers"])
    delivery = WebhookDelivery.objects.get(endpoint_id=ids.parse(wid["id"]))
    assert delivery.status == "succeeded" and delivery.attempts.get().status_code == 200
    assert not WebhookDelivery.objects.filter(endpoint_id=ids.parse(other["id"])).exists()
    # dispatching the same event again creates no second delivery
    Event.objects.filter(pk=event.pk).update(dispatched_at=None)
    events_dispatch(event_ids=[event.pk])
    assert WebhookDelivery.objects.filter(event=event).count() == 1


def test_rotation_signs_with_both_secrets_for_24h(owner, receiver, clock):
    created = _create(owner, receiver.url).json()
    rotated = owner.client().post(f"/v1/webhooks/{created['id']}/rotate-secret")
    assert rotated.status_code == 200 and rotated.json()["secret"] != created["secret"]
    test = owner.client().post(f"/v1/webhooks/{created['id']}/test")
    assert test.status_code == 202 and test.json()["eventType"] == "webhook.test"
    delivery = WebhookDelivery.objects.get()
    _attempt(delivery)
    [request] = receiver.wait_for(1)
    assert len(request["headers"]["webhook-signature"].split(" ")) == 2
    for secret in (created["secret"], rotated.json()["secret"]):  # either secret verifies
        assert Webhook(secret).verify(request["body"], request["headers"])["type"] == "webhook.test"
    # after 24 h only the new secret signs
    clock.advance(24 * 3600 + 1)
    endpoint = WebhookEndpoint.objects.get()
    now = clock()
    assert services.signing_secrets(endpoint, now) == [rotated.json()["secret"]]


def test_test_endpoint_deliveries_log_and_redeliver(owner, outsider, receiver):
    wid = _create(owner, receiver.url).json()["id"]
    c = owner.client()
    dlv = c.post(f"/v1/webhooks/{wid}/test").json()
    assert dlv["id"].startswith("dlv_") and dlv["status"] == "pending"
    _attempt(WebhookDelivery.objects.get())
    receiver.answer(500, body=b"x" * 5000)
    r = c.post(f"/v1/webhooks/{wid}/deliveries/{dlv['id']}/redeliver")
    assert r.status_code == 202
    _attempt(WebhookDelivery.objects.get())
    requests = receiver.wait_for(2)
    assert requests[0]["headers"]["webhook-id"] == requests[1]["headers"]["webhook-id"] == dlv["eventId"]
    detail = c.get(f"/v1/webhooks/{wid}/deliveries/{dlv['id']}").json()
    assert [a["statusCode"] for a in detail["attempts"]] == [200, 500]
    assert len(detail["attempts"][1]["responseBody"]) == 2048 and detail["attempts"][1]["error"] == "HTTP 500"
    assert c.get(f"/v1/webhooks/{wid}/deliveries", {"status": "pending"}).json()["pagination"]["total"] == 1
    assert c.get(f"/v1/webhooks/{wid}/deliveries", {"status": "succeeded"}).json()["pagination"]["total"] == 0
    assert c.get(f"/v1/webhooks/{wid}/deliveries", {"eventType": "content.created"}).json()["data"] == []
    assert c.get(f"/v1/webhooks/{wid}/deliveries", {"status": "bogus"}).status_code == 400
    assert outsider.client().get(f"/v1/webhooks/{wid}/deliveries/{dlv['id']}").status_code == 404


# --- retries, Retry-After, 410, redirects, hangs, 5 days ---------------------------------


def _delivery(owner, receiver):
    endpoint = services.webhook_create(organization=owner.org, url=receiver.url, events=["*"])
    return services.webhook_test(endpoint=endpoint)


def test_retry_schedule_with_jitter_until_failed(owner, receiver, clock):
    receiver.answer(500)
    delivery = _delivery(owner, receiver)
    for n, base in enumerate(services.RETRY_SCHEDULE, start=1):
        assert _attempt(delivery) is not None
        delivery.refresh_from_db()
        wait = (delivery.next_attempt_at - clock()).total_seconds()
        assert base * 0.9 <= wait <= base * 1.1, (n, wait)
        clock.advance(wait / 2)
        assert _attempt(delivery) is None  # not due yet
        clock.advance(wait / 2 + 0.001)
    # retries ran out: clock moved ~1.3 days, not yet 5 days; the endpoint stays active
    assert _attempt(delivery).status_code == 500
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempt_count == 8
    assert WebhookAttempt.objects.filter(delivery=delivery).count() == 8
    assert WebhookEndpoint.objects.get().active


def test_retry_after_is_honoured(owner, receiver, clock):
    receiver.answer(429, {"Retry-After": "120"})
    delivery = _delivery(owner, receiver)
    _attempt(delivery)
    delivery.refresh_from_db()
    assert (delivery.next_attempt_at - clock()).total_seconds() == pytest.approx(120)
    receiver.answer(503, {"Retry-After": "7"})
    clock.advance(120)
    _attempt(delivery)
    delivery.refresh_from_db()
    assert (delivery.next_attempt_at - clock()).total_seconds() == pytest.approx(7)


def test_410_disables_at_once_and_emits_webhook_disabled(owner, receiver, clock):
    receiver.answer(410)
    other = services.webhook_create(organization=owner.org, url=receiver.url, events=["webhook.disabled"])
    delivery = _delivery(owner, receiver)
    _attempt(delivery)
    endpoint = delivery.endpoint
    endpoint.refresh_from_db()
    assert not endpoint.active and "410" in endpoint.disabled_reason
    delivery.refresh_from_db()
    assert delivery.status == "failed"
    event = Event.objects.get(type="webhook.disabled")
    assert event.data["webhookId"] == ids.render(endpoint.pk, "webhook")
    events_dispatch(event_ids=[event.pk])
    note = WebhookDelivery.objects.get(event=event)
    assert note.endpoint_id == other.pk  # the org's other endpoint hears of it, not the disabled one
    r = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert r.disabled_at is not None


def test_redirect_is_a_failure_and_not_followed(owner, receiver, clock):
    receiver.answer(302, {"Location": receiver.url + "/elsewhere"})
    delivery = _delivery(owner, receiver)
    attempt = _attempt(delivery)
    assert attempt.status_code == 302 and attempt.error == "redirect not followed"
    assert len(receiver.requests) == 1
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.next_attempt_at > clock()


def test_hang_times_out_and_is_logged(owner, receiver, clock, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    receiver.hang.set()
    delivery = _delivery(owner, receiver)
    attempt = _attempt(delivery)
    assert attempt.status_code is None and "timed out" in attempt.error and attempt.latency_ms >= 450


def test_five_days_of_failures_disable_the_endpoint(owner, receiver, clock):
    receiver.answer(500)
    delivery = _delivery(owner, receiver)
    _attempt(delivery)
    clock.advance(4 * 86400)
    second = services.webhook_test(endpoint=delivery.endpoint)
    _attempt(second)
    assert WebhookEndpoint.objects.get().active  # 4 days
    clock.advance(86400)
    third = services.webhook_test(endpoint=delivery.endpoint)
    _attempt(third)
    endpoint = WebhookEndpoint.objects.get()
    assert not endpoint.active and "5 days" in endpoint.disabled_reason
    assert Event.objects.filter(type="webhook.disabled").count() == 1


def test_success_clears_failing_and_log_is_pruned(owner, receiver, clock):
    receiver.answer(500)
    delivery = _delivery(owner, receiver)
    _attempt(delivery)
    assert WebhookEndpoint.objects.get().failing_since is not None
    receiver.answer(200)
    clock.advance(10)
    _attempt(delivery)
    assert WebhookEndpoint.objects.get().failing_since is None
    clock.advance(31 * 86400)
    assert services.logs_prune() == 1 + 2  # the delivery and its two attempts (cascade)
    assert not WebhookDelivery.objects.exists()


def test_failing_endpoint_gets_one_attempt_in_flight(owner, receiver, clock, settings):
    settings.WEBHOOK_ENDPOINT_CONCURRENCY = 2
    receiver.answer(500)
    first = _delivery(owner, receiver)
    _attempt(first)
    endpoint = WebhookEndpoint.objects.get()
    a = services.webhook_test(endpoint=endpoint)
    b = services.webhook_test(endpoint=endpoint)
    assert services.delivery_claim(delivery_id=a.pk) is not None
    assert services.delivery_claim(delivery_id=b.pk) is None  # a failing endpoint: one at a time
    services.WebhookDelivery.objects.filter(pk=a.pk).update(leased_until=None)
    # just-created deliveries were kicked by their creator: the sweep leaves them a moment
    assert services.deliveries_sweep() == 0
    clock.advance(3)
    # the sweep hands out at most that bound per endpoint (the rest stays in the database)
    assert services.deliveries_sweep() == 1


@pytest.mark.handmade_events  # hand-made payloads through the webhook plumbing
def test_a_burst_drains_over_one_kept_connection_per_task(owner, receiver, settings):
    """Ten events committed together: their endpoint's deliveries go one after another over
    one connection (one task per endpoint up to its bound, not one per delivery), each next
    one leased as the last is recorded."""
    settings.WEBHOOK_ENDPOINT_CONCURRENCY = 1
    endpoint = services.webhook_create(organization=owner.org, url=receiver.url, events=["content.published"])
    events = [
        event_record(organization=owner.org, type="content.published", data={"n": i}) for i in range(10)
    ]
    sent = []
    from apps.webhooks import tasks

    original = tasks.deliver_endpoint.delay
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tasks.deliver_endpoint, "delay", lambda *a: (sent.append(a), original(*a)))
        assert events_dispatch(event_ids=[e.pk for e in events]) == 10
    requests = receiver.wait_for(10)
    assert len(sent) == 1  # one drain task for the burst
    assert [json.loads(r["body"])["data"]["n"] for r in requests] == list(range(10))  # in commit order
    assert len({r["peer"] for r in requests}) == 1  # one kept-alive connection
    assert WebhookDelivery.objects.filter(endpoint=endpoint, status="succeeded").count() == 10
    assert not WebhookDelivery.objects.filter(endpoint=endpoint, leased_until__isnull=False).exists()


def test_a_drain_stops_at_a_failure_and_hands_on_after_its_budget(owner, receiver, settings, clock):
    endpoint = services.webhook_create(organization=owner.org, url=receiver.url, events=["*"])
    for _ in range(3):
        services.webhook_test(endpoint=endpoint)
    receiver.answer(500)
    assert services.endpoint_drain(endpoint_id=endpoint.pk) == 1  # the failure stops it: retries take over
    assert WebhookDelivery.objects.filter(endpoint=endpoint, attempt_count=0).count() == 2
    receiver.answer(200)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=None)
    # a zero budget: one attempt, then the rest goes to a fresh task (eager here)
    assert services.endpoint_drain(endpoint_id=endpoint.pk, budget_seconds=0) == 1
    assert WebhookDelivery.objects.filter(endpoint=endpoint, status="succeeded").count() == 2


@pytest.mark.handmade_events  # hand-made payloads through the webhook plumbing
def test_data_is_the_resource_as_get_v1_renders_it(owner, receiver, api):
    """content.published carries the content as GET /v1/content/{id} shows it (publications
    with their post URLs); publication.failed the publication with its error; a resource gone
    by then keeps the event's own fields, ids in Family A form."""
    from django.utils import timezone

    from apps.publishing.models import Publication
    from tests.content.factories import make_content
    from tests.factories import ProfileFactory

    services.webhook_create(organization=owner.org, url=receiver.url, events=["*"])
    profile = ProfileFactory(organization=owner.org, platform="instagram")
    content = make_content(owner.org, brand=profile.brand, status="published", platforms=("instagram",))
    now = timezone.now()
    pub = Publication.objects.create(
        organization=owner.org,
        content=content,
        profile=profile,
        platform="instagram",
        scheduled_for=now,
        due_at=now,
        status="published",
        published_at=now,
        external_id="1789",
        url="https://www.instagram.com/p/abc/",
    )
    failed = Publication.objects.create(
        organization=owner.org,
        content=content,
        profile=ProfileFactory(organization=owner.org, platform="instagram"),
        platform="instagram",
        scheduled_for=now,
        due_at=now,
        status="failed",
        last_error="Instagram refused the image: too small",
        error_code="invalid_media",
    )
    events = [
        event_record(organization=owner.org, type="content.published", data={"contentId": str(content.pk)}),
        event_record(
            organization=owner.org, type="publication.failed", data={"publicationId": str(failed.pk)}
        ),
        event_record(organization=owner.org, type="content.deleted", data={"contentId": str(uuid.uuid4())}),
    ]
    assert events_dispatch(event_ids=[e.pk for e in events]) == 3
    bodies = {json.loads(r["body"])["type"]: json.loads(r["body"]) for r in receiver.wait_for(3)}
    got = api.get(f"/v1/content/{ids.render(content.pk, 'content')}").json()
    got.pop("analytics")  # the single GET adds metrics; at publish time they are zeros, left out
    shown = bodies["content.published"]["data"]
    assert shown == got
    assert {p["url"] for p in shown["publications"]} == {pub.url, None}
    assert {p["lastError"] for p in shown["publications"]} == {
        None,
        failed.last_error,
    }  # the error per platform
    pf = bodies["publication.failed"]["data"]
    assert pf["id"] == ids.render(failed.pk, "publication") and pf["status"] == "failed"
    assert (pf["error"], pf["errorCode"], pf["lastError"]) == (
        failed.last_error,
        "invalid_media",
        failed.last_error,
    )
    gone = bodies["content.deleted"]["data"]
    assert gone["contentId"].startswith("cnt_")


def test_queries_per_delivery_in_a_drain_are_pinned(owner, receiver, django_assert_max_num_queries):
    """A drain costs one claim (the organization locked and its leases counted, the endpoint
    locked, its leases counted, the first due row and its lease) and then, per delivery, one recording transaction (committed without waiting
    for the WAL flush) that also leases the next: the attempt, the delivery, the next due row
    and its lease (none after the last)."""
    endpoint = services.webhook_create(organization=owner.org, url=receiver.url, events=["*"])
    for _ in range(5):
        services.webhook_test(endpoint=endpoint)
    # an endpoint that answers (a new one is probed first: one more write, and the kick of
    # the parallel drains its answer allows)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(answered_at=services.clock())
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        assert services.endpoint_drain(endpoint_id=endpoint.pk) == 5
    statements = [
        q["sql"]
        for q in ctx.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE", "SET LOCAL synchronous_commit"))
    ]
    assert len(statements) == 6 + 5 * 4 - 1, "\n".join(statements)
    assert len({r["peer"] for r in receiver.requests}) == 1  # over one connection


def test_rendering_a_dispatch_costs_the_same_queries_for_2_or_6_contents(owner, loopback):
    """Deliveries' data is read once per dispatch (the contents with their variants, media and
    publications), not once per event."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.content.factories import make_content

    services.webhook_create(organization=owner.org, url="http://127.0.0.1:9/hook", events=["*"])

    def queries(n: int) -> int:
        events = [
            event_record(
                organization=owner.org,
                type="content.published",
                data={"contentId": str(make_content(owner.org).pk)},
            )
            for _ in range(n)
        ]
        with CaptureQueriesContext(connection) as ctx:
            created = services.deliveries_create_for_events(events=events)
        assert len(created) == n
        return len(ctx.captured_queries)

    assert queries(2) == queries(6) == 6  # endpoints, contents, variants, media, publications, the insert


def test_an_unreachable_endpoint_holds_its_backlog_back_instead_of_a_worker_per_delivery(
    owner, receiver, clock
):
    """A timeout, a refused connection or 429/503 is the endpoint's state, not one message's:
    its other due deliveries wait (Retry-After, else a tenth of how long it has been failing,
    5 s to 10 min) and keep their own retry counts; an HTTP error answer defers nothing."""
    from tests.publishing.harness import free_port

    endpoint = services.webhook_create(
        organization=owner.org, url=f"http://127.0.0.1:{free_port()}/down", events=["*"]
    )
    first, *others = [services.webhook_test(endpoint=endpoint) for _ in range(4)]
    start = clock.now
    attempt = services.delivery_attempt(delivery_id=first.pk)
    assert attempt.status_code is None and attempt.error  # connection refused
    waiting = WebhookDelivery.objects.filter(pk__in=[d.pk for d in others])
    assert {d.next_attempt_at for d in waiting} == {start + datetime.timedelta(seconds=5)}
    assert {d.attempt_count for d in waiting} == {0}
    assert services.deliveries_sweep() == 0  # nothing due: no worker is spent on them
    clock.advance(3600)  # failing for an hour: the next failure holds them back 6 minutes
    services.delivery_attempt(delivery_id=others[0].pk)
    assert {d.next_attempt_at for d in waiting.exclude(pk=others[0].pk)} == {
        clock.now + datetime.timedelta(seconds=360)
    }

    # 503 with Retry-After: the endpoint says when; a 500 answer defers no other delivery
    live = services.webhook_create(organization=owner.org, url=receiver.url, events=["*"])
    a, b, c = (services.webhook_test(endpoint=live) for _ in range(3))
    receiver.answer(503, {"Retry-After": "120"})
    services.delivery_attempt(delivery_id=a.pk)
    b.refresh_from_db()
    assert b.next_attempt_at == clock.now + datetime.timedelta(seconds=120)
    WebhookDelivery.objects.filter(pk=b.pk).update(next_attempt_at=clock.now)
    receiver.answer(500)
    services.delivery_attempt(delivery_id=b.pk)
    c.refresh_from_db()
    assert c.next_attempt_at == clock.now + datetime.timedelta(seconds=120)  # unchanged by the 500
