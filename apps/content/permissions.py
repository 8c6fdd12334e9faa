"""Who may do what to content beyond the route's role: one policy for both API families.

The route decides the least role (editor for writes). Some writes reach further than the
route says: deleting *scheduled* content cancels its publications, and cancelling a
publication needs an admin everywhere else, so it needs an admin here too.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser, AnonymousUser

from apps.core.policy import Policy

from . import states

#: both families' content routes: editors write, admins approve and reject
CONTENT = Policy(
    scope="content:write",
    read_scope="content:read",
    # an approval link lets someone outside approve: an admin's decision, as approving is
    action_roles={"approve": "admin", "reject": "admin", "approval_links": "admin"},
)

#: revoking an outside approver's link (both families): admins
APPROVAL_LINKS = Policy(write_role="admin", scope="content:write", read_scope="content:read")

#: the staff console's actions (approve, reject, regenerate, edit image, schedule, publish now):
#: the Django permission a staff user needs (the Reviewer group has it)
STAFF_ACT_PERMISSION = "content.change_content"


def staff_may_act(user: AbstractUser | AnonymousUser) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(STAFF_ACT_PERMISSION))


def content_delete_role(content) -> str:
    return "admin" if content.status == states.SCHEDULED else "editor"


def require_content_delete(actor, content) -> None:
    actor.require(role=content_delete_role(content))
