"""Schedules (planned posts) and the batches that generate them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.core.errors import (
    InvalidSubject,
    RuleViolation,
)
from apps.events.services import event_record
from apps.platforms import rules as platform_rules

from .. import states
from ..cost import generation_cost
from ..models import (
    Batch,
    ContentSchedule,
    GenerationMode,
)
from .creation import (
    GenerationInput,
    _enqueue_generation,
    content_request_generation,
    generations_within_plan,
)


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
