"""What a websocket may subscribe to besides its organization's stream: one kind per app that
owns such objects, registered in that app's AppConfig.ready (content: `content`, `batch`), so
events imports none of them."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

#: kind -> does this object exist in this organization (None: staff, any organization)?
Owns = Callable[[object | None, UUID], bool]

_kinds: dict[str, Owns] = {}


def register(kind: str, owns: Owns) -> None:
    _kinds[kind] = owns


def owns(organization: object | None, kind: str, object_id: UUID) -> bool:
    check = _kinds.get(kind)
    return check is not None and check(organization, object_id)
