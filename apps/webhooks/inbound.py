"""Inbound system webhooks: /webhook/<provider>.

Replicate: ``webhook-id``/``webhook-timestamp``/``webhook-signature`` (Standard Webhooks)
verified with REPLICATE_WEBHOOK_SECRET by the adapter's own verifier (the function behind
``ReplicateEngine.verify_webhook``), so verification needs no API token. Answers:

- 400: headers missing or malformed, or a body that is not a JSON object;
- 401: a bad signature, a timestamp outside 5 minutes (an old replay), or no secret configured;
- 200: accepted, and 200 again for a replay of a delivery already accepted (same webhook-id),
  which changes nothing. A prediction we do not know is acknowledged too (nothing to retry).

Every inbound route answers malformed input with a 4xx JSON error, never a 500 (issue 20):
a method it does not take is a 405 with `Allow`, a body over DATA_UPLOAD_MAX_MEMORY_SIZE a
413, an unreadable form or body a 400 (`inbound_endpoint`); bodies are parsed with the API's
depth-limited parser once their signature holds (`providers.parse_body`).
"""

from __future__ import annotations

import functools
import hashlib
import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import IntegrityError, transaction
from django.http import HttpRequest, JsonResponse, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt

from apps.generation.replicate_engine import (
    WebhookBodyError,
    WebhookVerificationError,
    verify_replicate_webhook,
)

from .models import InboundWebhook

logger = logging.getLogger(__name__)


def inbound_webhook_record(
    *, provider: str, event_id: str, subject: str, payload: dict, processed: bool = False
) -> bool:
    """Keep a verified delivery; False when this provider event was already recorded (a replay).
    `processed`: its effect is applied in the request itself (Replicate, Meta's callbacks)."""
    from django.utils import timezone

    try:
        with transaction.atomic():
            InboundWebhook.objects.create(
                provider=provider,
                event_id=_bounded(event_id),
                subject=subject[:200].replace("\x00", ""),
                payload=payload,
                processed_at=timezone.now() if processed else None,
                outcome="in the request" if processed else "",
            )
    except IntegrityError:
        return False
    return True


def _error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def inbound_endpoint(*methods: str):
    """An inbound route: CSRF-exempt, the methods it takes (any other is a JSON 405 with
    `Allow`), and what Django raises on a malformed request answered as a JSON 4xx instead
    of its HTML page: a body too large (413), a form or multipart body it cannot parse, too
    many fields, a body that could not be read (400)."""

    def wrap(view):
        @csrf_exempt
        @functools.wraps(view)
        def guarded(request: HttpRequest, *args, **kwargs):
            if request.method not in methods:
                response = _error(405, f"Use {' or '.join(methods)}.")
                response["Allow"] = ", ".join(methods)
                return response
            try:
                return view(request, *args, **kwargs)
            except RequestDataTooBig:
                return _error(413, "The request body is too large.")
            except (SuspiciousOperation, MultiPartParserError, UnreadablePostError) as exc:
                logger.warning("inbound webhook %s refused: %s", request.path, exc.__class__.__name__)
                return _error(400, "The request is malformed.")

        return guarded

    return wrap


def _bounded(value: str, length: int = 200) -> str:
    """A provider's id as a column can keep it: without NUL (PostgreSQL refuses it in text),
    and a longer one by its digest (still one row per distinct id)."""
    if len(value) <= length and "\x00" not in value:
        return value
    return "sha256:" + hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


