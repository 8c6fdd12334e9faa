"""Outbound webhooks: registrations, deliveries from the outbox, signed attempts, retries.

Flow: a service records an event in the outbox (apps.events); the dispatcher claims it and,
in that same transaction, creates one WebhookDelivery per active subscribed endpoint
(`deliveries_create_for_events`), so a committed event always ends up as delivery rows.
After commit each delivery id is handed to the `webhooks` queue; the task claims the row with
a lease (bounded per endpoint) and makes one attempt. Retries and leftovers are found by the
beat sweep in the database, never parked in the broker.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import logging
import random
import secrets as pysecrets
import time
import uuid
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.core import ids
from apps.core.errors import ValidationFailed

from . import ssrf
from .models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint

logger = logging.getLogger(__name__)

EVENT_TYPES = (
    "content.created", "content.generated", "content.failed", "content.approved", "content.rejected",
    "content.scheduled", "content.publishing", "content.published", "content.updated", "content.deleted",
    "profile.connected", "profile.disconnected", "profile.token_expired", "batch.progress", "batch.completed",
    "publication.failed", "webhook.test", "webhook.disabled",
)
#: delays before retries 1..7 (seconds); an attempt after the last one fails the delivery
RETRY_SCHEDULE = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)
JITTER = 0.1
DISABLE_AFTER = datetime.timedelta(days=5)
ROTATION_OVERLAP = datetime.timedelta(hours=24)
RESPONSE_LOG_BYTES = 2048
USER_AGENT = "Postforge-Webhooks/1.0"


def clock() -> datetime.datetime:
    """Now (tests replace this to move time)."""
    return timezone.now()


# --- secrets and signatures --------------------------------------------------------------

def secret_make() -> str:
    return "whsec_" + base64.b64encode(pysecrets.token_bytes(32)).decode()


def secret_key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix("whsec_"))


def secret_validate(secret: str) -> str:
    error = ValidationFailed("secret must be whsec_ followed by base64 of 24 to 64 bytes.",
                             {"secret": ["Expected whsec_<base64 of 24-64 random bytes>."]})
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        raise error
    try:
        key = base64.b64decode(secret[6:], validate=True)
    except ValueError:
        raise error from None
    if not 24 <= len(key) <= 64:
        raise error
    return secret


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(secret_key(secret), signed, hashlib.sha256).digest()).decode()


def signing_secrets(endpoint: WebhookEndpoint, now: datetime.datetime) -> list[str]:
    found = [endpoint.secret]
    if endpoint.previous_secret and endpoint.previous_secret_expires_at and endpoint.previous_secret_expires_at > now:
        found.append(endpoint.previous_secret)
    return found


# --- registrations -------------------------------------------------------------------------

def _events_validate(events) -> list[str]:
    if not isinstance(events, list) or not events:
        raise ValidationFailed("events must list at least one event name.", {"events": ["Required."]})
    unknown = sorted({e for e in events if e != "*" and e not in EVENT_TYPES})
    if unknown:
        raise ValidationFailed(
            f"Unknown event name(s): {', '.join(unknown)}.",
            {"events": [f"Unknown: {', '.join(unknown)}. Known: *, {', '.join(EVENT_TYPES)}."]},
        )
    return list(dict.fromkeys(events))


def webhook_create(*, organization, url: str, events: list[str], secret: str | None = None,
                   active: bool = True) -> WebhookEndpoint:
    ssrf.url_check(url)
    return WebhookEndpoint.objects.create(
        organization=organization, url=url, events=_events_validate(events),
        secret=secret_validate(secret) if secret else secret_make(), active=active,
    )


def webhook_update(*, endpoint: WebhookEndpoint, **fields) -> WebhookEndpoint:
    if "url" in fields:
        ssrf.url_check(fields["url"])
    if "events" in fields:
        fields["events"] = _events_validate(fields["events"])
    if fields.get("secret"):
        fields["secret"] = secret_validate(fields["secret"])
    elif "secret" in fields:
        fields.pop("secret")
    if fields.get("active") and not endpoint.active:  # re-enabled: a fresh start
        fields.update(disabled_at=None, disabled_reason="", failing_since=None)
    for name, value in fields.items():
        setattr(endpoint, name, value)
    endpoint.save()
    if fields.get("active"):
        transaction.on_commit(lambda: deliveries_kick(endpoint_id=endpoint.pk))
    return endpoint


def webhook_delete(*, endpoint: WebhookEndpoint) -> None:
    endpoint.delete()


def webhook_rotate_secret(*, endpoint: WebhookEndpoint) -> WebhookEndpoint:
    """A new secret; the old one keeps signing alongside for 24 h (two signatures)."""
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
        endpoint.previous_secret = endpoint.secret
        endpoint.previous_secret_expires_at = clock() + ROTATION_OVERLAP
        endpoint.secret = secret_make()
        endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at", "updated_at"])
    return endpoint


def endpoint_disable(*, endpoint_id, reason: str) -> bool:
    """Disable once, record why, and emit `webhook.disabled` (websocket and the org's other endpoints)."""
    from apps.events.services import event_record

    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=endpoint_id, active=True).first()
        if endpoint is None:
            return False
        endpoint.active = False
        endpoint.disabled_at = clock()
        endpoint.disabled_reason = reason[:300]
        endpoint.save(update_fields=["active", "disabled_at", "disabled_reason", "updated_at"])
        event_record(organization=endpoint.organization_id, type="webhook.disabled",
                     data={"webhookId": ids.render(endpoint.pk, "webhook"), "url": endpoint.url, "reason": reason})
    logger.warning("webhook %s disabled: %s", endpoint_id, reason)
    return True


