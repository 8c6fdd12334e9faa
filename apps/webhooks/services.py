"""Outbound webhooks: registrations, deliveries from the outbox, signed attempts, retries.

Flow: a service records an event in the outbox (apps.events); the dispatcher claims it and,
in that same transaction, creates one WebhookDelivery per active subscribed endpoint
(`deliveries_create_for_events`, its `data` rendered as GET /v1 renders the resource), so a
committed event always ends up as delivery rows. After the fan-out each endpoint with new
deliveries is handed to the `webhooks` queue (`deliveries_kick`); the task leases the
endpoint's next due delivery (bounded per endpoint), sends it, and leases the next one in the
transaction that records the last (`endpoint_drain`), over one kept connection. Retries and
leftovers are found by the beat sweep in the database, never parked in the broker.
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

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q, Subquery
from django.utils import timezone

from apps.core import ids
from apps.core.db import relax_commit
from apps.core.errors import InvalidSubject
from apps.core.tasking import task_named

from . import ssrf
from .models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from .sending import RESPONSE_LOG_BYTES, Sender

logger = logging.getLogger(__name__)

EVENT_TYPES = (
    "content.created",
    "content.generated",
    "content.failed",
    "content.approved",
    "content.rejected",
    "content.scheduled",
    "content.publishing",
    "content.published",
    "content.updated",
    "content.deleted",
    "profile.connected",
    "profile.disconnected",
    "profile.token_expired",
    "profile.token_expiring",
    "batch.progress",
    "batch.completed",
    "publication.failed",
    "webhook.test",
    "webhook.disabled",
)
#: delays before retries 1..7 (seconds); an attempt after the last one fails the delivery
RETRY_SCHEDULE = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600)
JITTER = 0.1
DISABLE_AFTER = datetime.timedelta(days=5)
ROTATION_OVERLAP = datetime.timedelta(hours=24)
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
    error = InvalidSubject(
        "secret must be whsec_ followed by base64 of 24 to 64 bytes.",
        "secret",
        "Expected whsec_<base64 of 24-64 random bytes>.",
    )
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
    if (
        endpoint.previous_secret
        and endpoint.previous_secret_expires_at
        and endpoint.previous_secret_expires_at > now
    ):
        found.append(endpoint.previous_secret)
    return found


# --- registrations -------------------------------------------------------------------------


def _events_validate(events) -> list[str]:
    if not isinstance(events, list) or not events:
        raise InvalidSubject("events must list at least one event name.", "events", "Required.")
    unknown = sorted({e for e in events if e != "*" and e not in EVENT_TYPES})
    if unknown:
        raise InvalidSubject(
            f"Unknown event name(s): {', '.join(unknown)}.",
            "events",
            f"Unknown: {', '.join(unknown)}. Known: *, {', '.join(EVENT_TYPES)}.",
        )
    return list(dict.fromkeys(events))


def webhook_create(
    *, organization, url: str, events: list[str], secret: str | None = None, active: bool = True
) -> WebhookEndpoint:
    ssrf.url_check(url)
    return WebhookEndpoint.objects.create(
        organization=organization,
        url=url,
        events=_events_validate(events),
        secret=secret_validate(secret) if secret else secret_make(),
        active=active,
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
        event_record(
            organization=endpoint.organization_id,
            type="webhook.disabled",
            data={"webhookId": ids.render(endpoint.pk, "webhook"), "url": endpoint.url, "reason": reason},
        )
    logger.warning("webhook %s disabled: %s", endpoint_id, reason)
    return True


# --- deliveries ----------------------------------------------------------------------------


def _iso(moment: datetime.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _envelope(
    *, message_id: str, type: str, timestamp: datetime.datetime, organization_id, data: dict
) -> dict:
    return {
        "id": message_id,
        "type": type,
        "timestamp": _iso(timestamp),
        "organizationId": ids.render(organization_id, "organization"),
        "data": data,
    }


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
    wanted = [
        e
        for e in events
        if any(ep.organization_id == e.organization_id and ep.subscribed(e.type) for ep in endpoints)
    ]
    if not wanted:
        return []
    from .render import render_events

    data = render_events(wanted)
    now = clock()
    # an endpoint that is failing is backing off: its new deliveries wait with its others (the
    # first due afterwards probes it) instead of each costing an attempt against it
    backing_off = {
        ep.pk: now + datetime.timedelta(seconds=endpoint_back_off_seconds(now - ep.failing_since, None))
        for ep in endpoints
        if ep.failing_since is not None
    }
    rows = []
    for event in wanted:
        message_id = ids.render(event.pk, "event")
        payload = _envelope(
            message_id=message_id,
            type=event.type,
            timestamp=event.created_at,
            organization_id=event.organization_id,
            data=data[event.pk],
        )
        for endpoint in endpoints:
            if endpoint.organization_id == event.organization_id and endpoint.subscribed(event.type):
                rows.append(
                    WebhookDelivery(
                        organization_id=event.organization_id,
                        endpoint=endpoint,
                        event=event,
                        message_id=message_id,
                        event_type=event.type,
                        payload=payload,
                        # due at once, in the order the events were recorded (a drain sends them so)
                        next_attempt_at=backing_off.get(endpoint.pk) or min(event.created_at, now),
                    )
                )
    created = WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
    return [d.pk for d in created]


def webhook_test(*, endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A `webhook.test` delivery to this endpoint only (sent even if it is not subscribed to it)."""
    message_id = ids.render(uuid.uuid4(), "event")
    now = clock()
    data = {
        "webhookId": ids.render(endpoint.pk, "webhook"),
        "message": "This is a test event from Postforge.",
    }
    delivery = WebhookDelivery.objects.create(
        organization_id=endpoint.organization_id,
        endpoint=endpoint,
        message_id=message_id,
        event_type="webhook.test",
        payload=_envelope(
            message_id=message_id,
            type="webhook.test",
            timestamp=now,
            organization_id=endpoint.organization_id,
            data=data,
        ),
        next_attempt_at=now,
    )
    transaction.on_commit(lambda: delivery_kick(delivery_id=delivery.pk))
    return delivery


