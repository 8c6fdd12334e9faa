"""Inbound webhooks never answer 500 (issue 20): a red-team pass found eleven HTML 500s with
tracebacks: a non-ASCII signature (`hmac.compare_digest` on str) on clerk, workos, billing,
meta and tiktok; a 400-digit timestamp (OverflowError) on clerk, workos, billing, tiktok and
replicate; a validly signed 100k-deep JSON body (RecursionError) on clerk. Those eleven are
pinned here one by one; then Hypothesis sends arbitrary header bytes and bodies to every
provider endpoint (and validly signed arbitrary bodies), and every answer is a 4xx JSON error
that records nothing, or, for a signed JSON object, an acceptance."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from apps.webhooks.models import InboundWebhook

pytestmark = pytest.mark.django_db

CLERK = "whsec_" + base64.b64encode(b"c" * 32).decode()
REPLICATE = "whsec_" + base64.b64encode(b"r" * 32).decode()
STRIPE = "whsec_stripe_test_secret"
WORKOS = "workos-secret"
META = "meta-app-secret"
TIKTOK = "tiktok-client-secret"
PROVIDERS = ("clerk", "workos", "billing", "meta", "tiktok", "replicate")
#: every inbound POST route
ROUTES = (
    *(f"/webhook/{p}" for p in PROVIDERS),
    "/webhook/meta/deauthorize",
    "/webhook/meta/data-deletion",
)
#: the headers each provider reads (Django META names)
SIGNATURE_HEADERS = (
    "HTTP_SVIX_ID",
    "HTTP_SVIX_TIMESTAMP",
    "HTTP_SVIX_SIGNATURE",
    "HTTP_WORKOS_SIGNATURE",
    "HTTP_STRIPE_SIGNATURE",
    "HTTP_X_HUB_SIGNATURE_256",
    "HTTP_TIKTOK_SIGNATURE",
    "HTTP_WEBHOOK_ID",
    "HTTP_WEBHOOK_TIMESTAMP",
    "HTTP_WEBHOOK_SIGNATURE",
)
HUGE = "9" * 400


@pytest.fixture(autouse=True)
def secrets(settings):
    settings.CLERK_WEBHOOK_SECRET = CLERK
    settings.STRIPE_WEBHOOK_SECRET = STRIPE
    settings.WORKOS_WEBHOOK_SECRET = WORKOS
    settings.META_APP_SECRET = META
    settings.META_WEBHOOK_VERIFY_TOKEN = "verify-me"
    settings.TIKTOK_CLIENT_SECRET = TIKTOK
    settings.REPLICATE_WEBHOOK_SECRET = REPLICATE


def _hex(key: str, message: bytes) -> str:
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def _b64(key: str, message: bytes) -> str:
    raw = base64.b64decode(key.removeprefix("whsec_"))
    return base64.b64encode(hmac.new(raw, message, hashlib.sha256).digest()).decode()


def sign(provider: str, body: bytes, *, ts: str | None = None, msg_id: str = "msg_1") -> dict:
    """The provider's signature headers over `body` (any bytes), as its documentation says."""
    ts = str(int(time.time())) if ts is None else ts
    if provider == "clerk":
        sig = _b64(CLERK, f"{msg_id}.{ts}.".encode() + body)
        return {"HTTP_SVIX_ID": msg_id, "HTTP_SVIX_TIMESTAMP": ts, "HTTP_SVIX_SIGNATURE": f"v1,{sig}"}
    if provider == "replicate":
        sig = _b64(REPLICATE, f"{msg_id}.{ts}.".encode() + body)
        return {
            "HTTP_WEBHOOK_ID": msg_id,
            "HTTP_WEBHOOK_TIMESTAMP": ts,
            "HTTP_WEBHOOK_SIGNATURE": f"v1,{sig}",
        }
    if provider == "billing":
        return {"HTTP_STRIPE_SIGNATURE": f"t={ts},v1={_hex(STRIPE, f'{ts}.'.encode() + body)}"}
    if provider == "workos":
        ms = str(int(ts) * 1000) if ts.isascii() and ts.isdigit() and len(ts) <= 12 else ts
        return {"HTTP_WORKOS_SIGNATURE": f"t={ms}, v1={_hex(WORKOS, f'{ms}.'.encode() + body)}"}
    if provider == "meta":
        return {"HTTP_X_HUB_SIGNATURE_256": "sha256=" + _hex(META, body)}
    if provider == "tiktok":
        return {"HTTP_TIKTOK_SIGNATURE": f"t={ts},s={_hex(TIKTOK, f'{ts}.'.encode() + body)}"}
    raise AssertionError(provider)


