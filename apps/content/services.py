"""Content writes: creation for generation, the status machine, edits, approval, images.

Every transition runs here, in a transaction, with the row locked, and records its event.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from apps.core.errors import (
    ApplicationError,
    Conflict,
    InvalidSubject,
    InvalidTransition,
    NotFound,
    RuleViolation,
)
from apps.core.exceptions import details_in
from apps.events.services import event_record
from apps.media.models import Kind, MediaAsset
from apps.platforms import rules as platform_rules
from apps.platforms.validation import validate_variant

from . import ports, states
from .cost import generation_cost
from .machine import event_data as _event_data
from .machine import lock as _locked
from .machine import refuse as _refuse
from .machine import transition
from .models import (
    RATIOS,
    Batch,
    Campaign,
    Content,
    ContentHistory,
    ContentSchedule,
    GenerationMode,
    MediaType,
    PostType,
    ReviewOpen,
    Tag,
    Variant,
)
from .selectors import current_media
from .signals import content_approved

if TYPE_CHECKING:
    from apps.brands.models import Brand
    from apps.profiles.models import SocialProfile

MAX_IMAGES = 4
#: statuses in which the per-platform text cannot be edited
TEXT_LOCKED = (states.PENDING, states.GENERATING, states.PUBLISHING, states.PUBLISHED)


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


def _language_errors(inp: GenerationInput, errors: dict) -> None:
    """A requested language the configured engine writes."""
    language = (inp.settings or {}).get("language")
    if language is None:
        return
    supported = engine_languages()
    if supported is not None and language not in supported:
        errors["settings"] = {
            "language": [f"'{language}' is not available; this engine writes {', '.join(supported)}."]
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
        media_request={"generate": True, "style": "photorealistic", "count": 1, **(inp.media_request or {})},
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


@transaction.atomic
def content_approve(*, content: Content, actor=None) -> Content:
    content = _locked(content.pk)
    transition(content, "approve", event="content.approved")
    content.approved_at = timezone.now()
    content.approved_by = _actor_name(actor)
    content.save(update_fields=["approved_at", "approved_by", "updated_at"])
    history_record(content=content, actor=actor, action="approve")
    # publishing schedules auto-published brands' content (apps.publishing.receivers), in this transaction
    content_approved.send(sender=Content, content=content, actor=actor)
    return content


@transaction.atomic
def content_reject(*, content: Content, reason: str = "", actor=None) -> Content:
    content = _locked(content.pk)
    transition(content, "reject", event="content.rejected", reason=reason or "Rejected.")
    history_record(content=content, actor=actor, action="reject", note=reason or "Rejected.")
    return content


def _actor_name(actor) -> str:
    if actor is None:
        return ""
    user = getattr(actor, "user", None) or actor
    return str(getattr(user, "username", "") or getattr(actor, "credential_id", ""))[:200]


@transaction.atomic
def content_regenerate(*, content: Content) -> Content:
    content = _locked(content.pk)
    transition(content, "regenerate", event="content.updated", regenerated=True)
    content.progress = 0
    content.seed = random.randint(1, 2**31 - 1)
    content.save(update_fields=["progress", "seed", "updated_at"])
    _enqueue_generation(content)
    return content


def _edited_variants(content: Content, variants: dict) -> list[Variant]:
    """Apply the client's per-platform text to the content's variants (not saved yet) and
    return those whose text changed; a field that breaks its platform's rules is a 400."""
    errors: dict = {}
    changed = []
    existing = {v.platform: v for v in content.variants.all()}
    for raw_platform, fields in variants.items():
        try:
            platform = platform_rules.normalize_platform(raw_platform)
        except ValueError:
            errors[raw_platform] = {"platform": "Unknown platform."}
            continue
        variant = existing.get(platform)
        if variant is None:
            errors[raw_platform] = {"platform": "This content was not generated for this platform."}
            continue
        merged = {
            "caption": fields.get("caption", variant.caption),
            # a client may leave out the '#'; validate what will be stored
            "hashtags": [
                h if h.startswith("#") else f"#{h}" for h in fields.get("hashtags", variant.hashtags)
            ],
            "firstComment": fields.get("firstComment", variant.first_comment),
            "altText": fields.get("altText", variant.alt_text),
            "title": fields.get("title", variant.title),
            "sounds": fields.get("sounds", variant.sounds),
        }
        problems = validate_variant(
            platform, merged, post_type=content.post_type, media_type=content.media_type
        )
        if problems:
            errors[raw_platform] = problems
            continue
        before = (
            variant.caption,
            variant.hashtags,
            variant.first_comment,
            variant.alt_text,
            variant.title,
            variant.sounds,
        )
        variant.caption = merged["caption"]
        variant.hashtags = merged["hashtags"]
        variant.first_comment = merged["firstComment"]
        variant.alt_text = merged["altText"]
        variant.title = merged["title"]
        variant.sounds = merged["sounds"]
        if before != (
            variant.caption,
            variant.hashtags,
            variant.first_comment,
            variant.alt_text,
            variant.title,
            variant.sounds,
        ):
            changed.append(variant)
    if errors:
        raise InvalidSubject("Some platform content breaks the platform's rules.", "variants", errors)
    return changed