def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send it again (same id and body); its earlier attempts stay in the log."""
    if not delivery.endpoint.active:
        from apps.core.errors import InvalidTransition

        raise InvalidTransition(
            "The webhook is disabled; enable it before redelivering.",
            problems={"webhook": delivery.endpoint.disabled_reason or "disabled"},
        )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.PENDING, next_attempt_at=clock(), leased_until=None, updated_at=timezone.now()
    )
    transaction.on_commit(lambda: delivery_kick(delivery_id=delivery.pk))
    delivery.refresh_from_db()
    return delivery


def deliveries_kick(*, delivery_ids=None, endpoint_id=None, limit: int = 1) -> None:
    """Hand work to the `webhooks` queue (best effort: the sweep finds what this misses).

    Given delivery ids (new deliveries from the outbox), one `deliver_endpoint` task per
    endpoint for each new delivery up to the endpoint's concurrency bound: each drains its
    endpoint's due deliveries one after another, so a burst of events costs a few tasks, not
    one per delivery. Given an endpoint, `limit` such tasks."""
    deliver_endpoint = task_named("apps.webhooks.tasks.deliver_endpoint")
    if delivery_ids is not None:
        counts: dict = {}
        orgs: dict = {}
        # only deliveries due now: a failing endpoint's new ones wait for its back-off (the sweep)
        for endpoint_pk, org_pk in WebhookDelivery.objects.filter(
            pk__in=list(delivery_ids), next_attempt_at__lte=clock()
        ).values_list("endpoint_id", "organization_id"):
            counts[endpoint_pk] = counts.get(endpoint_pk, 0) + 1
            orgs[endpoint_pk] = org_pk
        bound = max(1, settings.WEBHOOK_ENDPOINT_CONCURRENCY)
        # no more tasks than the organization has room for: tasks it could not use would queue
        # ahead of other organizations' (an organization at its share gets its new deliveries
        # through its running drains, which lease the next due one, or the sweep)
        room = organization_room(set(orgs.values()))
        kicks = []
        for endpoint_pk, n in counts.items():
            take = max(0, min(n, bound, room[orgs[endpoint_pk]]))
            room[orgs[endpoint_pk]] -= take
            kicks += [endpoint_pk] * take
    else:
        kicks = [endpoint_id] * limit
    for endpoint_pk in kicks:
        try:
            deliver_endpoint.delay(str(endpoint_pk))
        except Exception:
            logger.warning("Could not enqueue webhook deliveries of endpoint %s; the sweep will", endpoint_pk)
            return


def delivery_kick(*, delivery_id) -> None:
    """Try this one delivery now (a test event, a redelivery), then its endpoint's backlog."""
    try:
        task_named("apps.webhooks.tasks.deliver").delay(str(delivery_id))
    except Exception:
        logger.warning("Could not enqueue webhook delivery %s; the sweep will", delivery_id)


