"""A record of every websocket message, for the test suite's check against the AsyncAPI documents.

With ``EVENTS_TAP_PATH`` set (the tests set it; child processes, servers and workers inherit
it), each message sent to a websocket group (internal form, `family` null) and each frame a
socket sends (in its family) is appended to that file as one JSON line. Unset (any
deployment), `record` does nothing.
"""

from __future__ import annotations

import json
import os
from typing import Any

from django.conf import settings


def enabled() -> bool:
    """The tap is on (the test suite): frames are worth building for it."""
    return bool(getattr(settings, "EVENTS_TAP_PATH", ""))


def record(payload: Any, *, family: str | None) -> None:
    path = getattr(settings, "EVENTS_TAP_PATH", "")
    if not path:
        return
    line = json.dumps({"pid": os.getpid(), "family": family, "payload": payload}, default=str) + "\n"
    # one write of a short line with O_APPEND: lines of several processes do not interleave
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
