"""Idempotency-Key on POST: the first response is kept 24 h and replayed.

A replay with the same body returns the stored response with ``Idempotent-Replayed:
true``; the same key with another body is a conflict (409 in A, 422 in B); a second
request while the first is still running is a 409.

A request that dies before its response is recorded (a killed web process, a failed
rendering) holds its key for a lease (60 s plus its own wait). After the lease, a retry runs
again, unless the first request's effect is known: a view that creates something records
it (``note_effect``) in the transaction that creates it, and the retry answers with what
was created (``KnownEffect``) instead of creating it twice. A 5xx is never left behind as
"in progress": without a known effect the key is freed, with one it is answered at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.datastructures import MultiValueDict

from .errors import Conflict, KeyReusedWithAnotherBody, ValidationFailed
from .models import IdempotencyRecord


def fingerprint(method: str, path: str, body: bytes, query: str = "") -> str:
    """The request's identity: method, path, query string (`?wait=` changes the request) and
    body (for multipart, see `multipart_digest`)."""
    return hashlib.sha256(
        method.encode() + b" " + path.encode() + b"?" + query.encode() + b"\n" + body
    ).hexdigest()


def multipart_digest(data: Mapping[str, Any], files: MultiValueDict[str, UploadedFile]) -> bytes:
    """A multipart body's fields and file contents, independent of the boundary."""
    digest = hashlib.sha256()
    for name in sorted(data.keys()):
        if name in files:
            continue
        for value in data.getlist(name) if hasattr(data, "getlist") else [data[name]]:
            digest.update(f"field:{name}={value}\n".encode())
    for name in sorted(files.keys()):
        for upload in files.getlist(name):
            digest.update(f"file:{name}:{upload.name}:{upload.size}:{upload.content_type}\n".encode())
            for chunk in upload.chunks():
                digest.update(chunk)
            upload.seek(0)
    return digest.hexdigest().encode()


def lease_seconds(wait: float = 0) -> float:
    """How long an in-progress record holds its key: 60 s plus the request's own wait."""
    lease: float = settings.IDEMPOTENCY_LEASE_SECONDS
    return lease + max(0.0, wait)


@dataclass(frozen=True)
class KnownEffect:
    """The first request's recorded effect: answer with it rather than running again."""

    kind: str
    ids: tuple[str, ...]
    status: int
    many: bool = False


def begin(*, credential: str, key: str, fp: str, wait: float = 0) -> HttpResponse | KnownEffect | None:
    """Claim the key; returns a stored response to replay, the first request's known effect
    to answer with, or None to proceed. An in-progress record whose lease expired (its
    request died without answering) is taken over: the retry answers with its effect when
    one was recorded, else runs again."""
    if len(key) > 255 or not key.strip():
        raise ValidationFailed("Idempotency-Key must be 1-255 characters.", {"Idempotency-Key": ["Invalid."]})
    now = timezone.now()
    cutoff = now - timedelta(hours=settings.IDEMPOTENCY_TTL_HOURS)
    lease_until = now + timedelta(seconds=lease_seconds(wait))
    IdempotencyRecord.objects.filter(credential=credential, key=key, created_at__lt=cutoff).delete()
    try:
        with transaction.atomic():
            IdempotencyRecord.objects.create(
                credential=credential, key=key, fingerprint=fp, lease_until=lease_until
            )
        return None
    except IntegrityError:
        pass
    record = IdempotencyRecord.objects.filter(credential=credential, key=key).first()
    if record is None:  # expired and removed between the two statements
        return begin(credential=credential, key=key, fp=fp, wait=wait)
    if record.fingerprint != fp:
        raise KeyReusedWithAnotherBody(
            "This Idempotency-Key was already used with a different request.", {"idempotencyKey": key}
        )
    if record.status_code is None:
        if record.lease_until is None or record.lease_until < now:
            # the first request died without answering: this retry takes the key over (once)
            taken = IdempotencyRecord.objects.filter(
                pk=record.pk, status_code__isnull=True, lease_until=record.lease_until
            ).update(lease_until=lease_until)
            if taken:
                return _known(record.effect)
        raise Conflict(
            "A request with this Idempotency-Key is still being processed.",
            {
                "idempotencyKey": key,
                "retryAfter": max(1, int(((record.lease_until or now) - now).total_seconds())),
            },
        )
    response = HttpResponse(
        bytes(record.body or b""), status=record.status_code, content_type=record.content_type
    )
    response["Idempotent-Replayed"] = "true"
    response._idempotent_replay = True  # type: ignore[attr-defined]  # a marker the view reads
    return response


def _known(effect: object) -> KnownEffect | None:
    if not isinstance(effect, dict) or not effect.get("ids"):
        return None
    return KnownEffect(
        kind=str(effect["kind"]),
        ids=tuple(str(i) for i in effect["ids"]),
        status=int(effect.get("status") or 200),
        many=bool(effect.get("many")),
    )


def note_effect(
    *, credential: str, key: str, kind: str, ids: Iterable[object], status: int, many: bool = False
) -> None:
    """Record what the in-progress request created; call it in the transaction that creates
    it, so that the effect and its record commit together."""
    IdempotencyRecord.objects.filter(credential=credential, key=key, status_code__isnull=True).update(
        effect={"kind": kind, "ids": [str(i) for i in ids], "status": status, "many": many}
    )


def finish(*, credential: str, key: str, status: int, body: bytes, content_type: str) -> None:
    if status >= 500:
        # A server error is not an answer worth replaying and never stays "in progress":
        # without a recorded effect the key is freed for a retry; with one the lease ends now,
        # so the retry answers with what the request did.
        pending = IdempotencyRecord.objects.filter(credential=credential, key=key, status_code__isnull=True)
        pending.filter(effect__isnull=True).delete()
        pending.update(lease_until=timezone.now())
        return
    IdempotencyRecord.objects.filter(credential=credential, key=key).update(
        status_code=status, body=body, content_type=content_type, lease_until=None
    )


def purge_expired() -> int:
    cutoff = timezone.now() - timedelta(hours=settings.IDEMPOTENCY_TTL_HOURS)
    return IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()[0]