def _due(now=None):
    now = now or clock()
    return WebhookDelivery.objects.filter(
        status=DeliveryStatus.PENDING, next_attempt_at__lte=now, endpoint__active=True
    ).filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now))


def _lease_seconds() -> float:
    return max(settings.WEBHOOK_LEASE_SECONDS, settings.WEBHOOK_TIMEOUT_SECONDS + 1)


#: an endpoint whose last 2xx is older than this is probed by one attempt at a time
ANSWERED_WINDOW = datetime.timedelta(minutes=10)
#: answered_at is rewritten at most this often (not on every success)
ANSWERED_REFRESH = datetime.timedelta(seconds=60)
#: an attempt unanswered this long marks its endpoint slow: no second one joins it
SLOW_SECONDS = 5.0


def endpoint_bound(endpoint: WebhookEndpoint, now: datetime.datetime, *, oldest_lease=None) -> int:
    """How many attempts the endpoint may have in flight: WEBHOOK_ENDPOINT_CONCURRENCY when it
    answers, one while it is failing, has not answered 2xx lately (a new or idle endpoint is
    probed first, so a burst to an endpoint that hangs holds one worker, not the bound), or
    has an attempt waiting for its answer longer than SLOW_SECONDS."""
    if endpoint.failing_since is not None:
        return 1
    if endpoint.answered_at is None or now - endpoint.answered_at > ANSWERED_WINDOW:
        return 1
    if oldest_lease is not None:
        started = oldest_lease - datetime.timedelta(seconds=_lease_seconds())
        if (now - started).total_seconds() > min(SLOW_SECONDS, settings.WEBHOOK_TIMEOUT_SECONDS / 2):
            return 1
    return max(1, settings.WEBHOOK_ENDPOINT_CONCURRENCY)


_slots_seen: dict[str, tuple[float, int]] = {}


def webhook_worker_slots() -> int:
    """Pool slots of the live workers that take the `webhooks` queue (their heartbeats), read
    at most every 10 s; 0 when none is known (no Redis broker)."""
    seen = _slots_seen.get("slots")
    if seen is not None and time.monotonic() - seen[0] < 10:
        return seen[1]
    from apps.core import workers

    try:
        slots = sum(w["concurrency"] for w in workers.alive() if "webhooks" in w["queues"])
    except Exception:  # Redis away for a moment: the last figure, else none known
        slots = seen[1] if seen else 0
    _slots_seen["slots"] = (time.monotonic(), slots)
    return slots


def organization_bound() -> int:
    """How many delivery attempts one organization may have in flight at once, over all its
    endpoints: WEBHOOK_ORGANIZATION_CONCURRENCY when set, else half the webhooks workers'
    slots (at least one), so that one tenant's slow receivers never hold every slot."""
    if settings.WEBHOOK_ORGANIZATION_CONCURRENCY > 0:
        return settings.WEBHOOK_ORGANIZATION_CONCURRENCY
    return max(1, webhook_worker_slots() // 2)


def organization_room(org_ids) -> dict:
    """{organization id: attempts it may still start now} (organization_bound less its leases)."""
    bound = organization_bound()
    taken = dict(
        _in_flight(clock(), organization_id__in=list(org_ids))
        .values_list("organization_id")
        .annotate(n=models.Count("pk"))
    )
    return {org: bound - taken.get(org, 0) for org in org_ids}


def _in_flight(now, **scope) -> models.QuerySet:
    """Attempts under way (leased, the lease not run out: a killed worker's lease expires)."""
    return WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, leased_until__gte=now, **scope)


