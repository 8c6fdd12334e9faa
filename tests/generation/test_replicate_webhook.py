"""/webhook/replicate: signature, replays, idempotency, and generations finished by webhooks.

With GENERATION_ENGINE=replicate and REPLICATE_WEBHOOK_URL set, the pipeline submits one
prediction per output to the Replicate fake and waits; the fake signs and POSTs each
completed prediction to the configured URL (a WebhookReceiver that records it), and the test
forwards those exact signed deliveries to our endpoint, one at a time.

When a webhook never arrives (the test simply does not forward it), the beat task
`poll_stale_predictions` asks the fake for the prediction (GET /v1/predictions/{id}) through
the engine's own client and completes it the way the webhook would have.
"""

from __future__ import annotations

import datetime
import json
import os
import time

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content.models import Content, Prediction
from apps.content.services import GenerationInput, content_request_generation
from apps.events.models import Event
from apps.generation import pipeline
from apps.generation.engines import _build, get_engine
from apps.generation.predictions import prediction_receive, predictions_poll_stale
from apps.generation.tasks import poll_stale_predictions
from apps.media.models import Kind, MediaAsset
from apps.webhooks.models import InboundWebhook
from tests.generation.provider_fakes import ReplicateFake, WebhookReceiver, sign_replicate_webhook

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/webhook/replicate"
KINDS = {"meta/llama-test": "text", "bfl/flux-test": "image", "wan/video-test": "video"}


@pytest.fixture
def replicate(settings):
    with ReplicateFake(KINDS) as fake, WebhookReceiver() as receiver:
        settings.GENERATION_ENGINE = "replicate"
        settings.REPLICATE_API_TOKEN = fake.token
        settings.REPLICATE_BASE_URL = fake.url
        settings.REPLICATE_TEXT_MODEL = "meta/llama-test"
        settings.REPLICATE_IMAGE_MODEL = "bfl/flux-test"
        settings.REPLICATE_VIDEO_MODEL = "wan/video-test"
        settings.REPLICATE_WEBHOOK_SECRET = fake.webhook_secret
        settings.REPLICATE_WEBHOOK_URL = f"{receiver.url}/hooks/replicate"
        _build.cache_clear()  # the engine is built from settings once per name
        fake.receiver = receiver
        yield fake
        fake.wait_for_webhooks()
    _build.cache_clear()


def _headers(webhook_id: str, timestamp: int, signature: str) -> dict:
    return {"webhook-id": webhook_id, "webhook-timestamp": str(timestamp), "webhook-signature": signature}


def _signed(
    secret: str, payload: dict | bytes, *, webhook_id: str = "msg_test1", timestamp: int | None = None
):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    ts = int(time.time()) if timestamp is None else timestamp
    return body, _headers(webhook_id, ts, sign_replicate_webhook(secret, webhook_id, ts, body))


def _post(client, body: bytes, headers: dict):
    return client.post(URL, data=body, content_type="application/json", headers=headers)


def _forward(client, rec):
    """Deliver a webhook the fake really sent (as recorded by the receiver) to our endpoint."""
    headers = {k: rec.headers[k] for k in ("webhook-id", "webhook-timestamp", "webhook-signature")}
    return _post(client, rec.body, headers)


def _deliveries(replicate, count: int):
    replicate.wait_for_webhooks()
    received = replicate.receiver.requests
    assert len(received) == count
    return received


def _generate(owner, **extra) -> Content:
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    return content_request_generation(
        organization=owner.org,
        inp=GenerationInput(
            prompt="espresso tonic on a sunny terrace", platforms=["instagram"], brand=brand, **extra
        ),
    )


