"""Thin Celery tasks: ids in, pipeline/service call out."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from . import pipeline
from .generation.base import EngineError


@shared_task(bind=True, queue="generation", acks_late=True, ignore_result=True, max_retries=None)
def generate_content(self, content_id: str) -> None:
    try:
        pipeline.run(content_id)
    except EngineError as exc:
        if exc.retryable and self.request.retries < settings.GENERATION_MAX_RETRIES:
            raise self.retry(exc=exc, countdown=min(60, 2 ** (self.request.retries + 1))) from None
        pipeline.fail(content_id, f"Generation failed: {exc}")
    except Exception as exc:
        pipeline.fail(content_id, f"Generation failed: {exc.__class__.__name__}: {exc}")
        raise
