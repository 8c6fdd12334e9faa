"""The embedded default's channel layer: in memory in the web process, fed across processes.

Channels' in-memory layer lives in one process, but the embedded default generates content in
a Celery worker that `serve` starts as another process: its progress messages and the events
it dispatches never reached a websocket. With this layer:

- The web process runs a relay (started by the first websocket that connects, on the server's
  event loop). While it runs, messages sent in this process are delivered in memory.
- Any other process (the worker, beat, a management command) writes each group message as a
  small JSON file into a spool folder (var/relay/); the relay reads new files every 0.1 s and
  delivers them. Files are removed after SPOOL_TTL_SECONDS, so several readers could share it.
- The relay also dispatches the transactional outbox (apps.events): events committed by any
  process reach websocket clients within a fraction of a second, without waiting for the
  filesystem broker to hand their dispatch task to the worker. Dispatch claims each event
  once, so the worker's own dispatch and this one never send twice.

The Redis layout does not use this layer (channels_redis crosses processes by itself); it
uses `SharedPubSubChannelLayer` (below).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer

logger = logging.getLogger(__name__)

SPOOL_POLL_SECONDS = 0.1
OUTBOX_POLL_SECONDS = 0.25
SPOOL_TTL_SECONDS = 30.0


def _dispatch_outbox() -> int:
    from apps.events.dispatch import events_dispatch
    from apps.events.models import Event

    pending = list(Event.objects.pending().values_list("pk", flat=True)[:500])  # a read: no lock taken
    return events_dispatch(event_ids=pending) if pending else 0


class RelayedInMemoryChannelLayer(InMemoryChannelLayer):
    def __init__(self, spool: str = "", **kwargs):
        super().__init__(**kwargs)
        self.spool = Path(spool) if spool else None
        self._relay_task: asyncio.Task | None = None
        self._seen: dict[str, float] = {}
        self._counter = itertools.count()

    # --- sending ------------------------------------------------------------------------
    def relaying(self) -> bool:
        task = self._relay_task
        return task is not None and not task.done() and not task.get_loop().is_closed()

    async def group_send(self, group, message):
        if self.spool is None or self.relaying():
            await super().group_send(group, message)
            return
        self._spool_write(group, message)

    def _spool_write(self, group: str, message: dict) -> None:
        spool = self.spool
        assert spool is not None  # group_send spools only with a spool folder
        spool.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}-{next(self._counter)}.json"
        tmp = spool / f".{name}.tmp"
        tmp.write_text(json.dumps({"group": group, "message": message}))
        os.replace(tmp, spool / name)  # readers never see a half-written file

    # --- relaying (web process) ---------------------------------------------------------
    def start_relay(self) -> None:
        """Start relaying on the running loop (idempotent)."""
        if self.spool is None or self.relaying():
            return
        self._seen = {p.name: time.monotonic() for p in self._spool_files()}  # only what comes next
        self._relay_task = asyncio.get_running_loop().create_task(self._relay())

    def _spool_files(self) -> list[Path]:
        if self.spool is None:
            return []
        try:
            return sorted(p for p in self.spool.iterdir() if p.suffix == ".json")
        except FileNotFoundError:
            return []

    async def _relay(self) -> None:
        """Two loops: a spool round never waits behind an outbox round that waits for SQLite's
        write lock (held by the worker while it records its results)."""
        from channels.db import database_sync_to_async

        dispatch_outbox = database_sync_to_async(_dispatch_outbox)

        async def outbox():
            while True:
                try:
                    # what other processes spooled before these events committed goes first (a
                    # generation's last progress figures before its `content.generated`)
                    await self._relay_spool()
                    await dispatch_outbox()
                except Exception:  # a locked database: try again next round
                    logger.warning("outbox relay round failed", exc_info=True)
                await asyncio.sleep(OUTBOX_POLL_SECONDS)

        outbox_task = asyncio.get_running_loop().create_task(outbox())
        try:
            while True:
                try:
                    await self._relay_spool()
                except Exception:  # an unreadable file: the next round goes on
                    logger.warning("event relay round failed", exc_info=True)
                await asyncio.sleep(SPOOL_POLL_SECONDS)
        finally:
            outbox_task.cancel()

    async def _relay_spool(self) -> None:
        now = time.monotonic()
        wall = time.time_ns()
        for path in self._spool_files():
            if path.name in self._seen:
                if wall - int(path.name.split("-", 1)[0]) > SPOOL_TTL_SECONDS * 1e9:
                    path.unlink(missing_ok=True)
                continue
            self._seen[path.name] = now
            try:
                item = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            await super().group_send(item["group"], item["message"])
        self._seen = {n: t for n, t in self._seen.items() if now - t < 2 * SPOOL_TTL_SECONDS}


class SharedPubSubChannelLayer(RedisPubSubChannelLayer):
    """channels-redis's pub/sub layer, with each group message decoded once per process.

    The pub/sub layer receives one copy of a group message per process and puts that same
    byte string in the queue of every local socket of the group; each socket's `receive` then
    decoded it again (msgpack, and decryption if configured): 500 decodings of one event for an
    organization's 500 sockets. Here the first socket's decoding is kept (by the identity of
    the byte string, for the last DECODED_KEPT messages) and handed to the others. Only
    `event.message`s are shared: their consumer (apps.events.consumers) reads them and never
    changes them; any other message is decoded for each receiver as before.
    """

    DECODED_KEPT = 64
    SHARED_TYPES = frozenset({"event.message"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()

    def deserialize(self, message: bytes) -> dict[str, Any]:
        kept = self._decoded.get(id(message))
        if kept is not None and kept[0] is message:
            return kept[1]
        decoded: dict[str, Any] = super().deserialize(message)
        if decoded.get("type") in self.SHARED_TYPES:
            # the byte string is held with its decoding, so its id is not reused meanwhile
            self._decoded[id(message)] = (message, decoded)
            if len(self._decoded) > self.DECODED_KEPT:
                self._decoded.popitem(last=False)
        return decoded
