"""/webhook/replicate: signature, replays, idempotency, and generations finished by webhooks.

With GENERATION_ENGINE=replicate and REPLICATE_WEBHOOK_URL set, the pipeline submits one
prediction per output to the Replicate fake and waits; the fake signs and POSTs each
completed prediction to the configured URL (a WebhookReceiver that records it), and the test
forwards those exact signed deliveries to our endpoint, one at a time.
"""

from __future__ import annotations

import json
import time

import pytest

from apps.brands.models import Brand
from apps.content import pipeline
from apps.content.generation import _build
from apps.content.models import Content, Prediction
from apps.content.predictions import prediction_receive
from apps.content.services import GenerationInput, content_request_generation
from apps.events.models import Event
from apps.media.models import Kind, MediaAsset
from apps.webhooks.models import InboundWebhook
from tests.content.provider_fakes import ReplicateFake, WebhookReceiver, sign_replicate_webhook

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


def _signed(secret: str, payload: dict | bytes, *, webhook_id: str = "msg_test1", timestamp: int | None = None):
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
        inp=GenerationInput(prompt="espresso tonic on a sunny terrace", platforms=["instagram"], brand=brand, **extra),
    )


def test_a_generation_submitted_as_predictions_is_finished_by_its_webhooks(client, owner, replicate):
    content = _generate(owner)  # the (eager) task submits and returns: nothing polls

    content.refresh_from_db()
    assert content.status == "generating"
    creates = replicate.requests_to("/predictions", method="POST")
    assert [c.path for c in creates] == ["/v1/models/meta/llama-test/predictions", "/v1/models/bfl/flux-test/predictions"]
    assert all(c.json["webhook"] == replicate.receiver.url + "/hooks/replicate" for c in creates)
    assert all(c.json["webhook_events_filter"] == ["completed"] for c in creates)
    assert not replicate.requests_to("/v1/predictions/", method="GET")  # no polling
    assert sorted(Prediction.objects.filter(content=content).values_list("kind", "status")) == [
        ("image", "submitted"), ("text", "submitted")]

    first, second = _deliveries(replicate, 2)
    response = _forward(client, first)
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    content.refresh_from_db()
    assert content.status == "generating"  # one of two outputs is in
    assert _forward(client, second).status_code == 200

    content.refresh_from_db()
    assert content.status == "review" and content.progress == 100
    variant = content.variants.get()
    assert variant.platform == "instagram" and variant.caption.startswith("Fresh ideas about")
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


def test_a_webhook_that_arrives_before_its_prediction_is_recorded_still_completes_it(client, owner, replicate):
    payload = {"id": "early0001", "status": "succeeded", "output": [json.dumps(
        {"caption": "Sunny terrace, cold espresso tonic.", "hashtags": ["#espresso"], "first_comment": "",
         "alt_text": "A glass of espresso tonic", "title": "", "sounds": []})]}
    body, headers = _signed(replicate.webhook_secret, payload)
    early = _post(client, body, headers)
    assert early.status_code == 200 and early.json()["completing"] is False  # unknown yet: kept

    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_request_generation(
        organization=owner.org, enqueue=False,
        inp=GenerationInput(prompt="espresso tonic", platforms=["instagram"], brand=brand,
                            media_request={"generate": False}),
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
    [("tampered body", 401), ("wrong secret", 401), ("stale timestamp", 401), ("missing signature", 400),
     ("signed but not json", 400), ("no secret configured", 401)],
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
