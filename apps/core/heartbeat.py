"""A lease heartbeat: renews a claim's lease on a timer while its work runs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Self

logger = logging.getLogger(__name__)


class Heartbeat:
    """Calls `renew()` every `interval()` seconds in a thread with its own database
    connection until the block ends. A worker that dies stops renewing, its lease expires
    and the sweep hands the work to another worker."""

    def __init__(self, renew: Callable[[], None], interval: Callable[[], float]):
        self._renew, self._interval, self._stop = renew, interval, threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="lease-heartbeat")

    def _loop(self) -> None:
        from django.db import connection

        try:
            while not self._stop.wait(self._interval()):
                try:
                    self._renew()
                except Exception:
                    logger.warning("lease renewal failed", exc_info=True)
        finally:
            connection.close()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
