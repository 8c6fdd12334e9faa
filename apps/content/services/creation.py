"""Content created for generation: the request's checks, the plan's allowance, the new `pending`
content and its queued generation; the generation entry points both families share."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction

from apps.brands.services import effective_settings
from apps.core.errors import (
    Conflict,
    InvalidSubject,
    RuleViolation,
)
from apps.events.services import event_record
from apps.media.models import Kind, MediaAsset
from apps.platforms import rules as platform_rules
from apps.platforms.intents import INTENTS

from .. import ports, states
from ..machine import event_data as _event_data
from ..models import (
    RATIOS,
    Batch,
    Campaign,
    Content,
    GenerationMode,
    MediaType,
    PostType,
)
from .intent import intent_reading

if TYPE_CHECKING:
    from apps.brands.models import Brand
    from apps.profiles.models import SocialProfile

MAX_IMAGES = 4


@dataclass
class GenerationInput:
    """What a client asks to generate (both families build one)."""

    prompt: str
    platforms: list[str]
    brand: Brand
    profile: SocialProfile | None = None
    generation_mode: str = GenerationMode.PROMPT
    post_type: str = PostType.FEED
    media_type: str = MediaType.IMAGE
    dimensions: str | None = None
    settings: dict | None = None
    media_request: dict | None = None
    source_media: MediaAsset | None = None
    campaign: Campaign | None = None
    tags: list | None = None


def engine_languages() -> tuple[str, ...] | None:
    """Languages the configured engine writes (None: any ISO 639-1 code, as provider models do)."""
    return ports.generation().languages()


def _validate(inp: GenerationInput) -> list[str]:
    """The request's platforms (normalized, without repeats) once it passes every rule: the
    field errors are reported together (a 400 naming each field), then the rules on the
    source media and on the platforms' formats one at a time."""
    platforms, errors = _field_errors(inp)
    if errors:
        raise InvalidSubject("Invalid request parameters.", problems=errors)
    _check_source_media(inp)
    _check_formats(inp, platforms)
    return platforms


def _field_errors(inp: GenerationInput) -> tuple[list[str], dict]:
    """The normalized platforms and every field's errors, keyed in the order they are reported."""
    errors: dict = {}
    if not inp.prompt or not inp.prompt.strip():
        errors["prompt"] = ["A prompt or task is required."]
    platforms = _platform_names(inp.platforms, errors)
    _choice_errors(inp, errors)
    _language_errors(inp, errors)
    _intent_errors(inp, errors)
    count = (inp.media_request or {}).get("count", 1)
    if not isinstance(count, int) or not 1 <= count <= MAX_IMAGES:
        errors.setdefault("media", []).append(f"count must be between 1 and {MAX_IMAGES}.")
    return platforms, errors


def _platform_names(requested: list[str] | None, errors: dict) -> list[str]:
    """The known platforms among `requested`, normalized and without repeats."""
    platforms: list[str] = []
    for p in requested or []:
        try:
            name = platform_rules.normalize_platform(p)
        except ValueError:
            errors.setdefault("platforms", []).append(f"Unknown platform '{p}'.")
            continue
        if name not in platforms:
            platforms.append(name)
    if not platforms and "platforms" not in errors:
        errors["platforms"] = ["At least one platform is required."]
    return platforms


def _choice_errors(inp: GenerationInput, errors: dict) -> None:
    """Media type, post type, dimensions and generation mode each among their choices."""
    if inp.media_type == "carousel":
        errors["media"] = ["Carousel media is not implemented: use image or video."]
    elif inp.media_type not in MediaType.values:
        errors["media"] = [f"Must be one of {', '.join(MediaType.values)}."]
    if inp.post_type not in PostType.values:
        errors["post_type"] = [f"Must be one of {', '.join(PostType.values)}."]
    if inp.dimensions is not None and inp.dimensions not in RATIOS:
        errors["dimensions"] = [f"Must be one of {', '.join(RATIOS)}."]
    if inp.generation_mode not in GenerationMode.values:
        errors["generation_mode"] = [f"Must be one of {', '.join(GenerationMode.values)}."]


