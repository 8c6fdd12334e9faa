"""Idempotency-Key on POST: the first response is kept 24 h and replayed.

A replay with the same body returns the stored response with ``Idempotent-Replayed:
true``; the same key with another body is a conflict (409 in A, 422 in B); a second
request while the first is still running is a 409.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone

from .errors import Conflict, ValidationFailed
from .models import IdempotencyRecord


class KeyReusedWithAnotherBody(Conflict):
    """This Idempotency-Key was used with another request body."""

    family_b_status = 422


def fingerprint(method: str, path: str, body: bytes) -> str:
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + body).hexdigest()


def begin(*, credential: str, key: str, fp: str) -> HttpResponse | None:
    """Claim the key; returns a stored response to replay, or None to proceed."""
    if len(key) > 255 or not key.strip():
        raise ValidationFailed("Idempotency-Key must be 1-255 characters.", {"Idempotency-Key": ["Invalid."]})
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_TTL_HOURS)
    IdempotencyRecord.objects.filter(credential=credential, key=key, created_at__lt=cutoff).delete()
    try:
        with transaction.atomic():
            IdempotencyRecord.objects.create(credential=credential, key=key, fingerprint=fp)
        return None
    except IntegrityError:
        pass
    record = IdempotencyRecord.objects.filter(credential=credential, key=key).first()
    if record is None:  # expired and removed between the two statements
        return begin(credential=credential, key=key, fp=fp)
    if record.fingerprint != fp:
        raise KeyReusedWithAnotherBody(
            "This Idempotency-Key was already used with a different request.", {"idempotencyKey": key}
        )
    if record.status_code is None:
        raise Conflict("A request with this Idempotency-Key is still being processed.", {"idempotencyKey": key})
    response = HttpResponse(bytes(record.body or b""), status=record.status_code, content_type=record.content_type)
    response["Idempotent-Replayed"] = "true"
    response._idempotent_replay = True
    return response


def finish(*, credential: str, key: str, status: int, body: bytes, content_type: str) -> None:
    if status >= 500:
        # A server error is not an answer worth replaying: free the key for a retry.
        IdempotencyRecord.objects.filter(credential=credential, key=key, status_code__isnull=True).delete()
        return
    IdempotencyRecord.objects.filter(credential=credential, key=key).update(
        status_code=status, body=body, content_type=content_type
    )


def purge_expired() -> int:
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_TTL_HOURS)
    return IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()[0]