@inbound_endpoint("POST")
def replicate_webhook(request: HttpRequest) -> JsonResponse:
    from .providers import Refused, parse_body, timestamp_value

    headers = request.headers
    webhook_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    if not webhook_id or not timestamp or not headers.get("webhook-signature"):
        return _error(400, "webhook-id, webhook-timestamp and webhook-signature headers are required.")
    try:
        timestamp_value(timestamp)
    except Refused as exc:
        return _error(exc.status, "webhook-timestamp must be an integer of at most 16 digits.")
    try:
        verify_replicate_webhook(headers, request.body, settings.REPLICATE_WEBHOOK_SECRET)
        payload = parse_body(request.body)  # as the API parses JSON, once the signature holds
    except WebhookVerificationError as exc:
        status = (
            400 if isinstance(exc, WebhookBodyError) else 401
        )  # a signed body that is not JSON is malformed
        logger.warning("replicate webhook %s refused: %s", webhook_id, exc)
        return _error(status, str(exc))
    except Refused as exc:
        return _refuse("replicate", exc)
    prediction_id = str(payload.get("id") or "")[:200].replace("\x00", "")
    if not inbound_webhook_record(
        provider="replicate", event_id=webhook_id, subject=prediction_id, payload=payload, processed=True
    ):
        return JsonResponse({"status": "duplicate"})
    from apps.generation.predictions import prediction_receive

    handed_over = bool(prediction_id) and prediction_receive(provider="replicate", external_id=prediction_id)
    return JsonResponse({"status": "accepted", "prediction": prediction_id, "completing": handed_over})


# --- the other providers -------------------------------------------------------------------

_META_PLATFORMS = ("facebook", "instagram", "threads")


def _refuse(provider: str, exc) -> JsonResponse:
    logger.warning("%s webhook refused: %s", provider, exc.message)
    return _error(exc.status, exc.message)


def _secret_or_503(provider: str):
    from .providers import secret_for

    secret = secret_for(provider)
    if not secret:
        logger.error("%s webhook refused: its secret is not configured", provider)
    return secret


@inbound_endpoint("POST", "GET")
def provider_webhook(request: HttpRequest, provider: str) -> JsonResponse:
    """POST /webhook/<provider> (and Meta's GET verification)."""
    from .providers import VERIFIERS, Refused

    if provider not in VERIFIERS:
        return _error(404, f"Unknown webhook provider '{provider}'.")
    if provider == "meta" and request.method == "GET":
        return meta_verify(request)
    if request.method != "POST":
        response = _error(405, "Use POST.")
        response["Allow"] = "POST"
        return response
    secret = _secret_or_503(provider)
    if not secret:
        return _error(503, f"The {provider} webhook is not configured on this server.")
    try:
        event_id, payload = VERIFIERS[provider](request, secret)
    except Refused as exc:
        return _refuse(provider, exc)
    subject = str(payload.get("type") or payload.get("event") or payload.get("object") or "")[:200]
    if not inbound_webhook_record(provider=provider, event_id=event_id, subject=subject, payload=payload):
        return JsonResponse({"status": "duplicate"})
    from .tasks import process_inbound

    transaction.on_commit(lambda: process_inbound.delay(provider, event_id))
    return JsonResponse({"status": "accepted"})


def meta_verify(request: HttpRequest):
    from django.http import HttpResponse

    params = request.GET
    token = settings.META_WEBHOOK_VERIFY_TOKEN
    if not token:
        return _error(503, "The meta webhook verify token is not configured on this server.")
    if params.get("hub.mode") == "subscribe" and hmac_equal(params.get("hub.verify_token", ""), token):
        return HttpResponse(params.get("hub.challenge", ""), content_type="text/plain")
    return _error(403, "Verification failed.")


def hmac_equal(a: str, b: str) -> bool:
    import hmac

    return hmac.compare_digest(a.encode(), b.encode())


#: Meta's products, each its own app with its own secret: Facebook Login (Pages), Instagram API
#: with Instagram Login, Threads. Each signs its deauthorize and data-deletion callbacks with it.
META_PRODUCTS = ("facebook", "instagram", "threads")


def meta_product_secret(product: str) -> str:
    """The app secret that signs ``product``'s callbacks (Facebook: META_APP_SECRET, else the
    Facebook app's client secret; Instagram and Threads: their own app's client secret)."""
    if product == "facebook":
        return str(
            getattr(settings, "META_APP_SECRET", "") or getattr(settings, "FACEBOOK_CLIENT_SECRET", "")
        )
    return str(getattr(settings, f"{product.upper()}_CLIENT_SECRET", "") or "")


