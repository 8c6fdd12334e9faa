"""Inbound system webhooks: /webhook/<provider>.

Replicate: ``webhook-id``/``webhook-timestamp``/``webhook-signature`` (Standard Webhooks)
verified with REPLICATE_WEBHOOK_SECRET by the adapter's own verifier (the function behind
``ReplicateEngine.verify_webhook``), so verification needs no API token. Answers:

- 400: headers missing or malformed, or a body that is not a JSON object;
- 401: a bad signature, a timestamp outside 5 minutes (an old replay), or no secret configured;
- 200: accepted, and 200 again for a replay of a delivery already accepted (same webhook-id),
  which changes nothing. A prediction we do not know is acknowledged too (nothing to retry).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from apps.content.generation.replicate_engine import (
    WebhookBodyError,
    WebhookVerificationError,
    verify_replicate_webhook,
)

from .models import InboundWebhook

logger = logging.getLogger(__name__)


def inbound_webhook_record(*, provider: str, event_id: str, subject: str, payload: dict) -> bool:
    """Keep a verified delivery; False when this provider event was already recorded (a replay)."""
    try:
        with transaction.atomic():
            InboundWebhook.objects.create(provider=provider, event_id=event_id, subject=subject, payload=payload)
    except IntegrityError:
        return False
    return True


def _error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@csrf_exempt
@require_POST
def replicate_webhook(request: HttpRequest) -> JsonResponse:
    headers = request.headers
    webhook_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    if not webhook_id or not timestamp or not headers.get("webhook-signature"):
        return _error(400, "webhook-id, webhook-timestamp and webhook-signature headers are required.")
    if not timestamp.isdigit():
        return _error(400, "webhook-timestamp must be an integer.")
    try:
        payload = verify_replicate_webhook(headers, request.body, settings.REPLICATE_WEBHOOK_SECRET)
    except WebhookVerificationError as exc:
        status = 400 if isinstance(exc, WebhookBodyError) else 401  # a signed body that is not JSON is malformed
        logger.warning("replicate webhook %s refused: %s", webhook_id, exc)
        return _error(status, str(exc))
    prediction_id = str(payload.get("id") or "")
    if not inbound_webhook_record(provider="replicate", event_id=webhook_id, subject=prediction_id, payload=payload):
        return JsonResponse({"status": "duplicate"})
    from apps.content.predictions import prediction_receive

    handed_over = bool(prediction_id) and prediction_receive(provider="replicate", external_id=prediction_id)
    return JsonResponse({"status": "accepted", "prediction": prediction_id, "completing": handed_over})