def delivery_claim(*, delivery_id=None, endpoint_id=None) -> WebhookDelivery | None:
    """Lease one due delivery (this one, or the endpoint's next due one) when its endpoint has
    room (`endpoint_bound`) and its organization too (`organization_bound`; the organization's
    row is locked while counting, so two workers cannot both take its last place)."""
    from apps.accounts.models import Organization

    now = clock()
    with transaction.atomic():
        if delivery_id is not None:
            endpoint_id = _due(now).filter(pk=delivery_id).values_list("endpoint_id", flat=True).first()
            if endpoint_id is None:
                return None
        # the organization first, then the endpoint: every claim locks in this order. FOR NO KEY
        # UPDATE: it does not block (nor deadlock with) the outbox writing deliveries, whose
        # foreign keys take KEY SHARE on both rows
        org_id = (
            Organization.objects.select_for_update(no_key=True)
            .filter(pk=Subquery(WebhookEndpoint.objects.filter(pk=endpoint_id).values("organization_id")))
            .values_list("pk", flat=True)
            .first()
        )
        if org_id is None:
            return None
        if _in_flight(now, organization_id=org_id).count() >= organization_bound():
            return None
        endpoint = (
            WebhookEndpoint.objects.select_for_update(no_key=True).filter(pk=endpoint_id, active=True).first()
        )
        if endpoint is None:
            return None
        in_flight = _in_flight(now, endpoint_id=endpoint.pk).aggregate(
            n=models.Count("pk"), oldest=models.Min("leased_until")
        )
        if in_flight["n"] >= endpoint_bound(endpoint, now, oldest_lease=in_flight["oldest"]):
            return None
        due = _due(now).filter(endpoint_id=endpoint.pk)
        due = due.filter(pk=delivery_id) if delivery_id is not None else due.order_by("next_attempt_at")
        delivery = due.select_for_update(skip_locked=True, of=("self",)).first()
        if delivery is None:
            return None
        delivery.leased_until = now + datetime.timedelta(seconds=_lease_seconds())
        WebhookDelivery.objects.filter(pk=delivery.pk).update(leased_until=delivery.leased_until)
        delivery.endpoint = endpoint
    return delivery


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
    sender = Sender()
    try:
        attempt, _ = _send(delivery, sender, claim_next=False)
    finally:
        sender.close()
    return attempt


def endpoint_drain(*, endpoint_id=None, delivery_id=None, budget_seconds: float | None = None) -> int:
    """Attempt the endpoint's due deliveries one after another (starting with `delivery_id`
    if given) over one kept connection, each next one leased in the transaction that records
    the last. Stops at the first failure (the retry schedule takes over), when nothing is due,
    or after `budget_seconds`, handing what is left to a fresh task so that other endpoints'
    tasks get their turn. Returns the number of attempts made."""
    budget = settings.WEBHOOK_DRAIN_SECONDS if budget_seconds is None else budget_seconds
    delivery = delivery_claim(delivery_id=delivery_id, endpoint_id=endpoint_id)
    if delivery is None and delivery_id is not None:
        return 0
    sender = Sender()
    started, attempts = time.monotonic(), 0
    try:
        while delivery is not None:
            more = time.monotonic() - started < budget
            endpoint_pk = delivery.endpoint_id
            attempt, delivery = _send(delivery, sender, claim_next=more)
            attempts += 1
            if not more and attempt.status_code is not None and 200 <= attempt.status_code < 300:
                deliveries_kick(endpoint_id=endpoint_pk)  # the rest, in a fresh task
    finally:
        sender.close()
    return attempts