@transaction.atomic
def content_update(
    *,
    content: Content,
    variants: dict | None = None,
    status: str | None = None,
    tags: list | None = None,
    campaign=...,
    scheduled=None,
    actor=None,
) -> Content:
    """Edit per-platform text (checked against each platform's rules) and/or go back to draft.

    Approval covers the text that was approved. When the brand requires approval:
    - changing the text of `approved` content withdraws the approval: the content goes back
      to `review` (or to `draft` when the client also sets `status: draft`), `approved_at` and
      `approved_by` are cleared and `content.updated` says `approvalWithdrawn: true`;
    - the text of `scheduled` content cannot change (409 A / 422 B): it would go out
      unapproved. Unschedule it (back to `approved`), edit it, and approve it again.
    Without `require_approval` (approval is implied) an edit keeps the status.
    """
    content = _locked(content.pk)
    previous = content.status
    if variants and content.status in TEXT_LOCKED:
        # the pipeline is writing the text, or the platform already has it
        raise _refuse(content, "edit")
    before = {v.platform: _text_of(v) for v in content.variants.all()} if variants else {}
    changed = _edited_variants(content, variants) if variants else []
    if changed and content.status == states.SCHEDULED and content.requires_approval:
        raise InvalidTransition(
            "This brand requires approval: unschedule the content before editing its text, then approve it again.",
            {
                "status": content.status,
                "action": "edit",
                "allowedActions": content.allowed_actions,
                "requiresApproval": True,
            },
        )
    for variant in changed:
        variant.save()
    if status is not None:
        if status != states.DRAFT:
            raise InvalidSubject(
                "Only 'draft' can be set directly; use the actions for other statuses.",
                "status",
                "Must be draft.",
            )
        if content.status != states.DRAFT:
            transition(content, "edit")
    text_needs_approval = bool(changed) and content.requires_approval
    if text_needs_approval and content.status == states.APPROVED:
        transition(content, "withdraw_approval")
    approval_withdrawn = (previous == states.APPROVED and content.status != states.APPROVED) or (
        text_needs_approval and content.approved_at is not None
    )
    if approval_withdrawn:
        content.approved_at, content.approved_by = None, ""
        content.save(update_fields=["approved_at", "approved_by", "updated_at"])
    if tags is not None:
        content.tags.set(tags)
    if campaign is not ...:
        content.campaign = campaign
        content.save(update_fields=["campaign", "updated_at"])
    content.save(update_fields=["updated_at"])
    extra: dict[str, object] = {"previousStatus": previous} if content.status != previous else {}
    if approval_withdrawn:
        extra["approvalWithdrawn"] = True
    if changed:
        history_record(
            content=content,
            actor=actor,
            action="edit",
            changes=text_changes({v.platform: before[v.platform] for v in changed}, changed),
            note="Approval withdrawn: the text changed." if approval_withdrawn else "",
        )
    event_record(
        organization=content.organization_id, type="content.updated", data=_event_data(content, **extra)
    )
    return content


