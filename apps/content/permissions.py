"""Who may do what to content beyond the route's role: one policy for both API families.

The route decides the least role (editor for writes). Some writes reach further than the
route says: deleting *scheduled* content cancels its publications, and cancelling a
publication needs an admin everywhere else, so it needs an admin here too.
"""

from __future__ import annotations

from . import states


def content_delete_role(content) -> str:
    return "admin" if content.status == states.SCHEDULED else "editor"


def require_content_delete(actor, content) -> None:
    actor.require(role=content_delete_role(content))