def _send(delivery, sender: Sender, *, claim_next: bool):
    endpoint = delivery.endpoint
    started = clock()
    timestamp = int(started.timestamp())
    body = json.dumps(delivery.payload, separators=(",", ":"), ensure_ascii=False).encode()
    signature = " ".join(
        sign(s, delivery.message_id, timestamp, body) for s in signing_secrets(endpoint, started)
    )
    headers = {
        "webhook-id": delivery.message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }
    t0 = time.monotonic()
    outcome = sender.post(endpoint.url, body, headers)
    latency_ms = int((time.monotonic() - t0) * 1000)
    ok = outcome.status_code is not None and 200 <= outcome.status_code < 300
    if outcome.status_code is not None and not ok and not outcome.error:
        outcome.error = (
            "redirect not followed" if 300 <= outcome.status_code < 400 else f"HTTP {outcome.status_code}"
        )
    return _record(delivery, endpoint, started, latency_ms, outcome, ok, claim_next=claim_next)


def endpoint_back_off_seconds(failing_for: datetime.timedelta, retry_after: float | None) -> float:
    """How long an unreachable endpoint's other deliveries wait: its Retry-After, else a tenth
    of how long it has been failing, between 5 s and 10 min."""
    if retry_after is not None:
        return min(max(retry_after, 1.0), 24 * 3600.0)
    return min(max(failing_for.total_seconds() / 10, 5.0), 600.0)


def _endpoint_back_off(endpoint_id, delivery_id, now, failing_since, retry_after) -> int:
    """The endpoint did not answer (timeout, refused, TLS) or asked to slow down (429/503):
    that is the endpoint, not this message, so its other due deliveries wait too instead of
    each holding a worker for the timeout. They keep their own retry counts; the first one
    due afterwards probes the endpoint. An HTTP error answer (4xx/5xx) defers nothing: it may
    be this message alone."""
    until = now + datetime.timedelta(seconds=endpoint_back_off_seconds(now - failing_since, retry_after))
    return (
        WebhookDelivery.objects.filter(
            endpoint_id=endpoint_id, status=DeliveryStatus.PENDING, next_attempt_at__lt=until
        )
        .filter(Q(leased_until__isnull=True) | Q(leased_until__lt=now))
        .exclude(pk=delivery_id)
        .update(next_attempt_at=until)
    )


def _record(delivery, endpoint, started, latency_ms, outcome, ok, *, claim_next: bool = False):
    """Record the attempt; on success and when asked, lease the endpoint's next due delivery
    in the same transaction (one lease given back, one taken: the endpoint's bound holds)."""
    now = clock()
    disable_reason = None
    following = None
    probed = False
    with transaction.atomic():
        # losing this commit in a database crash only sends the delivery again (at least once;
        # receivers dedupe on webhook-id): it need not wait for the WAL flush
        relax_commit()
        attempt = WebhookAttempt.objects.create(
            delivery_id=delivery.pk,
            started_at=started,
            status_code=outcome.status_code,
            latency_ms=latency_ms,
            response_body=outcome.body[:RESPONSE_LOG_BYTES],
            error=outcome.error[:500],
        )
        count = delivery.attempt_count + 1
        fields = {
            "attempt_count": count,
            "leased_until": None,
            "last_status_code": outcome.status_code,
            "updated_at": timezone.now(),
        }
        if ok:
            fields.update(status=DeliveryStatus.SUCCEEDED, next_attempt_at=None)
            probed = endpoint_bound(endpoint, now) == 1  # this answer lifts the bound
            if (
                endpoint.failing_since is not None
                or probed
                or endpoint.answered_at is None
                or now - endpoint.answered_at > ANSWERED_REFRESH
            ):
                WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=None, answered_at=now)
                endpoint.failing_since, endpoint.answered_at = None, now
        else:
            failing_since = endpoint.failing_since or started
            if endpoint.failing_since is None:
                WebhookEndpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=True).update(
                    failing_since=started
                )
            delay = _next_delay(count, outcome.retry_after)
            if outcome.status_code == 410:
                disable_reason = "The endpoint answered 410 Gone."
            elif now - failing_since >= DISABLE_AFTER:
                disable_reason = f"Deliveries have failed since {_iso(failing_since)} (5 days)."
            if delay is None or outcome.status_code == 410:
                fields.update(status=DeliveryStatus.FAILED, next_attempt_at=None)
            else:
                fields.update(next_attempt_at=now + datetime.timedelta(seconds=delay))
            if not disable_reason and (outcome.status_code is None or outcome.status_code in (429, 503)):
                _endpoint_back_off(endpoint.pk, delivery.pk, now, failing_since, outcome.retry_after)
        # guarded by our lease: a sweep that re-leased an expired claim owns the row now
        WebhookDelivery.objects.filter(pk=delivery.pk, leased_until=delivery.leased_until).update(**fields)
        if ok and claim_next:
            following = (
                _due(now)
                .filter(endpoint_id=endpoint.pk)
                .order_by("next_attempt_at")
                .select_related("endpoint")
                .select_for_update(skip_locked=True, of=("self",))
                .first()
            )
            if following is not None:
                following.leased_until = now + datetime.timedelta(seconds=_lease_seconds())
                WebhookDelivery.objects.filter(pk=following.pk).update(leased_until=following.leased_until)
    if disable_reason:
        endpoint_disable(endpoint_id=endpoint.pk, reason=disable_reason)
    if ok and probed and settings.WEBHOOK_ENDPOINT_CONCURRENCY > 1:
        # the probe answered: the rest of the backlog may go out in parallel now
        room = organization_room({endpoint.organization_id})[endpoint.organization_id]
        if room > 0:
            deliveries_kick(
                endpoint_id=endpoint.pk, limit=min(settings.WEBHOOK_ENDPOINT_CONCURRENCY - 1, room)
            )
    return attempt, following