def test_a_generation_submitted_as_predictions_is_finished_by_its_webhooks(client, owner, replicate):
    content = _generate(owner)  # the (eager) task submits and returns: nothing polls

    content.refresh_from_db()
    assert content.status == "generating"
    creates = replicate.requests_to("/predictions", method="POST")
    assert [c.path for c in creates] == [
        "/v1/models/meta/llama-test/predictions",
        "/v1/models/bfl/flux-test/predictions",
    ]
    assert all(c.json["webhook"] == replicate.receiver.url + "/hooks/replicate" for c in creates)
    assert all(c.json["webhook_events_filter"] == ["completed"] for c in creates)
    assert not replicate.requests_to("/v1/predictions/", method="GET")  # no polling
    assert sorted(Prediction.objects.filter(content=content).values_list("kind", "status")) == [
        ("image", "submitted"),
        ("text", "submitted"),
    ]

    first, second = _deliveries(replicate, 2)
    response = _forward(client, first)
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    content.refresh_from_db()
    assert content.status == "generating"  # one of two outputs is in
    assert _forward(client, second).status_code == 200

    content.refresh_from_db()
    assert content.status == "review" and content.progress == 100
    variant = content.variants.get()
    assert (
        variant.platform == "instagram"
        and variant.caption == "Big news from us. espresso tonic on a sunny terrace Link in bio."
    )
    (image,) = MediaAsset.objects.filter(content=content, kind=Kind.GENERATED)
    assert (image.width, image.height) == (1080, 1350)  # the provider's output, fitted exactly
    assert set(Prediction.objects.filter(content=content).values_list("status", flat=True)) == {"done"}
    assert Event.objects.filter(type="content.generated", data__contentId=str(content.pk)).count() == 1
    assert InboundWebhook.objects.filter(provider="replicate").count() == 2


def test_a_replayed_delivery_is_accepted_once_and_changes_nothing(client, owner, replicate):
    content = _generate(owner)
    deliveries = _deliveries(replicate, 2)
    for rec in deliveries:
        assert _forward(client, rec).json()["status"] == "accepted"
    content.refresh_from_db()
    generated_at = content.generated_at

    replay = _forward(client, deliveries[0])  # the same webhook-id again
    assert replay.status_code == 200 and replay.json() == {"status": "duplicate"}
    # the provider retrying the same prediction under a new webhook-id: accepted, nothing to do
    body, headers = _signed(replicate.webhook_secret, deliveries[1].body, webhook_id="msg_retry")
    retry = _post(client, body, headers)
    assert retry.status_code == 200 and retry.json()["completing"] is False

    content.refresh_from_db()
    assert content.status == "review" and content.generated_at == generated_at
    assert MediaAsset.objects.filter(content=content, kind=Kind.GENERATED).count() == 1
    assert Event.objects.filter(type="content.generated", data__contentId=str(content.pk)).count() == 1
    assert InboundWebhook.objects.count() == 3


def test_a_failed_prediction_fails_the_content_with_the_providers_reason(client, owner, replicate):
    replicate.fail_predictions_with = "CUDA out of memory"
    content = _generate(owner)
    first, second = _deliveries(replicate, 2)

    assert _forward(client, first).status_code == 200
    content.refresh_from_db()
    assert content.status == "failed"
    assert content.status_reason == "Generation failed: replicate: prediction failed: CUDA out of memory"
    failed = Event.objects.get(type="content.failed", data__contentId=str(content.pk))
    assert failed.data["reason"] == content.status_reason
    assert _forward(client, second).status_code == 200  # the other output: acknowledged, ignored
    content.refresh_from_db()
    assert content.status == "failed"
    assert not MediaAsset.objects.filter(content=content).exists()


