"""The steps of a generation that both of its paths take: the synchronous one (``pipeline``,
the engine answers in the task) and the one a provider finishes by webhook (``predictions``):
progress, what to ask the engine, storing media, adapting the text to each platform and
moving the content to review, or failing it."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from django.db import transaction
from django.utils import timezone

from apps.brands.services import effective_settings
from apps.content import machine, services, states
from apps.content.models import Content, GenerationMode, MediaType
from apps.core.db import relax_commit
from apps.events.services import broadcast
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_create_from_bytes
from apps.platforms import rules as platform_rules
from apps.platforms.adaptation import Draft, adapt
from apps.platforms.style import style_for_platform
from apps.platforms.validation import validate_variant

from .base import (
    BrandVoice,
    EngineError,
    ImageRequest,
    TextRequest,
    TextResult,
    VideoRequest,
    VideoResult,
)
from .text_checks import publishable
from .voice import voice_from

logger = logging.getLogger(__name__)

STAGES = {"settings": 10, "text": 30, "media": 60, "adapt": 85, "done": 100}


def report_progress(content: Content, stage: str, progress: int | None = None, *, store: bool = True) -> None:
    """Store and broadcast a progress figure (`store=False`: already saved by the caller)."""
    value = STAGES[stage] if progress is None else progress
    if getattr(content, "_progress_sent", None) == value:
        return
    content._progress_sent = value  # type: ignore[attr-defined]  # per-instance memo of the last figure sent
    if store:
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


def requests_for(content: Content) -> tuple[TextRequest, list[ImageRequest | VideoRequest]]:
    """What to ask the engine for this content (deterministic: the async path rebuilds it)."""
    values, _ = effective_settings(brand=content.brand, profile=content.profile, post=content.settings)
    voice = voice_from(values, content.brand)
    text_request = TextRequest(
        prompt=content.prompt,
        platform=content.platforms[0],
        platforms=tuple(content.platforms),
        intent=values.get("intent") or "",  # '' : each engine classifies the brief (with a confidence)
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
        variation=max(0, content.generation_count - 1),
    )
    if content.generation_mode == GenerationMode.MANUAL or not content.media_request.get("generate", True):
        return text_request, []
    return text_request, _media_requests(content, voice)


def fit_text(platform: str, text: TextResult, *, post_type: str, media_type: str, per_platform: bool) -> dict:
    """One platform's text as its variant: shaped for the platform when the engine wrote a
    generic one (``style_for_platform``), fitted to its rules (``adapt``) and validated."""
    draft = Draft(
        caption=text.caption,
        hashtags=list(text.hashtags),
        first_comment=text.first_comment,
        alt_text=text.alt_text,
        title=text.title,
        sounds=list(text.sounds),
    )
    styled, style_notes = style_for_platform(
        platform, draft, post_type=post_type, only_stock_tags=per_platform
    )  # each platform reads its own way
    variant = adapt(platform, styled, post_type=post_type, media_type=media_type)
    variant.adaptations = [*style_notes, *variant.adaptations]
    data = variant.to_dict()
    problems = validate_variant(platform, data, post_type=post_type, media_type=media_type)
    if problems:  # adaptation guarantees validity; a failure here is a bug worth failing loudly on
        raise EngineError(f"{platform} variant breaks its rules after adaptation: {problems}")
    return data


def finish(
    content: Content,
    texts: Mapping[str, TextResult] | TextResult,
    *,
    per_platform: bool = False,
    request: TextRequest | None = None,
    engine: str = "",
    media_notes: list[str] | None = None,
) -> Content:
    """Fit each platform's text to its platform, validate, and move the content to review (once).

    ``texts`` holds one result per platform (``texts_for``); a single result (a provider's one
    generic post, e.g. a Replicate prediction) serves every platform. A result written for its
    platform (``per_platform``) is only fitted to the platform's limits and gets the tags its
    format expects; a generic one is shaped for each platform first (``style_for_platform``).
    With the ``request``, every engine's texts first pass the same checks
    (``text_checks.publishable``: banned words, junk tags, links, a sober register mended and
    noted in the variant's adaptations; a lost fact logged). ``media_notes`` (what the media
    engine adapted, e.g. a style it cannot draw) go on every variant's adaptations."""
    mend_notes: dict[str, list[str]] = {}
    if request is not None and not isinstance(texts, TextResult):
        texts, mend_notes = publishable(request, texts, engine=engine)
    variants = {}
    for platform in content.platforms:
        text = texts if isinstance(texts, TextResult) else texts[platform]
        data = fit_text(
            platform,
            text,
            post_type=content.post_type,
            media_type=content.media_type,
            per_platform=per_platform and not isinstance(texts, TextResult),
        )
        data["adaptations"] = [*text.notes, *mend_notes.get(platform, []), *data["adaptations"]]
        ratio = platform_ratio(content, platform)
        # a picture drawn for this platform's own shape is not a re-crop of the content's ratio
        if ratio != content.dimensions and not draws_own_pictures(content):
            data["adaptations"] = [
                *data["adaptations"],
                f"media re-cropped from {content.dimensions} to {ratio}",
            ]
        if media_notes:
            data["adaptations"] = [*data["adaptations"], *media_notes]
        variants[platform] = (data, ratio)
    report_progress(content, "adapt")

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
        # an engine wrote the text (every path here); the media is AI-made if a model made it
        services.content_ai_disclosure_compute(content=locked, text_generated=True)
        # on_commit hooks run in registration order: progress 100 reaches the channel layer
        # before the outcome event is even enqueued, so a client never sees `content.generated`
        # ahead of the last progress message (another worker process dispatches that event).
        # (progress 100 is saved above: no second write waiting for SQLite's lock while another
        # process dispatches `content.generated`, which then overtook it: issue 33's split workers)
        transaction.on_commit(lambda: report_progress(locked, "done", store=False))
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