def _intent_errors(inp: GenerationInput, errors: dict) -> None:
    """A requested intent is one the engines know (apps.platforms.intents.INTENTS)."""
    intent = (inp.settings or {}).get("intent")
    if intent is not None and intent not in INTENTS:
        errors.setdefault("settings", {})["intent"] = [f"Must be one of {', '.join(INTENTS)}."]


def _language_errors(inp: GenerationInput, errors: dict) -> None:
    """A requested language the configured engine writes."""
    language = (inp.settings or {}).get("language")
    if language is None:
        return
    supported = engine_languages()
    if supported is not None and language not in supported:
        errors["settings"] = {
            **errors.get("settings", {}),
            "language": [f"'{language}' is not available; this engine writes {', '.join(supported)}."],
        }


def _check_source_media(inp: GenerationInput) -> None:
    """A manual upload brings its own unused media of the right type; reference-based
    generation needs a reference image (given, or one of the brand's)."""
    if inp.generation_mode == GenerationMode.MANUAL and inp.source_media is None:
        raise RuleViolation(
            "manual_upload needs the client's media (mediaId of an upload).",
            problems={"source_media": "Required for manual_upload."},
        )
    if inp.generation_mode == GenerationMode.REFERENCE and inp.source_media is None:
        has_refs = MediaAsset.objects.filter(brand=inp.brand, kind=Kind.REFERENCE).exists()
        if not has_refs:
            raise RuleViolation(
                "reference_based needs a reference image: give referenceImageId or upload one to the brand.",
                problems={"reference_image": "No reference image available."},
            )
    if inp.source_media is not None and inp.generation_mode == GenerationMode.MANUAL:
        if inp.source_media.content_id is not None:
            raise Conflict(
                "This upload already belongs to another content item; upload it again to reuse it.",
                problems={"source_media": str(inp.source_media.pk)},
            )
        if inp.source_media.media_type != inp.media_type:
            raise RuleViolation(
                "The uploaded media does not match the media type.",
                problems={"media": f"Upload is {inp.source_media.media_type}."},
            )


def _check_formats(inp: GenerationInput, platforms: list[str]) -> None:
    """Every platform takes the post and media type, and the profile posts to one of them."""
    for platform in platforms:
        try:
            platform_rules.get_format(platform, inp.post_type, inp.media_type)
        except platform_rules.UnsupportedFormat as exc:
            raise RuleViolation(str(exc), problems={"platforms": f"{platform}: {exc}"}) from None
    if inp.profile is not None and inp.profile.platform not in platforms:
        raise RuleViolation(
            "The profile's platform is not among the content's platforms.",
            problems={"platform": inp.profile.platform},
        )


@transaction.atomic
def generations_within_plan(organization, count: int = 1) -> None:
    """Refuse `count` more generations past the plan's monthly allowance (a 403 naming it);
    generated contents of this calendar month (UTC) count, manual uploads do not."""
    from apps.accounts.plans import month_start, plan_check, plan_has_limit

    if not plan_has_limit(organization, "generationsPerMonth"):
        return
    used = (
        Content.objects.filter(organization=organization, created_at__gte=month_start())
        .exclude(generation_mode=GenerationMode.MANUAL)
        .count()
    )
    plan_check(organization, "generationsPerMonth", used=used, adding=count)


def content_request_generation(
    *, organization, actor=None, inp: GenerationInput, batch: Batch | None = None, enqueue: bool = True
) -> Content:
    """Create content in `pending` and queue its generation (within the plan's monthly
    generations; a manual upload is not a generation)."""
    platforms = _validate(inp)
    if batch is None and inp.generation_mode != GenerationMode.MANUAL:
        generations_within_plan(organization)
    default_ratio = inp.dimensions or platform_rules.supported_ratio(
        platforms[0], inp.post_type, inp.media_type
    )
    # what the generation writes for, read by the engines' own classifier (issue 31)
    values, _ = effective_settings(brand=inp.brand, profile=inp.profile, post=inp.settings)
    intent = intent_reading(prompt=inp.prompt.strip(), values=values)
    content = Content.objects.create(
        organization=organization,
        brand=inp.brand,
        profile=inp.profile,
        platforms=platforms,
        prompt=inp.prompt.strip(),
        generation_mode=inp.generation_mode,
        post_type=inp.post_type,
        media_type=inp.media_type,
        dimensions=default_ratio,
        settings=inp.settings or {},
        intent=intent.value,
        intent_confidence=intent.confidence,
        intent_source=intent.source,
        media_request={
            "generate": True,
            "style": "photorealistic",
            "count": 1,
            **(inp.media_request or {}),
            # a ratio the user chose applies to every platform that takes it; without one each
            # platform gets its own picture in its own shape (generation.steps.platform_ratio)
            **({"dimensionsChosen": True} if inp.dimensions else {}),
        },
        source_media=inp.source_media,
        status=states.PENDING,
        seed=random.randint(1, 2**31 - 1),
        created_by=getattr(actor, "user", None)
        if getattr(getattr(actor, "user", None), "pk", None)
        else None,
        campaign=inp.campaign,
        batch=batch,
    )
    if inp.tags:
        content.tags.set(inp.tags)
    if inp.source_media is not None and inp.generation_mode == GenerationMode.MANUAL:
        MediaAsset.objects.filter(pk=inp.source_media.pk).update(content=content)
    event_record(organization=organization, type="content.created", data=_event_data(content))
    if enqueue:
        _enqueue_generation(content)
    return content