def post(route: str, body: bytes, headers: dict, content_type: str = "application/json"):
    return Client().generic("POST", route, body, content_type=content_type, **headers)


def assert_refused(response, status: int | None = None) -> dict:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    if status is not None:
        assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    return body


BODY = json.dumps({"id": "evt_1", "type": "user.created", "data": {}}).encode()
NON_ASCII = "v1=\u00e9\u00e8\u00ff\u00a0"  # header bytes beyond ASCII arrive as latin-1 text


# --- the eleven named cases --------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "headers"),
    [
        ("clerk", {"HTTP_SVIX_ID": "msg_1", "HTTP_SVIX_SIGNATURE": "v1,\u00e9\u00e8\u00ff"}),
        ("workos", {"HTTP_WORKOS_SIGNATURE": "t={ms}, v1=\u00e9\u00e8\u00ff"}),
        ("billing", {"HTTP_STRIPE_SIGNATURE": "t={ts},v1=\u00e9\u00e8\u00ff"}),
        ("meta", {"HTTP_X_HUB_SIGNATURE_256": "sha256=\u00e9\u00e8\u00ff"}),
        ("tiktok", {"HTTP_TIKTOK_SIGNATURE": "t={ts},s=\u00e9\u00e8\u00ff"}),
    ],
)
def test_a_non_ascii_signature_is_a_401(provider, headers):
    now = int(time.time())
    headers = {k: v.format(ts=now, ms=now * 1000) for k, v in headers.items()}
    if provider == "clerk":
        headers["HTTP_SVIX_TIMESTAMP"] = str(now)
    body = assert_refused(post(f"/webhook/{provider}", BODY, headers), 401)
    assert body == {"error": "The signature does not match."}
    assert not InboundWebhook.objects.exists()


@pytest.mark.parametrize("provider", ["clerk", "workos", "billing", "tiktok", "replicate"])
def test_a_400_digit_timestamp_is_a_400(provider):
    headers = sign(provider, BODY, ts=HUGE)
    body = assert_refused(post(f"/webhook/{provider}", BODY, headers), 400)
    assert "16 digits" in body["error"]
    assert not InboundWebhook.objects.exists()


def test_a_validly_signed_100k_deep_json_body_is_a_400_on_clerk():
    deep = b"[" * 100_000 + b"]" * 100_000
    body = assert_refused(post("/webhook/clerk", deep, sign("clerk", deep)), 400)
    assert body == {"error": "The body is not acceptable JSON: JSON nested deeper than 32 levels."}
    assert not InboundWebhook.objects.exists()


# --- more malformed input ----------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_a_get_or_put_is_a_405_with_allow(route):
    for method in ("GET", "PUT", "DELETE"):
        if route == "/webhook/meta" and method == "GET":
            continue  # Meta's subscription check (below)
        response = Client().generic(method, route)
        assert_refused(response, 405)
        assert response["Allow"] in ("POST", "POST, GET")


def test_metas_get_is_its_subscription_check_and_a_wrong_token_is_a_403():
    ok = Client().get(
        "/webhook/meta", {"hub.mode": "subscribe", "hub.verify_token": "verify-me", "hub.challenge": "42"}
    )
    assert (ok.status_code, ok.content) == (200, b"42")
    assert_refused(Client().get("/webhook/meta", {"hub.verify_token": "\u00e9"}), 403)


@pytest.mark.parametrize("provider", ["clerk", "workos", "billing", "meta", "tiktok", "replicate"])
@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"\xff\xfe not utf-8",
        b"[1, 2]",
        b"NaN",
        b'{"a": 1e999}',
        b'{"a": "\\u0000"}',
        b'{"a": "\\ud800"}',
        b"{" * 40 + b"}" * 40,
    ],
)
def test_a_signed_body_that_is_not_an_acceptable_json_object_is_a_400(provider, body):
    assert_refused(post(f"/webhook/{provider}", body, sign(provider, body)), 400)
    assert not InboundWebhook.objects.exists()