# --- deliveries ----------------------------------------------------------------------------

def _iso(moment: datetime.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _envelope(*, message_id: str, type: str, timestamp: datetime.datetime, organization_id, data: dict) -> dict:
    return {"id": message_id, "type": type, "timestamp": _iso(timestamp),
            "organizationId": ids.render(organization_id, "organization"), "data": data}


def deliveries_create_for_events(*, events) -> list:
    """Inside the dispatcher's claim transaction: one delivery per (event, subscribed active
    endpoint). The unique (endpoint, event) pair makes a re-dispatch harmless."""
    events = [e for e in events if e.type in EVENT_TYPES]
    if not events:
        return []
    org_ids = {e.organization_id for e in events}
    endpoints = list(WebhookEndpoint.objects.filter(organization_id__in=org_ids, active=True))
    if not endpoints:
        return []
    now = clock()
    rows = []
    for event in events:
        message_id = ids.render(event.pk, "event")
        payload = _envelope(message_id=message_id, type=event.type, timestamp=event.created_at,
                            organization_id=event.organization_id, data=event.data)
        for endpoint in endpoints:
            if endpoint.organization_id == event.organization_id and endpoint.subscribed(event.type):
                rows.append(WebhookDelivery(
                    organization_id=event.organization_id, endpoint=endpoint, event=event, message_id=message_id,
                    event_type=event.type, payload=payload, next_attempt_at=now,
                ))
    created = WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
    return [d.pk for d in created]


def webhook_test(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A `webhook.test` delivery to this endpoint only (sent even if it is not subscribed to it)."""
    message_id = ids.render(uuid.uuid4(), "event")
    now = clock()
    data = {"webhookId": ids.render(endpoint.pk, "webhook"), "message": "This is a test event from Postforge."}
    delivery = WebhookDelivery.objects.create(
        organization_id=endpoint.organization_id, endpoint=endpoint, message_id=message_id, event_type="webhook.test",
        payload=_envelope(message_id=message_id, type="webhook.test", timestamp=now,
                          organization_id=endpoint.organization_id, data=data),
        next_attempt_at=now,
    )
    transaction.on_commit(lambda: deliveries_kick(delivery_ids=[delivery.pk]))
    return delivery


def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send it again (same id and body); its earlier attempts stay in the log."""
    if not delivery.endpoint.active:
        from apps.core.errors import InvalidTransition

        raise InvalidTransition("The webhook is disabled; enable it before redelivering.",
                                {"webhook": [delivery.endpoint.disabled_reason or "disabled"]})
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=DeliveryStatus.PENDING, next_attempt_at=clock(),
                                                          leased_until=None, updated_at=timezone.now())
    transaction.on_commit(lambda: deliveries_kick(delivery_ids=[delivery.pk]))
    delivery.refresh_from_db()
    return delivery


def deliveries_kick(*, delivery_ids=None, endpoint_id=None, limit: int = 1) -> None:
    """Hand due deliveries to the `webhooks` queue (best effort: the sweep finds what this misses)."""
    from .tasks import deliver

    if delivery_ids is None:
        delivery_ids = list(_due().filter(endpoint_id=endpoint_id).order_by("next_attempt_at")
                            .values_list("pk", flat=True)[:limit])
    for delivery_id in delivery_ids:
        try:
            deliver.delay(str(delivery_id))
        except Exception:
            logger.warning("Could not enqueue webhook delivery %s; the sweep will", delivery_id)
            return


def _due(now=None):
    now = now or clock()
    return (WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now,
                                           endpoint__active=True)
            .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now)))


