"""Websocket /ws/events/: authenticated like the REST API, joined to the org group.

Token in ``?token=`` or as a ``Sec-WebSocket-Protocol`` value (``bearer, <token>`` or the
token alone). A client may send ``{"action": "subscribe", "contentId": ...}`` (or
``batchId``) to receive only that object's messages, and ``unsubscribe`` to go back.

Staff of the admin console are not API clients: a logged-in staff user (Django session,
populated by AuthMiddlewareStack in config/asgi.py) connecting without a token, from the
site's own origin, is accepted without joining any organization and may subscribe to a
content or batch of an organization the admin shows them (apps.accounts.staff: superusers
every one, other staff their own; the admin's live generation progress).

A socket lives no longer than its credential: every socket of a credential joins that
credential's group, where `api_key_revoke` sends `credential.revoked` (the socket closes
with 4401 within a second), and a JWT's socket closes itself at the token's `exp`. Sockets
per credential and per organization are capped (4429 past the cap). A frame that is not a
JSON object (binary, malformed, nested too deep) answers `{"type": "error"}` and the
socket stays open.

Every message is rendered in the caller's family at this edge (apps.events.catalog): an API
key reads Family A (`cnt_...` ids, `generated`), as /v1 answers it; an organization token
(JWT) reads Family B (UUIDs, `reviewing`), as /api answers it. An API key used with /api asks
for Family B with `?family=api`; staff sessions read Family B. The messages and their
payloads are documented in the AsyncAPI documents at /v1/asyncapi/ and /api/asyncapi/.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from urllib.parse import parse_qs, urlsplit

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from apps.core import ids
from apps.core.errors import AuthenticationFailed

from . import catalog, connections, subjects, tap
from .dispatch import org_group, subject_group

CLOSE_BAD_REQUEST = 4400
CLOSE_UNAUTHORIZED = 4401
CLOSE_TOO_MANY = 4429


@database_sync_to_async
def _authenticate(token: str):
    from apps.accounts.auth import authenticate_token

    return authenticate_token(token, allow_jwt=True)


@database_sync_to_async
def _owns(organization, kind: str, object_id, brand_ids=None) -> bool:
    """The object exists in `organization` (None: staff, any organization), of the caller's
    brands when it is limited to some (apps.core.scoping)."""
    from apps.core.scoping import brands_limited

    with brands_limited(brand_ids):
        return subjects.owns(organization, kind, object_id)


def _brand_limited(actor) -> bool:
    """A member or key limited to some brands: no organization-wide stream (its events carry
    every brand's content), only subscriptions to its brands' content and batches."""
    return bool(getattr(actor, "brand_ids", None))


@database_sync_to_async
def _staff_owns(user, kind: str, object_id) -> bool:
    """The object is in one of the organizations this staff user may see in the admin
    (apps.accounts.staff: a superuser every one, other staff their memberships')."""
    from apps.accounts.staff import sees_every_organization, staff_organizations

    if sees_every_organization(user):
        return subjects.owns(None, kind, object_id)
    return any(subjects.owns(org, kind, object_id) for org in staff_organizations(user))


def _staff_user(scope):
    """The session's user when it is active staff and the browser is on our own origin
    (a session cookie rides along on cross-site websockets, a token does not)."""
    user = scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False) or not (user.is_active and user.is_staff):
        return None
    headers = {k.decode("latin1").lower(): v.decode("latin1") for k, v in scope.get("headers", [])}
    origin = headers.get("origin")
    if origin and urlsplit(origin).netloc.lower() != headers.get("host", "").lower():
        return None
    return user


class EventsConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        start_relay = getattr(self.channel_layer, "start_relay", None)
        if start_relay is not None:  # the embedded default: see apps.events.layers
            start_relay()
        token, subprotocol = self._token()
        self.groups_joined: list[str] = []
        self.subscription: str | None = None
        self.staff = None
        self.actor = None
        self.registered = False
        self.timers: list[asyncio.Task] = []
        self.family = "api"
        asked = self._asked_family()
        if asked not in ("", *catalog.FAMILIES):
            await self.close(code=CLOSE_BAD_REQUEST)
            return
        if not token:
            self.staff = _staff_user(self.scope)
            if self.staff is None:
                await self.close(code=4401)
                return
            self.family = asked or "api"
            await self.accept()
            await self.send_json({"type": "connection.ready", "data": {"staff": True}})
            return
        try:
            self.actor = await _authenticate(token)
        except AuthenticationFailed:
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        if self.actor.api_key is None and asked == "v1":  # /v1 takes API keys only (a JWT is a 401 there)
            await self.close(code=CLOSE_UNAUTHORIZED)
            return
        self.family = asked or ("v1" if self.actor.api_key is not None else "api")
        verdict = await database_sync_to_async(connections.register)(**self._registration())
        if verdict != connections.OK:
            await self.close(code=CLOSE_TOO_MANY)
            return
        self.registered = True
        # the credential's group is never left (subscriptions only swap the event groups)
        await self.channel_layer.group_add(
            connections.credential_group(self.actor.credential_id), self.channel_name
        )
        if not _brand_limited(self.actor):
            await self._join(org_group(self.actor.organization.pk))
        await self.accept(subprotocol=subprotocol)
        await self.send_json(
            {"type": "connection.ready", "data": {"organizationId": str(self.actor.organization.pk)}}
        )
        self.timers.append(asyncio.create_task(self._heartbeat()))
        if self.actor.expires_at is not None:
            self.timers.append(asyncio.create_task(self._expire_at(self.actor.expires_at)))

    def _registration(self) -> dict:
        return {
            "credential_id": self.actor.credential_id,
            "organization_id": self.actor.organization.pk,
            "channel_name": self.channel_name,
        }

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(connections.HEARTBEAT_SECONDS)
            with contextlib.suppress(Exception):  # Redis away: the next beat tries again
                await database_sync_to_async(connections.refresh)(**self._registration())

    async def _expire_at(self, expires_at: float) -> None:
        await asyncio.sleep(max(0.0, expires_at - time.time()))
        await self._end("credential.expired", "The token expired; reconnect with a fresh one.")

    async def _end(self, type_: str, message: str) -> None:
        with contextlib.suppress(Exception):
            await self.send_json({"type": type_, "data": {"message": message}})
        await self.close(code=CLOSE_UNAUTHORIZED)

    def _asked_family(self) -> str:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        return (query.get("family") or [""])[0]

    async def send_json(self, content, close=False):
        """Every frame leaves in the caller's family (its ids and statuses)."""
        rendered = catalog.render(content, self.family)
        tap.record(rendered, family=self.family)
        await super().send_json(rendered, close=close)

    def _token(self) -> tuple[str | None, str | None]:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        if query.get("token"):
            return query["token"][0], None
        protocols = self.scope.get("subprotocols") or []
        for value in protocols:
            if value.lower() in ("bearer", "postforge"):
                continue
            chosen = "bearer" if "bearer" in [p.lower() for p in protocols] else value
            return value, chosen
        return None, None

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def disconnect(self, code):
        for timer in getattr(self, "timers", []):
            timer.cancel()
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "registered", False):
            self.registered = False
            await self.channel_layer.group_discard(
                connections.credential_group(self.actor.credential_id), self.channel_name
            )
            with contextlib.suppress(Exception):  # stale entries age out after STALE_SECONDS
                await database_sync_to_async(connections.unregister)(**self._registration())

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if text_data is None:
            await self._error("Frames must be JSON text, not binary.")
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):
            await self._error("Frames must be a JSON object (valid JSON, not nested too deeply).")
            return
        if not isinstance(content, dict):
            await self._error("Frames must be a JSON object.")
            return
        await self.receive_json(content, **kwargs)

    async def _error(self, message: str) -> None:
        await self.send_json({"type": "error", "data": {"message": message}})

    async def receive_json(self, content, **kwargs):
        action = content.get("action") if isinstance(content, dict) else None
        if action == "subscribe":
            for key, kind in (("contentId", "content"), ("batchId", "batch")):
                if content.get(key):
                    pk = ids.parse(content[key], kind)
                    if self.staff is not None:
                        owned = pk is not None and await _staff_owns(self.staff, kind, pk)
                    else:
                        limit = getattr(self.actor, "brand_ids", None)
                        owned = pk is not None and await _owns(self.actor.organization, kind, pk, limit)
                    if not owned:
                        await self.send_json({"type": "error", "data": {"message": f"Unknown {key}."}})
                        return
                    # Leave the org-wide stream; receive only this object's messages.
                    for group in list(self.groups_joined):
                        await self.channel_layer.group_discard(group, self.channel_name)
                    self.groups_joined = []
                    await self._join(subject_group(kind, pk))
                    self.subscription = f"{kind}:{pk}"
                    await self.send_json({"type": "subscribed", "data": {key: str(pk)}})
                    return
            await self.send_json({"type": "error", "data": {"message": "Give contentId or batchId."}})
        elif action == "unsubscribe":
            for group in list(self.groups_joined):
                await self.channel_layer.group_discard(group, self.channel_name)
            self.groups_joined = []
            # staff and brand-limited callers have no organization stream: they subscribe
            if self.staff is None and not _brand_limited(self.actor):
                await self._join(org_group(self.actor.organization.pk))
            self.subscription = None
            await self.send_json({"type": "unsubscribed", "data": {}})
        elif action == "ping":
            await self.send_json({"type": "pong", "data": {}})
        else:
            await self.send_json({"type": "error", "data": {"message": "Unknown action."}})

    async def dispatch(self, message):
        """An event goes straight to its handler. Channels (4.2+) first hops to the sync
        thread to close stale database connections before every handler; this consumer reaches
        the database only through `database_sync_to_async`, which closes them around each of its
        calls, and an event's handler reads nothing. That hop per socket and event was most of a
        fan-out's cost: an organization's 500 sockets queued one event through one thread
        (docs/benchmarks.md, realtime fan-out)."""
        if message.get("type") == "event.message":
            await self.event_message(message)
            return
        await super().dispatch(message)

    async def event_message(self, message):
        """An event: its family's text, encoded once for every socket of the process."""
        payload = message["payload"]
        if tap.enabled():
            tap.record(catalog.render(payload, self.family), family=self.family)
        await self.send(text_data=catalog.render_text(payload, self.family))

    async def credential_revoked(self, message):
        await self._end("credential.revoked", "The API key was revoked.")
