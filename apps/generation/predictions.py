"""Asynchronous generation with a provider's predictions (Replicate), completed by webhooks.

Used instead of the engine's synchronous (polling) methods when the engine has a webhook URL
(GENERATION_ENGINE=replicate + REPLICATE_WEBHOOK_URL):

1. ``predictions_submit`` (in the generation task) submits one prediction per output (the
   text, each image or the video) and keeps a ``Prediction`` row for each.
2. ``/webhook/replicate`` verifies and records the delivery (``apps.webhooks.inbound``) and
   calls ``prediction_receive``: the final body is stored on the row, once, and the task
   ``complete_prediction`` is enqueued.
3. ``prediction_complete`` downloads and fits the output (text result or media) and, for the
   last prediction of the run, adapts the text and moves the content to review.

A webhook can arrive before its row exists (the provider answers fast): each side commits
its own write first and then looks for the other's (``prediction_receive`` is called after
each submission too), and the conditional update makes the hand-over happen once.

A webhook may also never arrive (the URL unreachable from the provider, a proxy dropping it,
the provider giving up). Beat runs ``predictions_poll_stale`` every 30 s: a prediction still
`submitted` after PREDICTION_POLL_AFTER_SECONDS (default 60) is fetched from the provider
(``GET /v1/predictions/{id}`` through the engine's client) and, once it is final, handed to
the same completion as a webhook (``prediction_hand_over`` -> ``prediction_complete``).
Whichever of the poll and a late webhook comes first wins; the other changes nothing.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from typing import Protocol, cast

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.content import states
from apps.content.models import Content, Prediction
from apps.core.tasking import task_named

from . import steps
from .base import EngineError, ImageResult, PredictionEngine, TextResult, VideoRequest
from .engines import get_engine
from .enqueue import COMPLETE_PREDICTION
from .media_design import media_alt

logger = logging.getLogger(__name__)

TERMINAL = ("succeeded", "failed", "canceled")


class RecordedWebhookReader(Protocol):
    def __call__(self, *, provider: str, subject: str, statuses: tuple[str, ...]) -> dict | None:
        """The body of the first webhook recorded for `subject` whose status is one of `statuses`."""


#: predictions asked for per poll (the oldest first; the rest wait for the next beat)
POLL_BATCH = 50


def predictions_submit(*, content: Content, engine, text_request, media_requests) -> list[Prediction]:
    """Submit the run's predictions; the content stays `generating` until their webhooks."""
    with transaction.atomic():
        Prediction.objects.filter(content=content).delete()  # an earlier attempt's jobs are void
    steps.clear_generated_media(content)
    jobs = [("text", 0, engine.submit_text, text_request)]
    for n, request in enumerate(media_requests):
        if isinstance(request, VideoRequest):
            jobs.append(("video", n, engine.submit_video, request))
        else:
            jobs.append(("image", n, engine.submit_image, request))
    made = []
    for kind, position, submit, request in jobs:
        external_id = submit(request)
        made.append(
            Prediction.objects.create(
                content=content, provider=engine.name, external_id=external_id, kind=kind, position=position
            )
        )
        prediction_receive(provider=engine.name, external_id=external_id)  # its webhook may be here already
    return made


#: how to read a provider's recorded webhook: apps.webhooks records them and plugs its reader in
#: when Django starts (WebhooksConfig.ready), so generation imports nothing of webhooks
_recorded: dict[str, RecordedWebhookReader] = {}


def read_recorded_webhooks_with(reader: RecordedWebhookReader) -> None:
    _recorded["reader"] = reader


def prediction_receive(*, provider: str, external_id: str) -> bool:
    """Hand a prediction's final body (from its recorded webhook) to the completion task, once."""
    reader = _recorded.get("reader")
    payload = reader(provider=provider, subject=external_id, statuses=TERMINAL) if reader else None
    if payload is None:
        return False
    return prediction_hand_over(provider=provider, external_id=external_id, payload=payload)


def prediction_hand_over(*, provider: str, external_id: str, payload: dict) -> bool:
    """Store a prediction's final body (a webhook's or a poll's) and enqueue its completion, once."""
    with transaction.atomic():
        prediction = Prediction.objects.filter(provider=provider, external_id=external_id).first()
        if prediction is None:
            return False
        claimed = Prediction.objects.filter(pk=prediction.pk, status=Prediction.SUBMITTED).update(
            status=Prediction.RECEIVED, payload=payload, updated_at=timezone.now()
        )
        if claimed:
            prediction_id = str(prediction.pk)
            complete = task_named(COMPLETE_PREDICTION)
            transaction.on_commit(lambda: complete.delay(prediction_id))
    return bool(claimed)


