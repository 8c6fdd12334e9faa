"""Who may schedule and publish: one policy for both API families."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser, AnonymousUser

from apps.core.policy import Policy

#: posting routes (Family A /v1/content/{id}/schedule|publish, Family B /api/posts/*): admins
#: write with the `publish` scope; Family B's reads of the schedule need `content:read`
POSTING = Policy(scope="publish", read_scope="content:read", write_role="admin")

#: the organization's OAuth redirect origins (Family A and B `/oauth/redirect-origins`): read
#: with the `profiles` scope, only admins add or remove one
REDIRECT_ORIGINS = Policy(scope="profiles", write_role="admin")

#: the staff console's publication actions (retry, cancel, publish now): the Django permission
#: a staff user needs (the Reviewer group has it)
STAFF_ACT_PERMISSION = "publishing.change_publication"


def staff_may_act(user: AbstractUser | AnonymousUser) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(STAFF_ACT_PERMISSION))


#: the pre-flight check (Family A and B `content/{id}/preflight`, `content/preflight`): a POST that
#: changes nothing, so anyone who may read content may ask it
PREFLIGHT = Policy(write_role="viewer", scope="content:read")

#: a CSV/XLSX import (Family A and B `content/import`): it schedules what it creates, as an
#: admin's schedule does
IMPORTING = Policy(scope="publish", write_role="admin")
