"""Inbound provider webhooks: each provider's signature checked over the raw body before parsing.

`verify(provider, request)` returns (event_id, payload) or raises Refused(status, message).
Schemes:
- clerk: Svix (`svix-id`, `svix-timestamp`, `svix-signature: v1,<base64>`), CLERK_WEBHOOK_SECRET, 5 min
- workos: `WorkOS-Signature: t=<ms>, v1=<hex HMAC-SHA256 of "t.body">`, WORKOS_WEBHOOK_SECRET, 180 s
- billing: Stripe `Stripe-Signature: t=..,v1=..` keyed with the whole whsec_ string, STRIPE_WEBHOOK_SECRET, 300 s
- meta: `X-Hub-Signature-256: sha256=<hex HMAC of the body>` with META_APP_SECRET (no timestamp;
  the event id is the body's digest); `signed_request` callbacks verified the same way
- tiktok: `TikTok-Signature: t=<ts>,s=<hex HMAC of "t.body">` with TIKTOK_CLIENT_SECRET, 5 min
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

from django.conf import settings

from apps.core.parsers import parse_json_bytes


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


SECRETS = {
    "clerk": "CLERK_WEBHOOK_SECRET",
    "workos": "WORKOS_WEBHOOK_SECRET",
    "billing": "STRIPE_WEBHOOK_SECRET",
    "meta": "META_APP_SECRET",
    "tiktok": "TIKTOK_CLIENT_SECRET",
}
TOLERANCE = {"clerk": 300, "workos": 180, "billing": 300, "tiktok": 300}


def secret_for(provider: str) -> str:
    return getattr(settings, SECRETS[provider], "") or ""


def _header(request, name: str) -> str:
    value = request.headers.get(name)
    if not value:
        raise Refused(400, f"The {name} header is required.")
    return value


#: digits a signature timestamp may have (seconds or milliseconds since 1970, for millennia)
TIMESTAMP_DIGITS = 16


def timestamp_value(timestamp: str) -> int:
    """A signature timestamp as sent: ASCII digits, at most TIMESTAMP_DIGITS of them (a
    400-digit one overflowed the float arithmetic: a 500); else Refused(400)."""
    timestamp = timestamp.strip()
    if not (timestamp.isascii() and timestamp.isdigit() and len(timestamp) <= TIMESTAMP_DIGITS):
        raise Refused(400, "The signature timestamp is not an integer of at most 16 digits.")
    return int(timestamp)


def _fresh(provider: str, timestamp: str, *, millis: bool = False) -> None:
    moment = timestamp_value(timestamp) / (1000 if millis else 1)
    if abs(time.time() - moment) > TOLERANCE[provider]:
        raise Refused(401, "The signature timestamp is outside the tolerance (a stale or replayed request).")


def _pairs(header: str) -> list[tuple[str, str]]:
    out = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if value:
            out.append((key.strip(), value.strip()))
    return out


def _match(expected: str, candidates) -> None:
    """Constant-time comparison of bytes: a signature of non-ASCII characters (header bytes
    arrive as latin-1 text) is simply wrong, where comparing str raised TypeError (a 500)."""
    wanted = expected.encode()
    if not any(hmac.compare_digest(wanted, c.encode("utf-8", "replace")) for c in candidates):
        raise Refused(401, "The signature does not match.")


def parse_body(body: bytes) -> dict:
    """A verified body as the API parses JSON (apps.core.parsers: depth-limited, no recursion
    error, no NaN or NUL that PostgreSQL refuses); it must be an object."""
    try:
        payload = parse_json_bytes(body, refuse_nul=True)
    except ValueError as exc:
        raise Refused(400, f"The body is not acceptable JSON: {exc}.") from None
    if not isinstance(payload, dict):
        raise Refused(400, "The body is not a JSON object.")
    return payload


def _hex(key: bytes, message: bytes) -> str:
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def verify_clerk(request, secret: str):
    msg_id, ts, sigs = (
        _header(request, "svix-id"),
        _header(request, "svix-timestamp"),
        _header(request, "svix-signature"),
    )
    _fresh("clerk", ts)
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = base64.b64encode(
        hmac.new(key, f"{msg_id}.{ts}.".encode("utf-8", "replace") + request.body, hashlib.sha256).digest()
    ).decode()
    _match(expected, [s.partition(",")[2] for s in sigs.split() if s.startswith("v1,")])
    return msg_id, parse_body(request.body)


def verify_workos(request, secret: str):
    pairs = _pairs(_header(request, "WorkOS-Signature"))
    ts = next((v for k, v in pairs if k == "t"), "")
    if not ts:
        raise Refused(400, "The WorkOS-Signature header has no timestamp.")
    _fresh("workos", ts, millis=True)
    _match(_hex(secret.encode(), f"{ts}.".encode() + request.body), [v for k, v in pairs if k == "v1"])
    payload = parse_body(request.body)
    return str(payload.get("id") or hashlib.sha256(request.body).hexdigest()), payload


def verify_billing(request, secret: str):
    pairs = _pairs(_header(request, "Stripe-Signature"))
    ts = next((v for k, v in pairs if k == "t"), "")
    if not ts:
        raise Refused(400, "The Stripe-Signature header has no timestamp.")
    _fresh("billing", ts)
    _match(_hex(secret.encode(), f"{ts}.".encode() + request.body), [v for k, v in pairs if k == "v1"])
    payload = parse_body(request.body)
    return str(payload.get("id") or hashlib.sha256(request.body).hexdigest()), payload


def _b64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def parse_signed_request(signed_request: str, secret: str) -> dict:
    """Meta's `signed_request`: base64url(signature).base64url(payload), HMAC-SHA256 with the app secret."""
    encoded_sig, _, encoded_payload = (signed_request or "").partition(".")
    if not encoded_sig or not encoded_payload or not signed_request.isascii():
        raise Refused(400, "signed_request is malformed.")
    try:
        signature = _b64url(encoded_sig)
    except ValueError:
        raise Refused(400, "signed_request is malformed.") from None
    expected = hmac.new(secret.encode(), encoded_payload.encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(expected, signature):
        raise Refused(401, "The signed_request signature does not match.")
    try:  # parsed once its signature holds, as the API parses JSON
        payload = parse_json_bytes(_b64url(encoded_payload), refuse_nul=True)
    except ValueError:
        raise Refused(400, "signed_request is malformed.") from None
    if not isinstance(payload, dict) or str(payload.get("algorithm", "")).upper() != "HMAC-SHA256":
        raise Refused(400, "signed_request must use HMAC-SHA256.")
    return payload


def verify_meta(request, secret: str):
    header = _header(request, "X-Hub-Signature-256")
    if not header.startswith("sha256="):
        raise Refused(400, "X-Hub-Signature-256 must start with sha256=.")
    _match(_hex(secret.encode(), request.body), [header[7:]])
    return hashlib.sha256(request.body).hexdigest(), parse_body(request.body)


def verify_tiktok(request, secret: str):
    pairs = _pairs(_header(request, "TikTok-Signature"))
    ts = next((v for k, v in pairs if k == "t"), "")
    if not ts:
        raise Refused(400, "The TikTok-Signature header has no timestamp.")
    _fresh("tiktok", ts)
    _match(_hex(secret.encode(), f"{ts}.".encode() + request.body), [v for k, v in pairs if k == "s"])
    return hashlib.sha256(request.body).hexdigest(), parse_body(request.body)


VERIFIERS = {
    "clerk": verify_clerk,
    "workos": verify_workos,
    "billing": verify_billing,
    "meta": verify_meta,
    "tiktok": verify_tiktok,
}