def review_opened(*, content: Content, user) -> None:
    """A staff member opened the content's page (the review queue asks before approving
    items nobody opened)."""
    if getattr(user, "pk", None) is None:
        return
    ReviewOpen.objects.update_or_create(content=content, user=user)


HISTORY_FIELDS = ("caption", "hashtags", "first_comment", "alt_text", "title", "sounds")


def _text_of(variant: Variant) -> dict[str, Any]:
    return {f: getattr(variant, f) for f in HISTORY_FIELDS}


def text_changes(before: Mapping[str, Mapping[str, Any]], changed: Sequence[Variant]) -> dict:
    """Per platform, the fields that changed: before, after and a line diff of the text."""
    import difflib

    out: dict[str, dict] = {}
    for variant in changed:
        old, new = before.get(variant.platform, {}), _text_of(variant)
        fields = {}
        for name in HISTORY_FIELDS:
            if old.get(name) == new[name]:
                continue
            a = " ".join(old.get(name) or []) if isinstance(new[name], list) else (old.get(name) or "")
            b = " ".join(new[name]) if isinstance(new[name], list) else new[name]
            diff = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[2:]
            fields[name] = {"before": old.get(name), "after": new[name], "diff": diff}
        if fields:
            out[variant.platform] = fields
    return out


def history_record(*, content: Content, actor=None, action: str, changes: dict | None = None, note: str = ""):
    """One line of the content's history (who, when, what)."""
    return ContentHistory.objects.create(
        content=content, actor=actor_label(actor), action=action, changes=changes or {}, note=note[:2000]
    )


def actor_label(actor) -> str:
    """Who did it, in words: a staff username, an API key's name, a token's subject."""
    if actor is None:
        return ""
    if isinstance(actor, str):
        return actor[:200]
    key = getattr(actor, "api_key", None)
    user = getattr(actor, "user", None)
    if user is None and key is not None:
        return f"API key “{key.name}”"[:200]
    if user is None and getattr(actor, "subject", ""):
        return f"token {actor.subject}"[:200]
    return _actor_name(actor)


@transaction.atomic
def content_delete(*, content: Content) -> None:
    content = _locked(content.pk)
    if not content.deletable:
        raise _refuse(content, "delete")
    data, org_id = _event_data(content), content.organization_id
    content.delete()
    event_record(organization=org_id, type="content.deleted", data=data)


def content_edit_image(*, content: Content, prompt: str) -> Content:
    """Edit the current image with the image model (synchronously: an unknown instruction
    is an immediate 422/400, not a failed background job). Only in `review`."""
    if not prompt or not prompt.strip():
        raise InvalidSubject("An edit prompt is required.", "prompt", "Required.")
    if not states.can("edit_image", content.status):
        raise _refuse(content, "edit_image")
    if content.media_type != MediaType.IMAGE or not current_media(content).exists():
        raise RuleViolation("This content has no image to edit.", problems={"media": "No image."})
    edited = ports.generation().edit_image(content.pk, prompt.strip())  # a RuleViolation when it cannot
    if edited is None:  # the status changed while the model worked
        content.refresh_from_db()
        raise _refuse(content, "edit_image")
    content.refresh_from_db()
    return content


@transaction.atomic
def content_undo_image_edit(*, content: Content) -> Content:
    content = _locked(content.pk)
    if not states.can("edit_image", content.status):
        raise _refuse(content, "edit_image")
    edited = current_media(content).filter(metadata__has_key="editedFrom").first()
    if edited is None:
        raise RuleViolation("There is no image edit to undo.", problems={"media": "Nothing to undo."})
    original = MediaAsset.objects.filter(pk=edited.metadata["editedFrom"], content=content).first()
    if original is None:
        raise RuleViolation("The backup of the original image is gone.", problems={"media": "No backup."})
    MediaAsset.objects.filter(pk=original.pk).update(kind=Kind.GENERATED, position=edited.position)
    edited.delete()
    event_record(
        organization=content.organization_id,
        type="content.updated",
        data=_event_data(content, imageRestored=True),
    )
    return content


