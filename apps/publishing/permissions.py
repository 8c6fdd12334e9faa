"""Who may schedule and publish: one policy for both API families."""

from __future__ import annotations

from apps.core.policy import Policy

#: posting routes (Family A /v1/content/{id}/schedule|publish, Family B /api/posts/*): admins
#: write with the `publish` scope; Family B's reads of the schedule need `content:read`
POSTING = Policy(scope="publish", read_scope="content:read", write_role="admin")
