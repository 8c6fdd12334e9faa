"""Inbound provider webhooks: valid, one byte tampered, stale, header missing, replayed, and the
same event ten times at once (recorded once). Clerk's signatures come from `svix`, Stripe's
from `stripe`."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import stripe
from django.test import Client
from svix.webhooks import Webhook as SvixWebhook

from apps.webhooks.models import InboundWebhook
from tests.factories import ProfileFactory

CLERK = "whsec_" + base64.b64encode(b"c" * 32).decode()
STRIPE = "whsec_stripe_test_secret"
WORKOS = "workos-secret"
META = "meta-app-secret"
TIKTOK = "tiktok-client-secret"


@pytest.fixture(autouse=True)
def secrets(settings):
    settings.CLERK_WEBHOOK_SECRET = CLERK
    settings.STRIPE_WEBHOOK_SECRET = STRIPE
    settings.WORKOS_WEBHOOK_SECRET = WORKOS
    settings.META_APP_SECRET = META
    settings.META_WEBHOOK_VERIFY_TOKEN = "verify-me"
    settings.TIKTOK_CLIENT_SECRET = TIKTOK


def _hex(key: str, message: bytes) -> str:
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def signed(provider: str, body: bytes, *, ts: int | None = None) -> dict:
    ts = int(time.time()) if ts is None else ts
    if provider == "clerk":
        msg_id = "msg_" + hashlib.sha1(body).hexdigest()[:20]
        sig = SvixWebhook(CLERK).sign(
            msg_id, datetime.datetime.fromtimestamp(ts, tz=datetime.UTC), body.decode()
        )
        return {"HTTP_SVIX_ID": msg_id, "HTTP_SVIX_TIMESTAMP": str(ts), "HTTP_SVIX_SIGNATURE": sig}
    if provider == "billing":
        sig = stripe.WebhookSignature._compute_signature(f"{ts}.{body.decode()}", STRIPE)
        return {"HTTP_STRIPE_SIGNATURE": f"t={ts},v1={sig}"}
    if provider == "workos":
        ms = ts * 1000
        return {"HTTP_WORKOS_SIGNATURE": f"t={ms}, v1={_hex(WORKOS, f'{ms}.'.encode() + body)}"}
    if provider == "meta":
        return {"HTTP_X_HUB_SIGNATURE_256": "sha256=" + _hex(META, body)}
    if provider == "tiktok":
        return {"HTTP_TIKTOK_SIGNATURE": f"t={ts},s={_hex(TIKTOK, f'{ts}.'.encode() + body)}"}
    raise AssertionError(provider)


BODIES = {
    "clerk": {"type": "user.created", "data": {"id": "user_1"}},
    "billing": {"id": "evt_stripe_1", "type": "customer.subscription.updated", "data": {"object": {}}},
    "workos": {"id": "event_01", "event": "user.created", "data": {}},
    "meta": {"object": "instagram", "entry": [{"id": "1", "time": 1}]},
    "tiktok": {
        "client_key": "k",
        "event": "post.publish.complete",
        "create_time": 1,
        "user_openid": "u1",
        "content": '{"publish_id": "p1"}',
    },
}
PROVIDERS = list(BODIES)
STALE = {"meta": False}  # Meta's X-Hub-Signature-256 carries no timestamp


def post(client, provider, body: bytes, headers: dict):
    return client.post(f"/webhook/{provider}", data=body, content_type="application/json", **headers)


@pytest.mark.django_db
@pytest.mark.parametrize("provider", PROVIDERS)
def test_valid_tampered_stale_missing_and_replayed(provider):
    client = Client()
    body = json.dumps(BODIES[provider]).encode()
    headers = signed(provider, body)
    tampered = body.replace(b"1", b"2", 1)
    assert post(client, provider, tampered, headers).status_code == 401
    assert post(client, provider, body, {}).status_code == 400
    if STALE.get(provider, True):
        assert (
            post(client, provider, body, signed(provider, body, ts=int(time.time()) - 3600)).status_code
            == 401
        )
    assert not InboundWebhook.objects.filter(provider=provider).exists()
    first = post(client, provider, body, headers)
    assert first.status_code == 200 and first.json()["status"] == "accepted"
    again = post(client, provider, body, headers)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    assert InboundWebhook.objects.filter(provider=provider).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_same_event_ten_times_at_once_is_recorded_once(provider):
    body = json.dumps(BODIES[provider]).encode()
    headers = signed(provider, body)

    def send(_):
        from django.db import connection

        try:
            return post(Client(), provider, body, headers).json()["status"]
        finally:
            connection.close()

    with ThreadPoolExecutor(10) as pool:
        statuses = list(pool.map(send, range(10)))
    assert sorted(statuses) == ["accepted"] + ["duplicate"] * 9
    assert InboundWebhook.objects.filter(provider=provider).count() == 1


@pytest.mark.django_db
def test_unknown_provider_404_and_unconfigured_503(settings):
    assert Client().post("/webhook/myspace", data=b"{}", content_type="application/json").status_code == 404
    settings.STRIPE_WEBHOOK_SECRET = ""
    body = b'{"id": "evt_1"}'
    r = Client().post("/webhook/billing", data=body, content_type="application/json")
    assert r.status_code == 503 and "not configured" in r.json()["error"]


@pytest.mark.django_db
def test_meta_get_verification():
    c = Client()
    ok = c.get(
        "/webhook/meta", {"hub.mode": "subscribe", "hub.verify_token": "verify-me", "hub.challenge": "42"}
    )
    assert ok.status_code == 200 and ok.content == b"42"
    assert (
        c.get(
            "/webhook/meta", {"hub.mode": "subscribe", "hub.verify_token": "nope", "hub.challenge": "42"}
        ).status_code
        == 403
    )


def _signed_request(payload: dict, secret: str = META) -> str:
    enc = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
    sig = (
        base64.urlsafe_b64encode(hmac.new(secret.encode(), enc.encode(), hashlib.sha256).digest())
        .decode()
        .rstrip("=")
    )
    return f"{sig}.{enc}"


@pytest.mark.django_db
def test_meta_data_deletion_disconnects_and_answers_a_status_page(owner, settings):
    settings.INSTAGRAM_CLIENT_SECRET = META  # Instagram Login's app signs its own callbacks (issue 22)
    profile = ProfileFactory(
        organization=owner.org,
        platform="instagram",
        external_id="1789",
        access_token_enc="tok",
        refresh_token_enc="ref",
    )
    c = Client()
    bad = c.post(
        "/webhook/meta/instagram/data-deletion",
        {"signed_request": _signed_request({"algorithm": "HMAC-SHA256", "user_id": "1789"}, "wrong")},
    )
    assert bad.status_code == 401
    r = c.post(
        "/webhook/meta/instagram/data-deletion",
        {
            "signed_request": _signed_request(
                {"algorithm": "HMAC-SHA256", "user_id": "1789", "issued_at": 1700000000}
            )
        },
    )
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"url", "confirmation_code"}
    profile.refresh_from_db()
    assert not profile.connected and profile.access_token_enc == "" and profile.refresh_token_enc == ""
    page = c.get("/webhook/meta/deletion/" + body["confirmation_code"])
    assert page.status_code == 200 and b"1 connected profile" in page.content
    deauth = c.post(
        "/webhook/meta/instagram/deauthorize",
        {
            "signed_request": _signed_request(
                {"algorithm": "HMAC-SHA256", "user_id": "1789", "issued_at": 1700000001}
            )
        },
    )
    assert deauth.status_code == 200 and deauth.json()["status"] == "accepted"


@pytest.mark.django_db
def test_tiktok_authorization_removed_disconnects_the_profile(owner, django_capture_on_commit_callbacks):
    profile = ProfileFactory(
        organization=owner.org, platform="tiktok", external_id="open-1", access_token_enc="tok"
    )
    body = json.dumps(
        {
            "client_key": "k",
            "event": "authorization.removed",
            "create_time": 1,
            "user_openid": "open-1",
            "content": "{}",
        }
    ).encode()
    with django_capture_on_commit_callbacks(execute=True):  # its effect runs in a task after the commit
        assert post(Client(), "tiktok", body, signed("tiktok", body)).status_code == 200
    profile.refresh_from_db()
    assert not profile.connected and profile.access_token_enc == ""