def _lease_seconds() -> float:
    return max(settings.WEBHOOK_LEASE_SECONDS, settings.WEBHOOK_TIMEOUT_SECONDS + 1)


def delivery_claim(*, delivery_id) -> WebhookDelivery | None:
    """Lease one due delivery when its endpoint has room (a failing endpoint gets one attempt
    in flight, a healthy one WEBHOOK_ENDPOINT_CONCURRENCY)."""
    now = clock()
    with transaction.atomic():
        delivery = _due(now).filter(pk=delivery_id).select_related("endpoint").first()
        if delivery is None:
            return None
        endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=delivery.endpoint_id, active=True).first()
        if endpoint is None:
            return None
        bound = 1 if endpoint.failing_since else max(1, settings.WEBHOOK_ENDPOINT_CONCURRENCY)
        in_flight = (WebhookDelivery.objects.filter(endpoint_id=endpoint.pk, status=DeliveryStatus.PENDING,
                                                    leased_until__gte=now).exclude(pk=delivery.pk).count())
        if in_flight >= bound:
            return None
        lease = now + datetime.timedelta(seconds=_lease_seconds())
        if not _due(now).filter(pk=delivery_id).update(leased_until=lease):
            return None
        delivery.leased_until = lease
        delivery.endpoint = endpoint
    return delivery


class _Outcome:
    def __init__(self, status_code=None, body="", error="", retry_after=None):
        self.status_code, self.body, self.error, self.retry_after = status_code, body, error, retry_after


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        from email.utils import parsedate_to_datetime

        return max(0.0, (parsedate_to_datetime(value) - timezone.now()).total_seconds())
    except (TypeError, ValueError):
        return None


def http_post(url: str, body: bytes, headers: dict) -> _Outcome:
    """POST without following redirects, connected to the address the SSRF rules passed."""
    try:
        scheme, host, port, address = ssrf.resolve_checked(url)
    except ssrf.UnsafeURL as exc:
        return _Outcome(error=f"refused: {exc.message}")
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default_port = 443 if scheme == "https" else 80
    host_header = (f"[{host}]" if ":" in host else host) + ("" if port == default_port else f":{port}")
    timeout = urllib3.Timeout(total=settings.WEBHOOK_TIMEOUT_SECONDS)
    if scheme == "https":
        pool = urllib3.HTTPSConnectionPool(address, port, timeout=timeout, retries=False, maxsize=1,
                                           server_hostname=host, assert_hostname=host, cert_reqs="CERT_REQUIRED")
    else:
        pool = urllib3.HTTPConnectionPool(address, port, timeout=timeout, retries=False, maxsize=1)
    try:
        response = pool.urlopen("POST", path, body=body, headers={**headers, "Host": host_header},
                                redirect=False, retries=False, preload_content=False, assert_same_host=False)
        try:
            prefix = response.read(RESPONSE_LOG_BYTES, decode_content=False) or b""
        except Exception:
            prefix = b""
        response.release_conn()
        return _Outcome(status_code=response.status, body=prefix.decode("utf-8", "replace"),
                        retry_after=_retry_after(response.headers.get("Retry-After"))
                        if response.status in (429, 503) else None)
    except urllib3.exceptions.TimeoutError:
        return _Outcome(error=f"timed out after {settings.WEBHOOK_TIMEOUT_SECONDS:g} s")
    except Exception as exc:  # connection refused, TLS, protocol: all a failed attempt
        return _Outcome(error=f"{type(exc).__name__}: {exc}"[:500])
    finally:
        pool.close()


def _next_delay(attempt_count: int, retry_after: float | None) -> float | None:
    """Seconds until the next attempt after `attempt_count` attempts, None when none is left."""
    if attempt_count > len(RETRY_SCHEDULE):
        return None
    if retry_after is not None:
        return min(max(retry_after, 1.0), 24 * 3600.0)
    base = RETRY_SCHEDULE[attempt_count - 1]
    return base * random.uniform(1 - JITTER, 1 + JITTER)


