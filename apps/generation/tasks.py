"""Thin Celery tasks: ids in, pipeline/service call out. Each keeps the name it had in
``apps.content.tasks`` (``enqueue``), which queued messages and the beat schedule use."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from apps.content.models import Prediction
from apps.core.tasking import DefaultTask, GenerationTask
from apps.events.services import dispatch_deferred

from . import pipeline, steps
from .base import EngineError, RetryableEngineError
from .enqueue import COMPLETE_PREDICTION, GENERATE_CONTENT, POLL_STALE_PREDICTIONS, SWEEP_GENERATIONS
from .predictions import prediction_complete, predictions_poll_stale


class GenerateTask(GenerationTask):
    """Retryable engine errors (timeouts, 429, 5xx) try again with backoff up to
    GENERATION_MAX_RETRIES; a permanent one, or the last, fails the content."""

    autoretry_for = (RetryableEngineError,)
    retry_backoff = 2
    max_retries = settings.GENERATION_MAX_RETRIES
    throws = (EngineError,)

    def retry(self, args=None, kwargs=None, exc=None, **options):
        if self.max_retries is None or self.request.retries < self.max_retries:
            # give the lease back first (also when eager): the retry claims it again without counting a crash
            pipeline.release_id(*self.request.args, **(self.request.kwargs or {}))
        return super().retry(args=args, kwargs=kwargs, exc=exc, **options)

    def failed(self, exc: BaseException, content_id: str) -> None:
        reason = str(exc) if isinstance(exc, EngineError) else f"{exc.__class__.__name__}: {exc}"
        steps.fail(content_id, f"Generation failed: {reason}")


@shared_task(base=GenerateTask, name=GENERATE_CONTENT)
def generate_content(content_id: str) -> None:
    # The events this generation commits (content.generated, batch progress) are fanned out
    # by this task when it ends, not by one more task each; the outbox sweep covers a crash.
    with dispatch_deferred():
        pipeline.run(content_id)


@shared_task(base=DefaultTask, name=SWEEP_GENERATIONS)
def sweep_generations() -> dict:
    """Beat: queue again the generations a dead worker or a lost task left behind."""
    return pipeline.sweep()


@shared_task(
    bind=True,
    name=COMPLETE_PREDICTION,
    queue="generation",
    acks_late=True,
    ignore_result=True,
    max_retries=None,
)
def complete_prediction(self, prediction_id: str) -> None:
    """A provider's prediction arrived by webhook: store its output, finish the content if last.

    A retryable error fetching a succeeded prediction's output (a timeout, 429, 5xx) happens
    before anything is stored, so the task tries again with backoff before it fails the content."""
    try:
        prediction_complete(prediction_id=prediction_id)
    except EngineError as exc:
        row = Prediction.objects.filter(pk=prediction_id).values("content_id", "payload").first()
        # a prediction that succeeded but whose output could not be fetched is worth another
        # try; a failed prediction keeps failing with the same payload
        succeeded = row is not None and (row["payload"] or {}).get("status") == "succeeded"
        if succeeded and exc.retryable and self.request.retries < settings.GENERATION_MAX_RETRIES:
            raise self.retry(exc=exc, countdown=min(60, 2 ** (self.request.retries + 1))) from None
        if row is not None:
            steps.fail(row["content_id"], f"Generation failed: {exc}")
    except Exception as exc:
        content_id = Prediction.objects.filter(pk=prediction_id).values_list("content_id", flat=True).first()
        if content_id is not None:
            steps.fail(content_id, f"Generation failed: {exc.__class__.__name__}: {exc}")
        raise


@shared_task(base=DefaultTask, name=POLL_STALE_PREDICTIONS)
def poll_stale_predictions(older_than_seconds: float | None = None) -> dict:
    """Beat: complete provider predictions whose webhook never came (see predictions_poll_stale)."""
    return predictions_poll_stale(older_than_seconds=older_than_seconds)