def test_a_webhook_that_arrives_before_its_prediction_is_recorded_still_completes_it(
    client, owner, replicate
):
    payload = {
        "id": "early0001",
        "status": "succeeded",
        "output": [
            json.dumps(
                {
                    "caption": "Sunny terrace, cold espresso tonic.",
                    "hashtags": ["#espresso"],
                    "first_comment": "",
                    "alt_text": "A glass of espresso tonic",
                    "title": "",
                    "sounds": [],
                }
            )
        ],
    }
    body, headers = _signed(replicate.webhook_secret, payload)
    early = _post(client, body, headers)
    assert early.status_code == 200 and early.json()["completing"] is False  # unknown yet: kept

    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_request_generation(
        organization=owner.org,
        enqueue=False,
        inp=GenerationInput(
            prompt="espresso tonic", platforms=["instagram"], brand=brand, media_request={"generate": False}
        ),
    )
    pipeline.claim(content.pk)
    # what predictions_submit does right after the provider returned the id
    Prediction.objects.create(content=content, provider="replicate", external_id="early0001", kind="text")
    assert prediction_receive(provider="replicate", external_id="early0001") is True

    content.refresh_from_db()
    assert content.status == "review"
    assert content.variants.get().caption.startswith("Sunny terrace, cold espresso tonic.")


@pytest.mark.parametrize(
    "case, status",
    [
        ("tampered body", 401),
        ("wrong secret", 401),
        ("stale timestamp", 401),
        ("missing signature", 400),
        ("signed but not json", 400),
        ("no secret configured", 401),
    ],
)
def test_a_delivery_that_fails_verification_is_refused_and_not_kept(client, settings, case, status):
    settings.REPLICATE_WEBHOOK_SECRET = secret = "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHM="
    payload = {"id": "pred1", "status": "succeeded", "output": ["x"]}
    body, headers = _signed(secret, payload)
    if case == "tampered body":
        body = body.replace(b"succeeded", b"failed")
    elif case == "wrong secret":
        body, headers = _signed("whsec_" + "b3RoZXIta2V5LW5vdC1vdXJz", payload)
    elif case == "stale timestamp":
        body, headers = _signed(secret, payload, timestamp=int(time.time()) - 3600)
    elif case == "missing signature":
        del headers["webhook-signature"]
    elif case == "signed but not json":
        body, headers = _signed(secret, b"not json")
    elif case == "no secret configured":
        settings.REPLICATE_WEBHOOK_SECRET = ""

    response = _post(client, body, headers)

    assert response.status_code == status, response.content
    assert "error" in response.json()
    assert not InboundWebhook.objects.exists()


def test_only_post_is_allowed(client):
    assert client.get(URL).status_code == 405


# --- predictions whose webhook never comes: the poll -----------------------------------------------


def _age(content: Content, seconds: float) -> None:
    Prediction.objects.filter(content=content).update(
        created_at=timezone.now() - datetime.timedelta(seconds=seconds)
    )


NOTHING_ASKED = {"asked": 0, "completing": 0, "running": 0, "unavailable": 0, "failed": 0}


def test_a_prediction_whose_webhook_never_comes_is_completed_by_the_poll(client, owner, replicate):
    content = _generate(owner)
    deliveries = _deliveries(replicate, 2)  # the provider sent them; they never reach us
    ids = set(Prediction.objects.filter(content=content).values_list("external_id", flat=True))

    assert predictions_poll_stale() == NOTHING_ASKED  # younger than 60 s: the webhook may still come
    assert not replicate.requests_to("/v1/predictions/", method="GET")

    _age(content, 61)
    counts = predictions_poll_stale()

    assert counts == {**NOTHING_ASKED, "asked": 2, "completing": 2}
    gets = replicate.requests_to("/v1/predictions/", method="GET")
    assert {g.path for g in gets} == {
        f"/v1/predictions/{i}" for i in ids
    }  # Replicate's own endpoint, by the SDK
    assert all(g.headers["authorization"] == f"Bearer {replicate.token}" for g in gets)
    content.refresh_from_db()
    assert content.status == "review" and content.progress == 100
    assert content.variants.get().caption.startswith("Big news from us. espresso tonic")
    (image,) = MediaAsset.objects.filter(content=content, kind=Kind.GENERATED)
    assert (image.width, image.height) == (1080, 1350)
    assert set(Prediction.objects.filter(content=content).values_list("status", flat=True)) == {"done"}
    assert Event.objects.filter(type="content.generated", data__contentId=str(content.pk)).count() == 1
    assert not InboundWebhook.objects.exists()

    # the webhooks turning up late change nothing, and there is nothing left to poll
    for rec in deliveries:
        late = _forward(client, rec)
        assert late.status_code == 200 and late.json()["completing"] is False
    assert predictions_poll_stale(older_than_seconds=0) == NOTHING_ASKED
    content.refresh_from_db()
    assert content.status == "review"
    assert Event.objects.filter(type="content.generated", data__contentId=str(content.pk)).count() == 1