# --- schedules (planned posts) and batches ------------------------------------------------


def schedule_plan(
    *,
    organization,
    profile,
    scheduled_date,
    task: str,
    generation_mode: str,
    platform: str | None,
    post_type: str,
    media_type: str,
    dimensions: str | None,
) -> ContentSchedule:
    platform = platform or profile.platform
    try:
        platform = platform_rules.normalize_platform(platform)
    except ValueError:
        raise InvalidSubject(
            f"Unknown platform '{platform}'.", "platform", f"Unknown platform '{platform}'."
        ) from None
    if platform != profile.platform:
        raise RuleViolation(
            "The platform must be the profile's platform.", problems={"platform": profile.platform}
        )
    if media_type == "carousel":
        raise InvalidSubject("Carousel media is not implemented.", "media", "Use image or video.")
    if scheduled_date < timezone.localdate():
        raise InvalidSubject("scheduledDate is in the past.", "scheduled_date", "Must be today or later.")
    if generation_mode == GenerationMode.MANUAL:
        # a planned post has no upload to caption; it is generated later in a batch
        raise RuleViolation(
            "A planned post cannot be manual_upload: upload and generate it directly.",
            problems={"generation_mode": "Use prompt_based or reference_based."},
        )
    try:
        platform_rules.get_format(profile.platform, post_type, media_type)
    except platform_rules.UnsupportedFormat as exc:
        raise RuleViolation(str(exc), problems={"media": str(exc)}) from None
    return ContentSchedule.objects.create(
        organization=organization,
        profile=profile,
        scheduled_date=scheduled_date,
        task=task.strip(),
        generation_mode=generation_mode,
        platform=profile.platform,
        post_type=post_type,
        media_type=media_type,
        dimensions=dimensions or platform_rules.supported_ratio(profile.platform, post_type, media_type),
    )


@transaction.atomic
def batch_start(*, organization, schedules: list[ContentSchedule], actor=None) -> Batch:
    """Generate the selected planned posts in parallel (one Celery task each).

    At most BATCH_MAX_ITEMS items; each item counts against the caller's generation rate
    limit (the whole batch is refused with a 429 when it does not fit, and nothing is
    charged)."""
    from django.conf import settings as django_settings

    from apps.core import ratelimit
    from apps.core.errors import RateLimited

    unique = {
        s.pk: s for s in schedules
    }.values()  # the same schedule named twice (prefixed id and UUID) runs once
    pending = [s for s in unique if s.status in (ContentSchedule.PLANNED, ContentSchedule.FAILED)]
    if not pending:
        raise RuleViolation(
            "None of the selected schedules is waiting to be generated.",
            problems={"schedules": "Nothing to generate."},
        )
    cap = django_settings.BATCH_MAX_ITEMS
    if len(pending) > cap:
        raise InvalidSubject(
            f"A batch holds at most {cap} items ({len(pending)} given).",
            "schedules",
            f"At most {cap} schedules per batch.",
        )
    from apps.accounts.plans import plan_rate_limit

    generations_within_plan(organization, len(pending))
    credential = getattr(actor, "credential_id", None)
    if credential:
        decision = ratelimit.charge(
            credential, "generation", len(pending), limit=plan_rate_limit(organization, "generation")
        )
        if not decision.allowed:
            raise RateLimited(
                f"This batch needs {len(pending)} generations but only {decision.remaining} of the "
                f"{decision.limit} per minute are left: retry in {decision.retry_after} s or send fewer items.",
                {
                    "limit": decision.limit,
                    "remaining": decision.remaining,
                    "requested": len(pending),
                    "retryAfter": decision.retry_after,
                },
                retry_after=decision.retry_after,
            )
    batch = Batch.objects.create(organization=organization, total=len(pending))
    created = []
    for schedule in pending:
        content = content_request_generation(
            organization=organization,
            actor=actor,
            batch=batch,
            enqueue=False,
            inp=GenerationInput(
                prompt=schedule.task,
                platforms=[schedule.platform],
                brand=schedule.profile.brand,
                profile=schedule.profile,
                generation_mode=schedule.generation_mode,
                post_type=schedule.post_type,
                media_type=schedule.media_type,
                dimensions=schedule.dimensions,
            ),
        )
        schedule.content = content
        schedule.status = ContentSchedule.GENERATING
        schedule.save(update_fields=["content", "status", "updated_at"])
        created.append(content)
    # Heaviest first (videos before images): the workers then finish together instead of
    # one of them encoding the last video alone. Items keep the order they were selected in.
    for content in sorted(created, key=lambda c: -generation_cost(media_type=c.media_type)):
        _enqueue_generation(content)
    event_record(organization=organization, type="batch.progress", data=batch_progress(batch))
    return batch