def draws_own_pictures(content: Content) -> bool:
    """Whether this content's generation draws a picture per platform shape: generated images
    without a ratio the user chose (an upload, a video or a chosen ratio is one shared media)."""
    return (
        content.media_type != MediaType.VIDEO
        and content.generation_mode != GenerationMode.MANUAL
        and bool(content.media_request.get("generate", True))
        and not content.media_request.get("dimensionsChosen")
    )


def platform_ratio(content: Content, platform: str) -> str:
    """The ratio of ``platform``'s variant (and of the picture made for it). Pictures: the
    platform's own shape (X 16:9, LinkedIn 1.91:1, Pinterest 2:3, Instagram feed 4:5, stories
    9:16), or the ratio the user chose (``dimensions`` sent at creation) where the platform
    takes it. A video is one render shared by every platform: the content's ratio, as before."""
    if not draws_own_pictures(content):
        return platform_rules.supported_ratio(
            platform, content.post_type, content.media_type, content.dimensions
        )
    return platform_rules.own_ratio(platform, content.post_type, content.media_type)


def picture_targets(content: Content) -> list[tuple[str, str]]:
    """(ratio, platform) for each picture render: one per distinct ratio among the content's
    platforms (platforms sharing a ratio share the render), the platform being the first of
    that ratio (its safe zones shape the design)."""
    targets: dict[str, str] = {}
    for platform in content.platforms:
        targets.setdefault(platform_ratio(content, platform), platform)
    return list(targets.items())


def _media_requests(content: Content, voice: BrandVoice) -> list[ImageRequest | VideoRequest]:
    width, height = platform_rules.target_size(
        content.platforms[0], content.post_type, content.media_type, content.dimensions
    )
    reference = _reference_bytes(content) if content.generation_mode == GenerationMode.REFERENCE else None
    style = content.media_request.get("style") or "photorealistic"
    if content.media_type == MediaType.VIDEO:
        low, high = platform_rules.video_seconds(content.platforms[0], content.post_type)
        seconds = max(5.0, min(8.0, 6.0, high))
        seconds = max(seconds, low)
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
    requests: list[ImageRequest | VideoRequest] = []
    for ratio, platform in picture_targets(content):
        w, h = platform_rules.own_size(platform, content.post_type, content.media_type, ratio)
        requests += [
            ImageRequest(
                prompt=content.prompt,
                width=w,
                height=h,
                style=style,
                brand=voice,
                reference=reference,
                seed=content.seed + n,
                format=fmt,
                ratio=ratio,
                platform=platform,
            )
            for n in range(count)
        ]
    return requests


def clear_generated_media(content: Content) -> None:
    """A (re)generation replaces the previous run's media."""
    with transaction.atomic():
        MediaAsset.objects.filter(content=content, kind__in=(Kind.GENERATED, Kind.BACKUP)).delete()


def store_media(content: Content, result, *, position: int = 0, ratio: str = "") -> MediaAsset:
    """Keep one generated image or video (an engine result) as the content's media.

    A video carries its length and its own thumbnail and always sits at position 0; an image
    takes the position asked for (media_create_from_bytes decodes it for its thumbnail: a corrupt
    one fails there)."""
    video = isinstance(result, VideoResult)
    return media_create_from_bytes(
        organization=content.organization_id,
        data=result.data,
        content_type=result.content_type,
        kind=Kind.GENERATED,
        brand=content.brand,
        width=result.width,
        height=result.height,
        duration=result.seconds if video else None,
        thumbnail=result.thumbnail if video else None,
        metadata={
            "contentId": str(content.pk),
            **({"design": dict(result.design)} if getattr(result, "design", None) else {}),
            **({"altText": result.alt_text} if getattr(result, "alt_text", "") else {}),
        },
        content=content,
        position=0 if video else position,
        ratio="" if video else ratio,
    )


def fail(content_id, reason: str) -> None:
    with transaction.atomic():
        content = Content.objects.select_for_update().filter(pk=content_id).first()
        if content is None:
            return
        fail_locked(content, reason)


def fail_locked(content: Content, reason: str) -> None:
    if not states.can("fail", content.status) or content.status not in (states.PENDING, states.GENERATING):
        return
    content.generation_lease_until = None
    content.save(update_fields=["generation_lease_until", "updated_at"])
    machine.transition(content, "fail", event="content.failed", reason=reason[:2000])
    if content.batch_id:
        batch_id = content.batch_id
        transaction.on_commit(lambda: services.batch_item_finished(batch_id=batch_id))