def test_the_beat_task_fails_the_content_with_the_providers_reason(owner, replicate, settings):
    replicate.fail_predictions_with = "CUDA out of memory"
    settings.PREDICTION_POLL_AFTER_SECONDS = 30
    content = _generate(owner)
    _deliveries(replicate, 2)  # never forwarded
    _age(content, 31)

    poll_stale_predictions.delay()

    content.refresh_from_db()
    assert content.status == "failed"
    assert content.status_reason == "Generation failed: replicate: prediction failed: CUDA out of memory"
    failed = Event.objects.get(type="content.failed", data__contentId=str(content.pk))
    assert failed.data["reason"] == content.status_reason
    assert not MediaAsset.objects.filter(content=content).exists()
    assert (
        predictions_poll_stale(older_than_seconds=0) == NOTHING_ASKED
    )  # failed content is not asked about again


def _generating_with_an_unhooked_prediction(owner) -> tuple[Content, str]:
    """Content generating with one text prediction created at the fake without a webhook."""
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_request_generation(
        organization=owner.org,
        enqueue=False,
        inp=GenerationInput(
            prompt="espresso tonic", platforms=["instagram"], brand=brand, media_request={"generate": False}
        ),
    )
    pipeline.claim(content.pk)
    created = get_engine().client.predictions.create(
        model="meta/llama-test", input={"prompt": "espresso tonic"}
    )
    Prediction.objects.create(content=content, provider="replicate", external_id=created.id, kind="text")
    _age(content, 120)
    return content, created.id


def test_a_prediction_still_running_is_asked_again_at_the_next_poll(owner, replicate):
    content, _ = _generating_with_an_unhooked_prediction(owner)

    assert predictions_poll_stale() == {
        **NOTHING_ASKED,
        "asked": 1,
        "running": 1,
    }  # the fake: starting -> processing
    content.refresh_from_db()
    assert content.status == "generating"
    assert Prediction.objects.get(content=content).status == "submitted"

    assert predictions_poll_stale() == {
        **NOTHING_ASKED,
        "asked": 1,
        "completing": 1,
    }  # processing -> succeeded
    content.refresh_from_db()
    assert content.status == "review"
    assert content.variants.get().caption.startswith("Fresh ideas about espresso tonic")


def test_a_provider_error_waits_for_the_next_poll_and_an_unknown_prediction_fails(owner, replicate):
    content, external_id = _generating_with_an_unhooked_prediction(owner)

    replicate.fail(500, "Internal error", path_contains=f"/v1/predictions/{external_id}")
    assert predictions_poll_stale() == {**NOTHING_ASKED, "asked": 1, "unavailable": 1}
    content.refresh_from_db()
    assert content.status == "generating"

    replicate.fail(
        404, "The requested resource could not be found.", path_contains=f"/v1/predictions/{external_id}"
    )
    assert predictions_poll_stale() == {**NOTHING_ASKED, "asked": 1, "failed": 1}
    content.refresh_from_db()
    assert content.status == "failed"
    assert (
        content.status_reason
        == "Generation failed: replicate: 404 The requested resource could not be found."
    )


def test_the_poll_runs_every_30_seconds_from_beat(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["poll-stale-predictions"]
    assert entry["task"] == poll_stale_predictions.name == "apps.content.tasks.poll_stale_predictions"
    assert entry["schedule"] == 30.0
    assert entry["kwargs"] == {
        "older_than_seconds": float(os.environ.get("PREDICTION_POLL_AFTER_SECONDS", "60"))
    }
