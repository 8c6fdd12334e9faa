"""The generation pipeline, in stages with progress 0-100:

resolve effective settings (post > profile > brand > system) -> text -> media ->
per-platform adaptation -> validate against platform rules -> `review`.
Runs in a Celery task (queue `generation`); the task retries retryable engine errors.
"""

from __future__ import annotations

import datetime
import logging
import uuid

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from apps.brands.services import effective_settings
from apps.core.db import relax_commit
from apps.core.heartbeat import Heartbeat
from apps.events.services import broadcast
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_create_from_bytes
from apps.platforms import rules as platform_rules
from apps.platforms.adaptation import Draft, adapt
from apps.platforms.style import style_for_platform
from apps.platforms.validation import validate_variant

from . import machine, services, states
from .generation import get_engine
from .generation.base import BrandVoice, EngineError, ImageRequest, TextRequest, VideoRequest, VideoResult
from .models import Content, GenerationMode, MediaType
from .voice import voice_from

logger = logging.getLogger(__name__)

STAGES = {"settings": 10, "text": 30, "media": 60, "adapt": 85, "done": 100}


def _progress(content: Content, stage: str, progress: int | None = None) -> None:
    value = STAGES[stage] if progress is None else progress
    if getattr(content, "_progress_sent", None) == value:
        return
    content._progress_sent = value  # type: ignore[attr-defined]  # per-instance memo of the last figure sent
    with transaction.atomic():
        relax_commit()  # a progress figure lost in a database crash is rewritten by the next stage
        Content.objects.filter(pk=content.pk).update(progress=value)
    subjects = [("content", str(content.pk))] + (
        [("batch", str(content.batch_id))] if content.batch_id else []
    )
    try:
        broadcast(
            organization_id=content.organization_id,
            type="content.generation.progress",
            data={
                "contentId": str(content.pk),
                "stage": stage,
                "progress": value,
                **({"batchId": str(content.batch_id)} if content.batch_id else {}),
            },
            subjects=subjects,
        )
    except Exception:  # progress is best effort; the outcome events go through the outbox
        logger.warning("progress broadcast failed for %s", content.pk, exc_info=True)


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
                _fail_locked(
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
        from .models import Prediction

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
                services.enqueue_generation_id(str(pk))

        transaction.on_commit(enqueue)
    return {"requeued": len(ids)}


def requests_for(content: Content) -> tuple[TextRequest, list[ImageRequest | VideoRequest]]:
    """What to ask the engine for this content (deterministic: the async path rebuilds it)."""
    values, _ = effective_settings(brand=content.brand, profile=content.profile, post=content.settings)
    voice = voice_from(values, content.brand)
    text_request = TextRequest(
        prompt=content.prompt,
        platform=content.platforms[0],
        post_type=content.post_type,
        media_type=content.media_type,
        tone=values.get("tone") or "friendly",
        length=values.get("length") or "medium",
        include_hashtags=bool(values.get("include_hashtags", True)),
        hashtag_count=int(values.get("hashtag_count", 5)),
        include_emojis=bool(values.get("include_emojis", True)),
        language=values.get("language") or "en",
        creativity=int(values.get("creativity", 5)),
        brand=voice,
        seed=content.seed,
    )
    if content.generation_mode == GenerationMode.MANUAL or not content.media_request.get("generate", True):
        return text_request, []
    return text_request, _media_requests(content, voice)


def run(content_id) -> Content | None:
    content = claim(content_id)
    if content is None:
        return None
    with Heartbeat(_renewer(content), lambda: settings.GENERATION_HEARTBEAT_SECONDS):
        return _run_claimed(content)


def _run_claimed(content: Content) -> Content | None:
    engine = get_engine()
    _progress(content, "settings")
    text_request, media_requests = requests_for(content)
    if submits_predictions(engine):
        from .predictions import predictions_submit

        predictions_submit(
            content=content, engine=engine, text_request=text_request, media_requests=media_requests
        )
        return content  # finished by the provider's webhooks (apps.content.predictions)

    text = engine.text(text_request)
    _progress(content, "text")
    if media_requests:
        clear_generated_media(content)
        for n, request in enumerate(media_requests):
            result = engine.video(request) if isinstance(request, VideoRequest) else engine.image(request)
            store_media(content, result, position=n)
            if not isinstance(request, VideoRequest):
                _progress(content, "media", 30 + int(30 * (n + 1) / len(media_requests)))
    _progress(content, "media")
    return finish(content, text)


def submits_predictions(engine) -> bool:
    """An engine with a webhook URL (Replicate) completes asynchronously through webhooks."""
    return bool(getattr(engine, "webhook_url", None)) and hasattr(engine, "submit_text")


def finish(content: Content, text) -> Content:
    """Adapt the text to each platform, validate, and move the content to review (once)."""
    variants = {}
    for platform in content.platforms:
        draft = Draft(
            caption=text.caption,
            hashtags=list(text.hashtags),
            first_comment=text.first_comment,
            alt_text=text.alt_text,
            title=text.title,
            sounds=list(text.sounds),
        )
        styled, style_notes = style_for_platform(
            platform, draft, post_type=content.post_type
        )  # each platform reads its own way
        variant = adapt(platform, styled, post_type=content.post_type, media_type=content.media_type)
        variant.adaptations = [*style_notes, *variant.adaptations]
        data = variant.to_dict()
        problems = validate_variant(
            platform, data, post_type=content.post_type, media_type=content.media_type
        )
        if problems:  # adaptation guarantees validity; a failure here is a bug worth failing loudly on
            raise EngineError(f"{platform} variant breaks its rules after adaptation: {problems}")
        ratio = platform_rules.supported_ratio(
            platform, content.post_type, content.media_type, content.dimensions
        )
        if ratio != content.dimensions:
            data["adaptations"] = [
                *data["adaptations"],
                f"media re-cropped from {content.dimensions} to {ratio}",
            ]
        variants[platform] = (data, ratio)
    _progress(content, "adapt")

    with transaction.atomic():
        locked = Content.objects.select_for_update().get(pk=content.pk)
        if locked.status != states.GENERATING:
            return locked  # regenerated or deleted meanwhile: drop this run's result
        for platform, (data, ratio) in variants.items():
            services.variant_upsert(content=locked, platform=platform, data=data, ratio=ratio)
        locked.generated_at = timezone.now()
        locked.progress = 100
        locked.generation_lease_until = None
        locked.save(update_fields=["generated_at", "progress", "generation_lease_until", "updated_at"])
        # on_commit hooks run in registration order: progress 100 reaches the channel layer
        # before the outcome event is even enqueued, so a client never sees `content.generated`
        # ahead of the last progress message (another worker process dispatches that event).
        transaction.on_commit(lambda: _progress(locked, "done"))
        machine.transition(locked, "complete", event="content.generated")
        if locked.batch_id:
            batch_id = locked.batch_id
            transaction.on_commit(lambda: services.batch_item_finished(batch_id=batch_id))
    return locked


def _reference_bytes(content: Content) -> bytes | None:
    asset = content.source_media
    if asset is None and content.generation_mode == GenerationMode.REFERENCE:
        asset = (
            MediaAsset.objects.filter(brand=content.brand, kind=Kind.REFERENCE)
            .order_by("-created_at")
            .first()
        )
    if asset is None:
        return None
    with asset.file.open("rb") as fh:
        return fh.read()


def _media_requests(content: Content, voice: BrandVoice) -> list[ImageRequest | VideoRequest]:
    width, height = platform_rules.target_size(
        content.platforms[0], content.post_type, content.media_type, content.dimensions
    )
    reference = _reference_bytes(content) if content.generation_mode == GenerationMode.REFERENCE else None
    style = content.media_request.get("style") or "photorealistic"
    if content.media_type == MediaType.VIDEO:
        low, high = platform_rules.video_seconds(content.platforms[0], content.post_type)
        seconds = max(5.0, min(8.0, 6.0, high))
        if seconds < low:
            seconds = low
        return [
            VideoRequest(
                prompt=content.prompt,
                width=width,
                height=height,
                seconds=seconds,
                style=style,
                brand=voice,
                reference=reference,
                seed=content.seed,
            )
        ]
    count = int(content.media_request.get("count") or 1)
    # Photographs are JPEG (Instagram's feed takes nothing else, and the grain of a
    # photorealistic render makes PNG 2-3x slower and larger); flat illustrations stay PNG.
    fmt = "JPEG" if "instagram" in content.platforms or style != "illustration" else "PNG"
    return [
        ImageRequest(
            prompt=content.prompt,
            width=width,
            height=height,
            style=style,
            brand=voice,
            reference=reference,
            seed=content.seed + n,
            format=fmt,
        )
        for n in range(count)
    ]


def clear_generated_media(content: Content) -> None:
    """A (re)generation replaces the previous run's media."""
    with transaction.atomic():
        MediaAsset.objects.filter(content=content, kind__in=(Kind.GENERATED, Kind.BACKUP)).delete()


def store_media(content: Content, result, *, position: int = 0) -> MediaAsset:
    """Keep one generated image or video (an engine result) as the content's media."""
    if isinstance(result, VideoResult):
        return media_create_from_bytes(
            organization=content.organization_id,
            data=result.data,
            content_type=result.content_type,
            kind=Kind.GENERATED,
            brand=content.brand,
            width=result.width,
            height=result.height,
            duration=result.seconds,
            thumbnail=result.thumbnail,
            metadata={"contentId": str(content.pk)},
            content=content,
        )
    # (media_create_from_bytes decodes the image for its thumbnail: a corrupt one fails there)
    return media_create_from_bytes(
        organization=content.organization_id,
        data=result.data,
        content_type=result.content_type,
        kind=Kind.GENERATED,
        brand=content.brand,
        width=result.width,
        height=result.height,
        metadata={"contentId": str(content.pk)},
        content=content,
        position=position,
    )


def fail(content_id, reason: str) -> None:
    with transaction.atomic():
        content = Content.objects.select_for_update().filter(pk=content_id).first()
        if content is None:
            return
        _fail_locked(content, reason)


def _fail_locked(content: Content, reason: str) -> None:
    if not states.can("fail", content.status) or content.status not in (states.PENDING, states.GENERATING):
        return
    content.generation_lease_until = None
    content.save(update_fields=["generation_lease_until", "updated_at"])
    machine.transition(content, "fail", event="content.failed", reason=reason[:2000])
    if content.batch_id:
        batch_id = content.batch_id
        transaction.on_commit(lambda: services.batch_item_finished(batch_id=batch_id))
