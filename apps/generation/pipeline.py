"""The generation pipeline, in stages with progress 0-100:

resolve effective settings (post > profile > brand > system) -> text -> media ->
per-platform adaptation -> validate against platform rules -> `review` (the steps are in
``steps``). Runs in a Celery task (queue `generation`); the task retries retryable engine
errors. An engine that answers by webhook (Replicate) hands the run to ``predictions``.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from apps.content import machine, states
from apps.content.models import Content, Prediction
from apps.core.heartbeat import Heartbeat

from .base import TextResult, VideoRequest, texts_for
from .engines import get_engine
from .enqueue import enqueue_generation
from .media_design import media_alt, media_notes, with_design
from .predictions import predictions_submit
from .render_progress import listening
from .steps import clear_generated_media, fail_locked, finish, report_progress, requests_for, store_media


def claim(content_id) -> Content | None:
    """pending -> generating with a lease, once; a duplicate or late task finds nothing to do.

    A `generating` row is taken again only once its lease has expired or been released (its
    worker died, or the engine asked for a retry). Past GENERATION_MAX_ATTEMPTS claims of
    one run, the content fails with a reason instead of running again."""
    now = timezone.now()
    with transaction.atomic():
        content = Content.objects.select_for_update().filter(pk=content_id).first()
        if content is None or content.status not in (states.PENDING, states.GENERATING):
            return None
        if content.status == states.GENERATING:
            if content.generation_lease_until is not None and content.generation_lease_until >= now:
                return None  # another worker holds it
            if content.generation_attempts >= settings.GENERATION_MAX_ATTEMPTS:
                fail_locked(
                    content,
                    f"Generation failed: its worker stopped {content.generation_attempts} times "
                    "before finishing (see GENERATION_MAX_ATTEMPTS).",
                )
                return None
        else:
            machine.transition(content, "start")
            content.generation_count += 1
            content.generation_attempts = 0
        content.generation_attempts += 1
        content.generation_claim = uuid.uuid4()
        content.generation_started_at = now
        content.generation_lease_until = now + datetime.timedelta(seconds=settings.GENERATION_LEASE_SECONDS)
        content.save(
            update_fields=[
                "generation_count",
                "generation_attempts",
                "generation_claim",
                "generation_started_at",
                "generation_lease_until",
                "updated_at",
            ]
        )
        return content


def release_id(content_id) -> None:
    """Give the lease back (the task retries later): the next claim does not count as a crash."""
    Content.objects.filter(pk=content_id, status=states.GENERATING, generation_attempts__gt=0).update(
        generation_lease_until=None,
        generation_attempts=F("generation_attempts") - 1,
        updated_at=timezone.now(),
    )


def _renewer(content: Content):
    def renew():
        Content.objects.filter(
            pk=content.pk, status=states.GENERATING, generation_claim=content.generation_claim
        ).update(
            generation_lease_until=timezone.now()
            + datetime.timedelta(seconds=settings.GENERATION_LEASE_SECONDS)
        )

    return renew


def sweep(*, now=None) -> dict:
    """Beat: generations whose worker died (lease expired) or whose task was lost (pending or
    released for too long, e.g. a Redis restart) are queued again; past
    GENERATION_MAX_ATTEMPTS the claim fails them with a reason."""
    now = now or timezone.now()
    stuck = now - datetime.timedelta(seconds=settings.GENERATION_QUEUED_STUCK_SECONDS)
    with transaction.atomic():
        expired = Q(status=states.GENERATING, generation_lease_until__lt=now)
        lost = Q(status=states.PENDING, updated_at__lt=stuck) | Q(
            status=states.GENERATING, generation_lease_until__isnull=True, updated_at__lt=stuck
        )
        ids = list(
            Content.objects.select_for_update(skip_locked=True)
            .filter(expired | lost)
            .exclude(pk__in=Prediction.objects.values("content_id"))  # webhooks finish those
            .values_list("pk", flat=True)[:500]
        )
        if not ids:
            return {"requeued": 0}
        Content.objects.filter(pk__in=ids, status=states.GENERATING).update(
            generation_lease_until=None, updated_at=now
        )
        Content.objects.filter(pk__in=ids, status=states.PENDING).update(updated_at=now)

        def enqueue() -> None:
            for pk in ids:
                enqueue_generation(str(pk))

        transaction.on_commit(enqueue)
    return {"requeued": len(ids)}


def run(content_id) -> Content | None:
    content = claim(content_id)
    if content is None:
        return None
    with Heartbeat(_renewer(content), lambda: settings.GENERATION_HEARTBEAT_SECONDS):
        return _run_claimed(content)


def _run_claimed(content: Content) -> Content | None:
    engine = get_engine()
    report_progress(content, "settings")
    text_request, media_requests = requests_for(content)
    if submits_predictions(engine):
        predictions_submit(
            content=content, engine=engine, text_request=text_request, media_requests=media_requests
        )
        return content  # finished by the provider's webhooks (apps.generation.predictions)

    texts, per_platform = texts_for(engine, text_request)
    report_progress(content, "text")
    alt, notes = "", []
    if media_requests:
        clear_generated_media(content)
        first = texts if isinstance(texts, TextResult) else texts[content.platforms[0]]
        media_requests = with_design(content, media_requests, first, text_request)
        for n, request in enumerate(media_requests):
            with listening(_media_progress(content, n, len(media_requests))):
                result = engine.video(request) if isinstance(request, VideoRequest) else engine.image(request)
            store_media(content, result, position=n, ratio=getattr(request, "ratio", ""))
            alt = alt or media_alt(result, request)
            notes += [note for note in media_notes(result) if note not in notes]
            report_progress(content, "media", 30 + int(30 * (n + 1) / len(media_requests)))
    report_progress(content, "media")
    if alt:  # the pictures' alt text, written from what was drawn, on every platform's text
        texts = (
            dataclasses.replace(texts, alt_text=alt)
            if isinstance(texts, TextResult)
            else {p: dataclasses.replace(t, alt_text=alt) for p, t in texts.items()}
        )
    return finish(
        content,
        texts,
        per_platform=per_platform,
        request=text_request,
        engine=engine.name,
        media_notes=notes,
    )


def _media_progress(content: Content, n: int, count: int):
    """Progress 30-60 through the media: each of ``count`` pictures its share, reported as the
    engine renders (frames of a video, steps of an image)."""

    def listener(fraction: float) -> None:
        report_progress(content, "media", 30 + int(30 * (n + fraction) / count))

    return listener


def submits_predictions(engine) -> bool:
    """An engine with a webhook URL (Replicate) completes asynchronously through webhooks."""
    return bool(getattr(engine, "webhook_url", None)) and hasattr(engine, "submit_text")