def meta_profiles_revoke(*, product: str, user_id: str, report: list | None = None) -> int:
    """Disconnect the profiles this Meta user granted in ``product`` and delete their tokens:
    matched by the app-scoped user id stored at connect (a Facebook Page's admin) or, for
    Instagram and Threads, the account's own id (the callback's user_id is the account)."""
    from apps.profiles.services import profile_access_revoked

    return profile_access_revoked(
        platforms=(product,), external_id=str(user_id), user_id=str(user_id), report=report
    )


@inbound_endpoint("POST")
def meta_deauthorize(request: HttpRequest, product: str = "facebook") -> JsonResponse:
    return _meta_signed(request, deletion=False, product=product)


@inbound_endpoint("POST")
def meta_data_deletion(request: HttpRequest, product: str = "facebook") -> JsonResponse:
    return _meta_signed(request, deletion=True, product=product)


def _meta_signed(request: HttpRequest, *, deletion: bool, product: str) -> JsonResponse:
    from .providers import Refused, parse_signed_request

    if product not in META_PRODUCTS:
        return _error(404, f"Unknown Meta product {product[:40]!r}: one of {', '.join(META_PRODUCTS)}.")
    secret = meta_product_secret(product)
    if not secret:
        logger.error("meta %s callback refused: its app secret is not configured", product)
        return _error(503, f"The {product} app's callbacks are not configured on this server.")
    try:
        payload = parse_signed_request(request.POST.get("signed_request", ""), secret)
    except Refused as exc:
        return _refuse("meta", exc)
    user_id = str(payload.get("user_id") or "")
    if not user_id:
        return _error(400, "signed_request has no user_id.")
    kind = "deletion" if deletion else "deauthorize"
    code = hashlib.sha256(f"{product}:{kind}:{user_id}:{payload.get('issued_at')}".encode()).hexdigest()[:20]
    with transaction.atomic():
        fresh = inbound_webhook_record(
            provider="meta",
            event_id=f"{kind}:{code}",
            subject=f"{product}.{kind}",
            payload={"product": product, "user_id": user_id, "issued_at": payload.get("issued_at")},
            processed=True,
        )
        if fresh:
            report: list[dict] = []
            revoked = meta_profiles_revoke(product=product, user_id=user_id, report=report)
            InboundWebhook.objects.filter(provider="meta", event_id=f"{kind}:{code}").update(
                payload={
                    "product": product,
                    "user_id": user_id,
                    "issued_at": payload.get("issued_at"),
                    "profiles": revoked,
                    "deleted": report,
                }
            )
    if not deletion:
        return JsonResponse({"status": "accepted" if fresh else "duplicate"})
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    return JsonResponse({"url": f"{base}/webhook/meta/deletion/{code}", "confirmation_code": code})


def meta_deletion_status(request: HttpRequest, code: str):
    from django.http import HttpResponse
    from django.utils.html import escape

    record = InboundWebhook.objects.filter(provider="meta", event_id=f"deletion:{code}").first()
    if record is None:
        return HttpResponse("<h1>Unknown deletion request</h1>", status=404)
    profiles = record.payload.get("profiles") or 0
    deleted = record.payload.get("deleted") or []
    items = "".join(
        f"<li>{escape(str(d.get('platform')))} profile {escape(str(d.get('username')))}: disconnected; "
        "its access token, refresh token and any stored app password deleted</li>"
        for d in deleted
    )
    return HttpResponse(
        f"<h1>Data deletion request {escape(code)}</h1><p>Received {escape(record.received_at.isoformat())}. "
        f"Completed: {profiles} connected profile(s) were disconnected and their access and refresh tokens "
        f"deleted.</p><ul>{items}</ul><p>Kept: the posts already published (they stay on the platform; "
        "delete them there) and their history in Postforge, which names no personal data of yours beyond "
        "the account's public name.</p>"
    )
