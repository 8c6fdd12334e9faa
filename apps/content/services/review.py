"""Content's review and edits: approve, reject, regenerate, text and image edits, a new design,
delete, the per-platform variants, Family A's batch of updates and deletes, a retiring brand's
content."""

from __future__ import annotations

import random
from typing import Any

from django.db import DataError, transaction
from django.utils import timezone

from apps.core.errors import (
    ApplicationError,
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

from .. import ports, states
from ..machine import event_data as _event_data
from ..machine import lock as _locked
from ..machine import refuse as _refuse
from ..machine import transition
from ..models import (
    Content,
    MediaType,
    Variant,
)
from ..selectors import current_media
from ..signals import content_approved
from .creation import _enqueue_generation
from .disclosure import ai_disclosure_check, content_set_ai_disclosure
from .history import actor_label, history_record, text_changes, text_of
from .intent import INTENT_FIELDS, check_intent, content_intent_record, content_intent_set

#: statuses in which the per-platform text cannot be edited
TEXT_LOCKED = (states.PENDING, states.GENERATING, states.PUBLISHING, states.PUBLISHED)


@transaction.atomic
def content_approve(*, content: Content, actor=None) -> Content:
    content = _locked(content.pk)
    transition(content, "approve", event="content.approved", approvedBy=actor_label(actor) or None)
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
    if isinstance(actor, str):
        return actor[:200]
    user = getattr(actor, "user", None) or actor
    return str(getattr(user, "username", "") or getattr(actor, "credential_id", ""))[:200]


@transaction.atomic
def content_regenerate(*, content: Content, intent: str | None = None, actor=None) -> Content:
    """Generate the content again (another design). ``intent``: a reviewer's choice of what it
    is written for (one of INTENTS, source ``set``), or '' to read it from the brief again; left
    out (None), the recorded intent is read again under the current settings (issue 31)."""
    if intent is not None:
        check_intent(intent)  # a bad value is a 400 before anything changes
    content = _locked(content.pk)
    transition(content, "regenerate", event="content.updated", regenerated=True)
    if intent is not None:
        content_intent_set(content=content, intent=intent, actor=actor)
    else:
        content_intent_record(content=content, save=False)
    content.progress = 0
    # another design, not the same one again: the local engine picks its layout by seed % 3
    old = content.seed
    content.seed = random.randint(1, 2**31 - 1)
    while content.seed % 3 == old % 3:
        content.seed = random.randint(1, 2**31 - 1)
    content.save(update_fields=["progress", "seed", *INTENT_FIELDS, "updated_at"])
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
        problems = _nul_problems(merged) or validate_variant(
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


NUL_PROBLEM = "Contains a NUL character (\\x00), which text cannot hold."


def _nul_problems(fields: dict[str, Any]) -> dict[str, str]:
    """The fields holding a NUL character (PostgreSQL's text cannot store one; the API's
    serializers refuse it, and the admin's forms reach this service directly)."""
    problems: dict[str, str] = {}
    for name, value in fields.items():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and "\x00" in v for v in values):
            problems[name] = NUL_PROBLEM
    return problems


@transaction.atomic
def content_update(
    *,
    content: Content,
    variants: dict | None = None,
    status: str | None = None,
    tags: list | None = None,
    campaign=...,
    scheduled=None,
    ai_disclosure: str | None = None,
    actor=None,
) -> Content:
    """Edit per-platform text (checked against each platform's rules) and/or go back to draft,
    and/or say what of it an AI made (`ai_disclosure`: a person's override, in any status; it
    is a label, not the text, so it withdraws no approval).

    Approval covers the text that was approved. When the brand requires approval:
    - changing the text of `approved` content withdraws the approval: the content goes back
      to `review` (or to `draft` when the client also sets `status: draft`), `approved_at` and
      `approved_by` are cleared and `content.updated` says `approvalWithdrawn: true`;
    - the text of `scheduled` content cannot change (409 A / 422 B): it would go out
      unapproved. Unschedule it (back to `approved`), edit it, and approve it again.
    Without `require_approval` (approval is implied) an edit keeps the status.
    """
    if ai_disclosure is not None:
        ai_disclosure_check(ai_disclosure)
    content = _locked(content.pk)
    previous = content.status
    if variants and content.status in TEXT_LOCKED:
        # the pipeline is writing the text, or the platform already has it
        raise _refuse(content, "edit")
    before = {v.platform: text_of(v) for v in content.variants.all()} if variants else {}
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
    if ai_disclosure is not None:
        content = content_set_ai_disclosure(
            content=content, value=ai_disclosure, actor=actor, record_event=False
        )
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


@transaction.atomic
def content_delete(*, content: Content) -> None:
    content = _locked(content.pk)
    if not content.deletable:
        raise _refuse(content, "delete")
    data, org_id = _event_data(content), content.organization_id
    # the client's own upload outlives the content made from it (it is theirs, listed under
    # media, and may be named again); what was generated for the content goes with it
    MediaAsset.objects.filter(content=content, kind=Kind.UPLOAD).update(content=None)
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


def content_new_design(*, content: Content, design: str | None = None, actor=None) -> Content:
    """A new design (issue 30): the pictures drawn again in another layout (``design``, one of
    ``ports.DESIGNS``; None: the one after the current), the words kept. Synchronous, like an
    image edit, and only in `review`; the history says "design changed to <layout>"."""
    if design is not None and design not in ports.DESIGNS:
        raise InvalidSubject(
            f"Unknown design '{str(design)[:40]}': use {', '.join(ports.DESIGNS)}.",
            "design",
            f"Must be one of: {', '.join(ports.DESIGNS)}.",
        )
    if not states.can("edit_image", content.status):
        raise _refuse(content, "edit_image")
    if content.media_type != MediaType.IMAGE:
        raise RuleViolation("Only a picture has designs to choose from.", problems={"media": "Not an image."})
    done = ports.generation().redesign(content.pk, design, actor)
    content.refresh_from_db()
    if done is None:  # the status changed while the pictures were drawn
        raise _refuse(content, "edit_image")
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


def content_batch_apply(*, organization, operations: list[dict], parse_update, actor=None) -> list[dict]:
    """Family A `POST /content/batch`: each operation on its own (one failure undoes nothing else).

    `parse_update(data)` turns an update's `data` into `content_update` keyword arguments
    (the family's wire format) or raises ValidationFailed. Each result's `details` name Family
    A's request fields (`details_in`). `actor`: the caller, held to the
    same delete policy as a single DELETE.
    """
    from apps.core import ids

    from ..permissions import require_content_delete

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


def content_move_brand(*, brand, successor) -> int:
    """A retiring brand's content goes to its successor (brands.signals.brand_retiring), each
    item with a `content.updated` (its approval rule is now the successor's)."""
    moved = list(
        Content.objects.select_for_update()
        .filter(brand=brand)
        .only(
            "pk",
            "organization_id",
            "status",
            "platforms",
            "batch_id",
            "ai_disclosure",
            "ai_disclosure_overridden",
        )
        .order_by("pk")
    )
    Content.objects.filter(pk__in=[c.pk for c in moved]).update(brand=successor, updated_at=timezone.now())
    for content in moved:
        event_record(organization=content.organization_id, type="content.updated", data=_event_data(content))
    return len(moved)
