"""The content status machine at work: lock a row, check an action, apply it, record its event.

The rules themselves (statuses, transitions, allowed actions) are data in `states`; this module
is where they touch the database. Content and publishing both move content through here, so
neither has to import the other's services.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from apps.core.errors import InvalidTransition, NotFound
from apps.events.services import event_record

from . import states
from .models import Content


def event_data(content: Content, **extra: Any) -> dict[str, Any]:
    """The payload of a content event: id, status, platforms, what an AI made (and batch),
    plus `extra`."""
    data: dict[str, Any] = {
        "contentId": str(content.pk),
        "status": content.status,
        "platforms": content.platforms,
        # what an AI made (issue 32), as both families' content shows it
        "aiGenerated": content.ai_disclosure,
    }
    if content.batch_id:
        data["batchId"] = str(content.batch_id)
    data.update(extra)
    return data


def lock(content_id: UUID | str) -> Content:
    """The content row locked for this transaction (SELECT ... FOR UPDATE); NotFound if gone."""
    try:
        return Content.objects.select_for_update().get(pk=content_id)
    except Content.DoesNotExist:
        raise NotFound("Content not found.", {"id": str(content_id)}) from None


def refuse(content: Content, action: str) -> InvalidTransition:
    """The refusal of `action`, naming the current status and what may be done instead (the
    allowed actions depend on the brand's approval rule)."""
    return InvalidTransition(
        f"Cannot {action.replace('_', ' ')} content that is {content.status}.",
        {"status": content.status, "action": action, "allowedActions": content.allowed_actions},
    )


def ensure_allowed(content: Content, action: str) -> None:
    """Raise InvalidTransition unless `action` may start from the content's status; `review`
    content of a brand that requires approval needs `approve` before schedule or publish."""
    if not states.can(action, content.status):
        raise refuse(content, action)
    if not states.can(
        action, content.status, require_approval=content.status == states.REVIEW and content.requires_approval
    ):
        raise InvalidTransition(
            "This brand requires approval before scheduling or publishing.",
            {
                "status": content.status,
                "action": action,
                "allowedActions": content.allowed_actions,
                "requiresApproval": True,
            },
        )


def transition(
    content: Content, action: str, *, event: str | None = None, reason: str = "", **event_extra: Any
) -> Content:
    """Apply `action` to a locked content row (caller holds the lock in a transaction)."""
    ensure_allowed(content, action)
    _, target = states.TRANSITIONS[action]
    previous = content.status
    content.status = target
    if reason or action in ("fail", "reject"):
        content.status_reason = reason
    elif action in ("approve", "regenerate", "edit", "submit"):
        content.status_reason = ""
    content.save()
    if event:
        extra = {"reason": reason} if reason else {}
        event_record(
            organization=content.organization_id,
            type=event,
            data=event_data(content, previousStatus=previous, **extra, **event_extra),
        )
    return content
