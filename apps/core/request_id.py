"""The request id of the request being served (set by RequestIdMiddleware)."""

from __future__ import annotations

import contextvars
import re
import uuid

_current: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")
_VALID = re.compile(r"^[A-Za-z0-9._\-]{8,128}$")


def new_request_id(incoming: str | None = None) -> str:
    if incoming and _VALID.match(incoming):
        return incoming
    return f"req_{uuid.uuid4().hex}"


def set_request_id(value: str) -> contextvars.Token:
    return _current.set(value)


def reset_request_id(token: contextvars.Token) -> None:
    _current.reset(token)


def current_request_id() -> str:
    return _current.get()
