"""Who may take which action: the least role and the API-key scope, per action.

Each app writes its policies once (apps/<app>/permissions.py); both API families' views name
them (`policy = permissions.CONTENT`) and the staff admin asks the same module, so a rule is
never written twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Policy:
    #: least role for reads and for writes; `action_roles` overrides per action (both families' names)
    read_role: str = "viewer"
    write_role: str = "editor"
    action_roles: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: API-key scope for writes, and for reads unless `read_scope` is given
    scope: str | None = None
    read_scope: str | None = None
    #: a client reviewer (role `reviewer`, issue 32) may read these routes, and take these actions
    #: (both families' names); nothing else
    reviewer_reads: bool = False
    reviewer_actions: frozenset[str] = frozenset()

    def role_for(self, action: str | None, *, reading: bool) -> str:
        return self.action_roles.get(action or "") or (self.read_role if reading else self.write_role)

    def scope_for(self, *, reading: bool) -> str | None:
        return (self.read_scope or self.scope) if reading else self.scope
