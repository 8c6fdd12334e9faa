"""Who may do what to content beyond the route's role: one policy for both API families.

The route decides the least role (editor for writes). Some writes reach further than the
route says: deleting *scheduled* content cancels its publications, and cancelling a
publication needs an admin everywhere else, so it needs an admin here too; deleting
*published* content (or content a publication of which went out) removes its publications
and their metrics history, so it needs an admin as well (issue 20).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser, AnonymousUser

from apps.core.errors import PermissionDenied
from apps.core.policy import Policy

from . import states

#: both families' content routes: editors write, admins approve and reject
CONTENT = Policy(
    scope="content:write",
    read_scope="content:read",
    # an approval link lets someone outside approve: an admin's decision, as approving is
    action_roles={"approve": "admin", "reject": "admin", "approval_links": "admin"},
    # a client reviewer reads its brands' content and approves or rejects it (with its comment)
    reviewer_reads=True,
    reviewer_actions=frozenset({"approve", "reject"}),
)

#: revoking an outside approver's link (both families): admins
APPROVAL_LINKS = Policy(write_role="admin", scope="content:write", read_scope="content:read")

#: the staff console's actions (approve, reject, regenerate, edit image, schedule, publish now):
#: the Django permission a staff user needs (the Reviewer group has it)
STAFF_ACT_PERMISSION = "content.change_content"


def staff_may_act(user: AbstractUser | AnonymousUser) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(STAFF_ACT_PERMISSION))


def _has_gone_out(content) -> bool:
    """Published, or a publication of it reached a platform (its post and metrics history
    are deleted with it)."""
    if content.status == states.PUBLISHED:
        return True
    # the relation publishing declares (`Publication.content`); a published one is "published"
    return content.publications.filter(status="published").exists()


def content_delete_role(content) -> str:
    """Scheduled content (deleting it cancels publications) and content that went out
    (deleting it removes its publications and metrics history, issue 20) need an admin."""
    if content.status == states.SCHEDULED or _has_gone_out(content):
        return "admin"
    return "editor"


def require_content_delete(actor, content) -> None:
    if content_delete_role(content) == "admin" and not actor.has_role("admin") and _has_gone_out(content):
        raise PermissionDenied(
            "Published content can be deleted by an admin only: its publications and their "
            f"metrics history go with it. This credential has the {actor.role} role.",
            {"requiredRole": "admin", "role": actor.role},
        )
    actor.require(role=content_delete_role(content))