def delivery_attempt(*, delivery_id) -> WebhookAttempt | None:
    """Claim, send once, record. Returns the attempt, or None when the delivery was not ours to try."""
    delivery = delivery_claim(delivery_id=delivery_id)
    if delivery is None:
        return None
    endpoint = delivery.endpoint
    started = clock()
    timestamp = int(started.timestamp())
    body = json.dumps(delivery.payload, separators=(",", ":"), ensure_ascii=False).encode()
    signature = " ".join(sign(s, delivery.message_id, timestamp, body) for s in signing_secrets(endpoint, started))
    headers = {"webhook-id": delivery.message_id, "webhook-timestamp": str(timestamp),
               "webhook-signature": signature, "content-type": "application/json", "user-agent": USER_AGENT}
    t0 = time.monotonic()
    outcome = http_post(endpoint.url, body, headers)
    latency_ms = int((time.monotonic() - t0) * 1000)
    ok = outcome.status_code is not None and 200 <= outcome.status_code < 300
    if outcome.status_code is not None and not ok and not outcome.error:
        outcome.error = "redirect not followed" if 300 <= outcome.status_code < 400 else f"HTTP {outcome.status_code}"
    return _record(delivery, endpoint, started, latency_ms, outcome, ok)


def _record(delivery, endpoint, started, latency_ms, outcome, ok) -> WebhookAttempt:
    now = clock()
    disable_reason = None
    with transaction.atomic():
        attempt = WebhookAttempt.objects.create(
            delivery_id=delivery.pk, started_at=started, status_code=outcome.status_code, latency_ms=latency_ms,
            response_body=outcome.body[:RESPONSE_LOG_BYTES], error=outcome.error[:500],
        )
        count = delivery.attempt_count + 1
        fields = {"attempt_count": count, "leased_until": None, "last_status_code": outcome.status_code,
                  "updated_at": timezone.now()}
        if ok:
            fields.update(status=DeliveryStatus.SUCCEEDED, next_attempt_at=None)
            WebhookEndpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=False).update(failing_since=None)
        else:
            failing_since = endpoint.failing_since or started
            if endpoint.failing_since is None:
                WebhookEndpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=True).update(failing_since=started)
            delay = _next_delay(count, outcome.retry_after)
            if outcome.status_code == 410:
                disable_reason = "The endpoint answered 410 Gone."
            elif now - failing_since >= DISABLE_AFTER:
                disable_reason = f"Deliveries have failed since {_iso(failing_since)} (5 days)."
            if delay is None or outcome.status_code == 410:
                fields.update(status=DeliveryStatus.FAILED, next_attempt_at=None)
            else:
                fields.update(next_attempt_at=now + datetime.timedelta(seconds=delay))
        # guarded by our lease: a sweep that re-leased an expired claim owns the row now
        WebhookDelivery.objects.filter(pk=delivery.pk, leased_until=delivery.leased_until).update(**fields)
    if disable_reason:
        endpoint_disable(endpoint_id=endpoint.pk, reason=disable_reason)
    elif ok:
        deliveries_kick(endpoint_id=endpoint.pk)  # the endpoint's backlog flows on
    return attempt


def deliveries_sweep(*, limit: int = 500) -> int:
    """Enqueue due deliveries (retries, expired leases, ones that found no room), at most a
    few per endpoint so a dead endpoint's backlog stays in the database."""
    now = clock()
    per_endpoint: dict = {}
    chosen = []
    rows = _due(now).order_by("next_attempt_at").values_list("pk", "endpoint_id", "endpoint__failing_since")[:limit]
    for pk, endpoint_id, failing_since in rows:
        bound = 1 if failing_since else max(1, settings.WEBHOOK_ENDPOINT_CONCURRENCY)
        if per_endpoint.get(endpoint_id, 0) < bound:
            per_endpoint[endpoint_id] = per_endpoint.get(endpoint_id, 0) + 1
            chosen.append(pk)
    deliveries_kick(delivery_ids=chosen)
    return len(chosen)


def logs_prune(*, days: int | None = None) -> int:
    """Delete finished deliveries (and their attempts) older than WEBHOOK_LOG_DAYS."""
    cutoff = clock() - datetime.timedelta(days=days if days is not None else settings.WEBHOOK_LOG_DAYS)
    deleted, _ = (WebhookDelivery.objects.filter(created_at__lt=cutoff)
                  .exclude(status=DeliveryStatus.PENDING).delete())
    return deleted
