"""Who may change what on a brand beyond the route's role: one policy for both families.

Approval belongs to admins (approve/reject need admin), so switching a brand's
`require_approval` or `auto_publish` (which decide whether content needs that approval or
goes out by itself) needs an admin too; an editor may change the other settings.
"""

from __future__ import annotations

from apps.core.policy import Policy

#: both families' brand routes (assets included): editors write, admins delete
BRANDS = Policy(scope="brands", action_roles={"destroy": "admin"})

ADMIN_SETTINGS = ("require_approval", "auto_publish")


def require_settings_change(actor, brand, settings: dict, *, replace: bool = False) -> None:
    current = brand.generation_settings or {}
    for key in ADMIN_SETTINGS:
        changed = bool(settings.get(key, False)) != bool(current.get(key, False))
        if (key in settings or replace) and changed:
            actor.require(role="admin")
