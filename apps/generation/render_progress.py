"""Progress during a media render, from deep inside an engine to whoever listens.

The pipeline sets a listener around ``engine.image``/``engine.video`` (``listening``); the local
engine's renderers call ``report(done, total)`` as they go (frames for a video, steps for an
image). Engines that do not report leave the figure where it was. A context variable keeps it
per task without changing the engine protocol."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator

_listener: contextvars.ContextVar[Callable[[float], None] | None] = contextvars.ContextVar(
    "render_progress", default=None
)


def report(done: float, total: float) -> None:
    """``done`` of ``total`` units of the current render are finished."""
    listener = _listener.get()
    if listener is not None and total > 0:
        listener(max(0.0, min(1.0, done / total)))


@contextlib.contextmanager
def listening(callback: Callable[[float], None], *, every: float = 0.25, step: float = 0.1) -> Iterator[None]:
    """Call ``callback(fraction)`` while the block renders: when ``every`` seconds have passed
    or the render moved on by ``step`` since the last call (an image's few steps each arrive,
    however fast; a video's hundreds of frames are thinned), and always for the end (1.0)."""
    last = [0.0, 0.0]  # when, and how far, the last call was

    def throttled(fraction: float) -> None:
        now = time.monotonic()
        if fraction >= 1.0 or now - last[0] >= every or fraction - last[1] >= step:
            last[0], last[1] = now, fraction
            callback(fraction)

    token = _listener.set(throttled)
    try:
        yield
    finally:
        _listener.reset(token)
