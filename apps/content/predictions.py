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
"""

from __future__ import annotations

import dataclasses

from django.db import transaction
from django.utils import timezone

from . import pipeline, states
from .generation import get_engine
from .generation.base import TextResult, VideoRequest
from .models import Content, Prediction

TERMINAL = ("succeeded", "failed", "canceled")


def predictions_submit(*, content: Content, engine, text_request, media_requests) -> list[Prediction]:
    """Submit the run's predictions; the content stays `generating` until their webhooks."""
    with transaction.atomic():
        Prediction.objects.filter(content=content).delete()  # an earlier attempt's jobs are void
    pipeline.clear_generated_media(content)
    jobs = [("text", 0, engine.submit_text, text_request)]
    for n, request in enumerate(media_requests):
        if isinstance(request, VideoRequest):
            jobs.append(("video", n, engine.submit_video, request))
        else:
            jobs.append(("image", n, engine.submit_image, request))
    made = []
    for kind, position, submit, request in jobs:
        external_id = submit(request)
        made.append(Prediction.objects.create(content=content, provider=engine.name, external_id=external_id,
                                              kind=kind, position=position))
        prediction_receive(provider=engine.name, external_id=external_id)  # its webhook may be here already
    return made


def prediction_receive(*, provider: str, external_id: str) -> bool:
    """Hand a prediction's final body (from its recorded webhook) to the completion task, once."""
    from apps.webhooks.models import InboundWebhook

    hook = (InboundWebhook.objects.filter(provider=provider, subject=external_id, payload__status__in=TERMINAL)
            .order_by("received_at").first())
    if hook is None:
        return False
    with transaction.atomic():
        prediction = Prediction.objects.filter(provider=provider, external_id=external_id).first()
        if prediction is None:
            return False
        claimed = Prediction.objects.filter(pk=prediction.pk, status=Prediction.SUBMITTED).update(
            status=Prediction.RECEIVED, payload=hook.payload, updated_at=timezone.now())
        if claimed:
            from .tasks import complete_prediction

            prediction_id = str(prediction.pk)
            transaction.on_commit(lambda: complete_prediction.delay(prediction_id))
    return bool(claimed)


def prediction_complete(*, prediction_id) -> Content | None:
    """Turn a received prediction into text or media; the run's last one finishes the content.

    Raises EngineError when the prediction failed or its output is unusable (the task fails
    the content with that reason).
    """
    prediction = Prediction.objects.select_related("content").filter(pk=prediction_id, status=Prediction.RECEIVED).first()
    if prediction is None:
        return None
    content = prediction.content
    if content.status != states.GENERATING:
        return None  # regenerated, deleted or failed meanwhile
    text_request, media_requests = pipeline.requests_for(content)
    request = text_request if prediction.kind == "text" else media_requests[prediction.position]
    result = get_engine().result_from_prediction(prediction.payload, prediction.kind, request=request)
    output = {}
    if prediction.kind == "text":
        output = dataclasses.asdict(result)
    else:
        pipeline.store_media(content, result, position=prediction.position)
    done = Prediction.objects.filter(pk=prediction.pk, status=Prediction.RECEIVED).update(
        status=Prediction.DONE, output=output, completed_at=timezone.now(), updated_at=timezone.now())
    if not done:
        return None
    run = Prediction.objects.filter(content=content)
    total, finished = run.count(), run.filter(status=Prediction.DONE).count()
    pipeline._progress(content, "text" if prediction.kind == "text" else "media", 10 + 75 * finished // max(1, total))
    if finished < total:
        return content
    text = run.get(kind="text").output
    return pipeline.finish(content, TextResult(**text))