def deliveries_sweep(*, limit: int = 500, grace_seconds: float = 2.0) -> int:
    """Hand endpoints with due deliveries to drain tasks (retries come due, leases of killed
    workers expire, tasks lost with the broker), as many per endpoint as it has room for.
    Deliveries due for less than `grace_seconds` are left alone: their dispatch just kicked
    them. Returns the number of tasks sent."""
    now = clock()
    cutoff = now - datetime.timedelta(seconds=grace_seconds)
    rows = (
        _due(now)
        .filter(next_attempt_at__lte=cutoff)
        .order_by("endpoint_id")
        .values_list("endpoint_id", "organization_id", "endpoint__failing_since")
        .distinct()[:limit]
    )
    in_flight = dict(_in_flight(now).values_list("endpoint_id").annotate(n=models.Count("pk")))
    org_room = dict(_in_flight(now).values_list("organization_id").annotate(n=models.Count("pk")))
    org_bound = organization_bound()
    sent = 0
    for endpoint_id, org_id, failing_since in rows:
        bound = 1 if failing_since else max(1, settings.WEBHOOK_ENDPOINT_CONCURRENCY)
        room = min(bound - in_flight.get(endpoint_id, 0), org_bound - org_room.get(org_id, 0))
        if room > 0:
            org_room[org_id] = org_room.get(org_id, 0) + room
            deliveries_kick(endpoint_id=endpoint_id, limit=room)
            sent += room
    return sent


def logs_prune(*, days: int | None = None) -> int:
    """Delete finished deliveries (and their attempts) older than WEBHOOK_LOG_DAYS; return how many."""
    cutoff = clock() - datetime.timedelta(days=days if days is not None else settings.WEBHOOK_LOG_DAYS)
    deleted, _ = (
        WebhookDelivery.objects.filter(created_at__lt=cutoff).exclude(status=DeliveryStatus.PENDING).delete()
    )
    return deleted


def inbound_prune(*, days: int | None = None) -> int:
    """Delete applied inbound webhooks older than WEBHOOK_LOG_DAYS (their providers' timestamp
    tolerance refuses a replay long before), except Meta's data deletion requests, whose
    status page stays answerable."""
    from .models import InboundWebhook

    cutoff = clock() - datetime.timedelta(days=days if days is not None else settings.WEBHOOK_LOG_DAYS)
    deleted, _ = (
        InboundWebhook.objects.filter(received_at__lt=cutoff, processed_at__isnull=False)
        .exclude(provider="meta", event_id__startswith="deletion:")
        .delete()
    )
    return deleted
