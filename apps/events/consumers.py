"""Websocket /ws/events/: authenticated like the REST API, joined to the org group.

Token in ``?token=`` or as a ``Sec-WebSocket-Protocol`` value (``bearer, <token>`` or the
token alone). A client may send ``{"action": "subscribe", "contentId": ...}`` (or
``batchId``) to receive only that object's messages, and ``unsubscribe`` to go back.

Staff of the admin console are not API clients: a logged-in staff user (Django session,
populated by AuthMiddlewareStack in config/asgi.py) connecting without a token, from the
site's own origin, is accepted without joining any organization and may subscribe to any
content or batch (the admin's live generation progress).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from apps.core import ids
from apps.core.errors import AuthenticationFailed

from .services import org_group, subject_group


@database_sync_to_async
def _authenticate(token: str):
    from apps.core.auth import authenticate_token

    return authenticate_token(token, allow_jwt=True)


@database_sync_to_async
def _owns(organization, kind: str, object_id) -> bool:
    """The object exists in `organization` (None: staff, any organization)."""
    from apps.content.models import Batch, Content

    qs = (Content if kind == "content" else Batch).objects.filter(pk=object_id)
    if organization is not None:
        qs = qs.filter(organization=organization)
    return qs.exists()


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
        token, subprotocol = self._token()
        self.groups_joined: list[str] = []
        self.subscription: str | None = None
        self.staff = None
        if not token:
            self.staff = _staff_user(self.scope)
            if self.staff is None:
                await self.close(code=4401)
                return
            await self.accept()
            await self.send_json({"type": "connection.ready", "data": {"staff": True}})
            return
        try:
            self.actor = await _authenticate(token)
        except AuthenticationFailed:
            await self.close(code=4401)
            return
        await self._join(org_group(self.actor.organization.pk))
        await self.accept(subprotocol=subprotocol)
        await self.send_json({"type": "connection.ready", "data": {"organizationId": str(self.actor.organization.pk)}})

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
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        action = content.get("action") if isinstance(content, dict) else None
        if action == "subscribe":
            for key, kind in (("contentId", "content"), ("batchId", "batch")):
                if content.get(key):
                    pk = ids.parse(content[key], kind)
                    organization = None if self.staff is not None else self.actor.organization
                    if pk is None or not await _owns(organization, kind, pk):
                        await self.send_json({"type": "error", "data": {"message": f"Unknown {key}."}})
                        return
                    # Leave the org-wide stream; receive only this object's messages.
                    for group in list(self.groups_joined):
                        await self.channel_layer.group_discard(group, self.channel_name)
                    self.groups_joined = []
                    await self._join(subject_group(kind, pk))
                    self.subscription = f"{kind}:{pk}"
                    await self.send_json({"type": "subscribed", "data": {key: content[key]}})
                    return
            await self.send_json({"type": "error", "data": {"message": "Give contentId or batchId."}})
        elif action == "unsubscribe":
            for group in list(self.groups_joined):
                await self.channel_layer.group_discard(group, self.channel_name)
            self.groups_joined = []
            if self.staff is None:  # staff have no organization stream: they subscribe
                await self._join(org_group(self.actor.organization.pk))
            self.subscription = None
            await self.send_json({"type": "unsubscribed", "data": {}})
        elif action == "ping":
            await self.send_json({"type": "pong", "data": {}})
        else:
            await self.send_json({"type": "error", "data": {"message": "Unknown action."}})

    async def event_message(self, message):
        await self.send_json(message["payload"])