def _enqueue_generation(content: Content) -> None:
    content_id = str(content.pk)
    transaction.on_commit(lambda: enqueue_generation_id(content_id))


def enqueue_generation_id(content_id: str) -> None:
    ports.generation().enqueue(content_id)


def generation_brand(*, organization, brand=None, profile=None):
    """The brand a generation speaks for: the one asked for, else the profile's, else the default."""
    if brand is not None:
        return brand
    if profile is not None:
        return profile.brand
    from apps.brands.services import brand_ensure_default

    return brand_ensure_default(organization=organization)


@transaction.atomic
def content_request_multi_platform(
    *, organization, actor=None, profiles: list, inp: GenerationInput
) -> list[Content]:
    """One content per profile, generated for that profile's platform with its own settings.

    One content per profile (rather than one content with several platforms) because each
    platform then gets media made at its own size and ratio, each profile's generation
    settings apply, and every content already knows the profile it will be published to.
    All are created or none: one refused profile refuses the request.
    """
    if len({p.pk for p in profiles}) != len(profiles):
        raise InvalidSubject("profileIds must not repeat.", "generation_profiles", "Duplicate profile.")
    created = []
    for profile in profiles:
        # each content speaks for its own profile's brand, whatever brand the input carried
        one = GenerationInput(
            **{**inp.__dict__, "platforms": [profile.platform], "profile": profile, "brand": profile.brand}
        )
        created.append(content_request_generation(organization=organization, actor=actor, inp=one))
    return created


def content_ideas(*, organization, brand, profile=None, topic: str = "", count: int = 5) -> dict:
    """Content ideas in the brand's voice; without a topic, from the brand's themes (the
    engine's, through the generation port)."""
    return ports.generation().ideas(brand=brand, profile=profile, topic=topic, count=count)


def caption_optimize(
    *,
    caption: str,
    platform: str,
    hashtags: list[str] | None = None,
    post_type: str = PostType.FEED,
    media_type: str = MediaType.IMAGE,
) -> dict:
    """Fit a caption to one platform's rules (length, hashtags, forbidden characters) and say what changed."""
    from apps.platforms.adaptation import Draft, adapt
    from apps.platforms.captions import compose_caption

    try:
        name = platform_rules.normalize_platform(platform)
        fmt = platform_rules.get_format(name, post_type, media_type)
    except platform_rules.UnsupportedFormat as exc:
        raise RuleViolation(str(exc), problems={"platform": str(exc)}) from None
    except ValueError as exc:
        raise InvalidSubject(str(exc), "platform", str(exc)) from None
    before = compose_caption(caption, hashtags or [])
    variant = adapt(
        name,
        Draft(caption=caption, hashtags=list(hashtags or [])),
        post_type=post_type,
        media_type=media_type,
    )
    after = compose_caption(variant.caption, variant.hashtags)
    return {
        "platform": name,
        "caption": variant.caption,
        "hashtags": variant.hashtags,
        "firstComment": variant.first_comment,
        "changes": variant.adaptations,
        "count": {
            "before": fmt.caption.count(before),
            "after": fmt.caption.count(after),
            "limit": fmt.caption.max,
            "unit": fmt.caption.unit,
        },
    }