def predictions_poll_stale(*, older_than_seconds: float | None = None, limit: int = POLL_BATCH) -> dict:
    """Ask the provider about predictions whose webhook has not come after `older_than_seconds`.

    A final one (succeeded, failed, canceled) goes through the webhook's completion path, so
    a failed prediction fails the content with the provider's reason; one still running is
    asked again next time. When the provider cannot be asked now (timeout, 429, 5xx) the
    prediction waits for the next poll; when it refuses for good (the prediction is unknown to
    it, 404) the content fails with that reason. Only predictions of the configured engine,
    of content still generating, are asked for.
    """
    if older_than_seconds is None:
        older_than_seconds = settings.PREDICTION_POLL_AFTER_SECONDS
    counts = {"asked": 0, "completing": 0, "running": 0, "unavailable": 0, "failed": 0}
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    waiting = Prediction.objects.filter(
        status=Prediction.SUBMITTED, created_at__lte=cutoff, content__status=states.GENERATING
    )
    if not waiting.exists():  # the usual case: no engine is built, nothing is asked
        return counts
    engine = get_engine()
    fetch = getattr(engine, "get_prediction", None)
    if fetch is None:  # the configured engine has no predictions to ask about
        return counts
    stale = list(
        waiting.filter(provider=engine.name)
        .order_by("created_at")
        .values_list("external_id", "content_id")[:limit]
    )
    for external_id, content_id in stale:
        counts["asked"] += 1
        try:
            payload = fetch(external_id)
        except EngineError as exc:
            if exc.retryable:
                logger.warning("prediction %s could not be fetched now: %s", external_id, exc)
                counts["unavailable"] += 1
            else:
                steps.fail(content_id, f"Generation failed: {exc}")
                counts["failed"] += 1
            continue
        if payload.get("status") not in TERMINAL:
            counts["running"] += 1
            continue
        if prediction_hand_over(provider=engine.name, external_id=external_id, payload=payload):
            counts["completing"] += 1
    return counts


def prediction_complete(*, prediction_id) -> Content | None:
    """Turn a received prediction into text or media; the run's last one finishes the content.

    Raises EngineError when the prediction failed or its output is unusable (the task fails
    the content with that reason).
    """
    prediction = (
        Prediction.objects.select_related("content")
        .filter(pk=prediction_id, status=Prediction.RECEIVED)
        .first()
    )
    if prediction is None:
        return None
    content = prediction.content
    if content.status != states.GENERATING:
        return None  # regenerated, deleted or failed meanwhile
    text_request, media_requests = steps.requests_for(content)
    request = text_request if prediction.kind == "text" else media_requests[prediction.position]
    engine = cast(PredictionEngine, get_engine())  # only a prediction engine made the row
    if prediction.kind == "text" and hasattr(engine, "continue_text"):
        earlier = list(
            Prediction.objects.filter(content=content, kind="text", position__lt=prediction.position)
            .order_by("position")
            .values_list("payload", flat=True)
        )
        outcome = engine.continue_text(prediction.payload, text_request, earlier=earlier)
        if isinstance(outcome, str):  # the reply broke the rules: a repair turn was submitted
            return _repair_submitted(content, prediction, engine.name, outcome)
        result = outcome
    else:
        result = engine.result_from_prediction(prediction.payload, prediction.kind, request=request)
    output: dict = {}
    if isinstance(result, TextResult):
        output = dataclasses.asdict(result)
    elif isinstance(result, dict):  # a text per platform, each written for its platform
        output = {"by_platform": {p: dataclasses.asdict(t) for p, t in result.items()}}
    else:
        steps.store_media(content, result, position=prediction.position, ratio=getattr(request, "ratio", ""))
    done = Prediction.objects.filter(pk=prediction.pk, status=Prediction.RECEIVED).update(
        status=Prediction.DONE, output=output, completed_at=timezone.now(), updated_at=timezone.now()
    )
    if not done:
        return None
    run = Prediction.objects.filter(content=content)
    total, finished = run.count(), run.filter(status=Prediction.DONE).count()
    steps.report_progress(
        content, "text" if prediction.kind == "text" else "media", 10 + 75 * finished // max(1, total)
    )
    if finished < total:
        return content
    text = run.filter(kind="text").latest("position").output  # the last turn's (after any repairs)
    if media_requests:  # the provider's picture described by what its final prompt asked for
        alt = media_alt(ImageResult(b"", 0, 0, ""), media_requests[0])
        text = {**text, "alt_text": alt}
        if "by_platform" in text:
            text["by_platform"] = {p: {**t, "alt_text": alt} for p, t in text["by_platform"].items()}
    if "by_platform" in text:
        texts = {p: TextResult(**t) for p, t in text["by_platform"].items()}
        return steps.finish(content, texts, per_platform=True, request=text_request, engine=engine.name)
    return steps.finish(content, TextResult(**text))


def _repair_submitted(
    content: Content, prediction: Prediction, provider: str, external_id: str
) -> Content | None:
    """A text prediction whose reply asked for a repair turn is done; the turn it submitted
    (the next position) is a prediction of the run like any other, completed by its webhook."""
    with transaction.atomic():
        done = Prediction.objects.filter(pk=prediction.pk, status=Prediction.RECEIVED).update(
            status=Prediction.DONE,
            output={"repairTurn": external_id},
            completed_at=timezone.now(),
            updated_at=timezone.now(),
        )
        if not done:
            return None  # another run of this task handed it over already
        Prediction.objects.create(
            content=content,
            provider=provider,
            external_id=external_id,
            kind="text",
            position=prediction.position + 1,
        )
    prediction_receive(provider=provider, external_id=external_id)  # its webhook may be here already
    return content