@pytest.mark.parametrize("provider", ["clerk", "workos", "billing", "tiktok", "replicate"])
@pytest.mark.parametrize("ts", ["", "12a", "\u0663\u0663\u0663", "-5", "1.5", " "])
def test_malformed_timestamps_are_a_400(provider, ts):
    assert_refused(post(f"/webhook/{provider}", BODY, sign(provider, BODY, ts=ts)), 400)


def test_a_body_over_the_upload_limit_is_a_413(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = b'{"a": "' + b"x" * 2000 + b'"}'
    assert_refused(post("/webhook/meta", big, sign("meta", big)), 413)
    for route in ROUTES:  # others may refuse a header or the form first
        assert post(route, big, sign("meta", big)).status_code in (400, 413)


@pytest.mark.parametrize("route", ["/webhook/meta/deauthorize", "/webhook/meta/data-deletion"])
def test_metas_callbacks_answer_a_broken_form_with_a_400(route, settings):
    broken = b"--xx\r\nContent-Disposition: form-data; name=signed_request\r\n\r\n"  # never ends
    assert_refused(post(route, broken, {}, content_type="multipart/form-data; boundary=xx"), 400)
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    many = b"&".join(b"f%d=1" % i for i in range(10))
    assert_refused(post(route, many, {}, content_type="application/x-www-form-urlencoded"), 400)
    deep = base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).decode().rstrip("=")
    sig = base64.urlsafe_b64encode(hmac.new(META.encode(), deep.encode(), hashlib.sha256).digest()).decode()
    form = f"signed_request={sig.rstrip('=')}.{deep}".encode()
    assert_refused(post(route, form, {}, content_type="application/x-www-form-urlencoded"), 400)
    assert_refused(
        post(
            route,
            "signed_request=\u00e9.\u00e9".encode(),
            {},
            content_type="application/x-www-form-urlencoded",
        ),
        400,
    )
    assert not InboundWebhook.objects.exists()


def test_an_event_id_too_long_for_its_column_is_kept_by_its_digest():
    payload = {"id": "evt_" + "x" * 5000, "type": "invoice.paid", "data": {}}
    body = json.dumps(payload).encode()
    assert post("/webhook/billing", body, sign("billing", body)).json() == {"status": "accepted"}
    assert post("/webhook/billing", body, sign("billing", body)).json() == {"status": "duplicate"}
    record = InboundWebhook.objects.get()
    assert record.event_id == "sha256:" + hashlib.sha256(payload["id"].encode()).hexdigest()


# --- properties ----------------------------------------------------------------------------

header_text = st.binary(max_size=80).map(lambda b: b.decode("latin-1"))
PROPERTY = hsettings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@PROPERTY
@given(
    route=st.sampled_from(ROUTES),
    headers=st.dictionaries(st.sampled_from(SIGNATURE_HEADERS), header_text, max_size=6),
    body=st.one_of(st.binary(max_size=300), st.just(BODY)),
    content_type=st.sampled_from(
        [
            "application/json",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=b",
            "text/plain",
        ]
    ),
)
def test_arbitrary_headers_and_bodies_are_a_4xx_json_error_and_record_nothing(
    route, headers, body, content_type
):
    before = InboundWebhook.objects.count()
    assert_refused(post(route, body, headers, content_type))
    assert InboundWebhook.objects.count() == before


@PROPERTY
@given(
    provider=st.sampled_from(PROVIDERS),
    body=st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=40,
        ).map(lambda v: json.dumps(v).encode()),
    ),
    msg_id=st.text(min_size=1, max_size=300).filter(
        lambda s: s.strip() == s and "\n" not in s and "\r" not in s
    ),
)
def test_validly_signed_arbitrary_bodies_are_accepted_as_objects_or_refused_with_a_4xx(
    provider, body, msg_id
):
    before = InboundWebhook.objects.count()
    response = post(
        f"/webhook/{provider}", body, sign(provider, body, msg_id=msg_id.encode("utf-8").decode("latin-1"))
    )
    if response.status_code == 200:
        assert response.json()["status"] in ("accepted", "duplicate")
        assert isinstance(json.loads(body), dict)
    else:
        assert_refused(response)
        assert InboundWebhook.objects.count() == before