def batch_progress(batch: Batch, items: Sequence[Mapping[str, Any]] | None = None) -> dict:
    """Per-item and overall progress; `items` ({id, status, progress}) saves the query in lists."""
    if items is None:
        items = list(batch.contents.values("id", "status", "progress"))
    done = [i for i in items if i["status"] not in (states.PENDING, states.GENERATING)]
    failed = [i for i in items if i["status"] == states.FAILED]
    overall = round(sum(100 if i in done else i["progress"] for i in items) / max(1, batch.total))
    return {
        "batchId": str(batch.pk),
        "status": batch.status,
        "total": batch.total,
        "completed": len(done) - len(failed),
        "failed": len(failed),
        "progress": overall,
        "items": [
            {
                "contentId": str(i["id"]),
                "status": i["status"],
                "progress": 100 if i in done else i["progress"],
            }
            for i in items
        ],
    }


def batch_item_finished(*, batch_id) -> None:
    """Called when one item reaches review or failed: report progress, close the batch once."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch_id)
        progress = batch_progress(batch)
        finished = progress["completed"] + progress["failed"] >= batch.total
        if finished and batch.status != Batch.COMPLETED:
            batch.status = Batch.COMPLETED
            batch.finished_at = timezone.now()
            batch.save(update_fields=["status", "finished_at", "updated_at"])
            progress["status"] = Batch.COMPLETED
            event_record(organization=batch.organization_id, type="batch.completed", data=progress)
        else:
            event_record(organization=batch.organization_id, type="batch.progress", data=progress)
        ContentSchedule.objects.filter(content__batch=batch, content__status=states.REVIEW).update(
            status=ContentSchedule.GENERATED
        )
        ContentSchedule.objects.filter(content__batch=batch, content__status=states.FAILED).update(
            status=ContentSchedule.FAILED
        )


def variant_upsert(*, content: Content, platform: str, data: dict, ratio: str) -> Variant:
    variant, _ = Variant.objects.update_or_create(
        content=content,
        platform=platform,
        defaults={
            "caption": data["caption"],
            "hashtags": data["hashtags"],
            "first_comment": data.get("firstComment", ""),
            "alt_text": data.get("altText", ""),
            "title": data.get("title", ""),
            "sounds": data.get("sounds", []),
            "adaptations": data.get("adaptations", []),
            "ratio": ratio,
        },
    )
    return variant


# --- generation entry points both families share --------------------------------------------


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


def content_batch_apply(*, organization, operations: list[dict], parse_update, actor=None) -> list[dict]:
    """Family A `POST /content/batch`: each operation on its own (one failure undoes nothing else).

    `parse_update(data)` turns an update's `data` into `content_update` keyword arguments
    (the family's wire format) or raises ValidationFailed. Each result's `details` name Family
    A's request fields (`details_in`). `actor`: the caller, held to the
    same delete policy as a single DELETE.
    """
    from apps.core import ids

    from .permissions import require_content_delete

    results = []
    for op in operations:
        method, raw_id = op.get("method"), op.get("id")
        # echo what identifies the operation, as strings only (the operation may be malformed)
        result: dict[str, object] = {
            "id": raw_id if isinstance(raw_id, str) else None,
            "method": method if isinstance(method, str) else None,
        }
        try:
            if method not in ("update", "delete"):
                raise InvalidSubject(
                    f"Unknown method '{method}': use update or delete.", "method", "Must be update or delete."
                )
            pk = ids.parse(raw_id, "content")
            content = Content.objects.for_organization(organization).filter(pk=pk).first() if pk else None
            if content is None:
                raise NotFound("Content not found.", {"id": str(raw_id)[:100]})
            # each operation in its own savepoint: one that fails leaves no half-write behind
            with transaction.atomic():
                if method == "delete":
                    if actor is not None:
                        require_content_delete(actor, content)
                    content_delete(content=content)
                else:
                    content_update(content=content, actor=actor, **parse_update(op.get("data")))
            result["status"] = "ok"
        except DataError as exc:  # a value PostgreSQL cannot store: this operation's error only
            result.update(
                status="error",
                error={"code": "VALIDATION_ERROR", "message": f"Invalid value: {str(exc)[:200]}"},
                details={},
            )
        except ApplicationError as exc:
            result.update(
                status="error",
                error={"code": exc.code, "message": exc.message},
                details=details_in(exc, "v1"),
            )
        results.append(result)
    return results


# --- tags and campaigns ---------------------------------------------------------------------


def _tag_name_taken(organization, name: str, exclude_pk=None) -> bool:
    qs = Tag.objects.for_organization(organization).filter(name__iexact=name)
    return qs.exclude(pk=exclude_pk).exists() if exclude_pk else qs.exists()


def tag_create(*, organization, name: str, color: str = "") -> Tag:
    name = name.strip()
    if _tag_name_taken(organization, name):
        raise Conflict(f"A tag named '{name}' already exists.", problems={"name": "Already exists."})
    try:
        with transaction.atomic():
            return Tag.objects.create(organization=organization, name=name, color=color)
    except IntegrityError:
        raise Conflict(
            f"A tag named '{name}' already exists.", problems={"name": "Already exists."}
        ) from None


def tag_update(*, tag: Tag, name: str | None = None, color: str | None = None) -> Tag:
    if name is not None:
        name = name.strip()
        if _tag_name_taken(tag.organization_id, name, exclude_pk=tag.pk):
            raise Conflict(f"A tag named '{name}' already exists.", problems={"name": "Already exists."})
        tag.name = name
    if color is not None:
        tag.color = color
    try:
        with transaction.atomic():
            tag.save()
    except IntegrityError:
        raise Conflict(
            f"A tag named '{name}' already exists.", problems={"name": "Already exists."}
        ) from None
    return tag


def tag_delete(*, tag: Tag) -> None:
    tag.delete()


def _check_dates(starts_on, ends_on) -> None:
    if starts_on and ends_on and ends_on < starts_on:
        raise InvalidSubject("endsOn is before startsOn.", "ends_on", "Must be on or after startsOn.")


def campaign_create(
    *, organization, name: str, description: str = "", starts_on=None, ends_on=None, color: str = ""
) -> Campaign:
    _check_dates(starts_on, ends_on)
    return Campaign.objects.create(
        organization=organization,
        name=name.strip(),
        description=description,
        starts_on=starts_on,
        ends_on=ends_on,
        color=color,
    )


def campaign_update(*, campaign: Campaign, **fields) -> Campaign:
    allowed = {"name", "description", "starts_on", "ends_on", "color"}
    for key, value in fields.items():
        if key not in allowed:
            raise TypeError(key)
        setattr(campaign, key, value)
    _check_dates(campaign.starts_on, campaign.ends_on)
    campaign.save()
    return campaign


def campaign_delete(*, campaign: Campaign) -> None:
    campaign.delete()


def content_move_brand(*, brand, successor) -> int:
    """A retiring brand's content goes to its successor (brands.signals.brand_retiring), each
    item with a `content.updated` (its approval rule is now the successor's)."""
    moved = list(
        Content.objects.select_for_update()
        .filter(brand=brand)
        .only("pk", "organization_id", "status", "platforms", "batch_id")
        .order_by("pk")
    )
    Content.objects.filter(pk__in=[c.pk for c in moved]).update(brand=successor, updated_at=timezone.now())
    for content in moved:
        event_record(organization=content.organization_id, type="content.updated", data=_event_data(content))
    return len(moved)
