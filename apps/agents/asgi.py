"""The MCP server over streamable HTTP, mounted at /mcp/ in front of Django (config/asgi.py).

- Every request must carry `Authorization: Bearer <API key>` of an active key: anything else is
  answered 401 here, before the SDK sees it (each tool call checks the key again, so a key
  revoked during a session stops working at once).
- `manage.py serve` runs uvicorn without the ASGI lifespan, so the SDK's session manager (whose
  task group holds the sessions) is started by the first request and lives as long as the
  process.
- Sessions live in the process: serve with one uvicorn worker per port (the default), or put
  sticky sessions in front of several.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.transport_security import TransportSecuritySettings

from apps.accounts.auth import actor_from_api_key
from apps.core.errors import AuthenticationFailed

from .server import server

PREFIX = "/mcp"

Scope = dict[str, Any]
ASGIApp = Any


def _security() -> TransportSecuritySettings:
    """The Host (and Origin) checks against DNS rebinding, from Django's ALLOWED_HOSTS."""
    hosts = [h for h in settings.ALLOWED_HOSTS if h]
    if not hosts or "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = {h.lstrip(".") for h in hosts} | {"127.0.0.1", "localhost", "[::1]"}
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names] + sorted(names),
        allowed_origins=[f"{scheme}://{n}:*" for n in names for scheme in ("http", "https")]
        + [f"{scheme}://{n}" for n in names for scheme in ("http", "https")],
    )


class McpMount:
    """Route /mcp and /mcp/... to the SDK's streamable HTTP app, everything else to `fallback`."""

    def __init__(self, fallback: ASGIApp) -> None:
        self.fallback = fallback
        self._app: ASGIApp = None
        self._started: asyncio.Event | None = None
        self._runner: asyncio.Task[None] | None = None

    async def _ensure_started(self) -> ASGIApp:
        if self._started is None:
            self._started = asyncio.Event()
            self._app = server.streamable_http_app(streamable_http_path="/", transport_security=_security())
            started = self._started

            async def run() -> None:
                async with server.session_manager.run():
                    started.set()
                    await asyncio.Event().wait()  # until the process ends

            self._runner = asyncio.get_running_loop().create_task(run())
        await self._started.wait()
        return self._app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (path == PREFIX or path.startswith(PREFIX + "/")):
            await self.fallback(scope, receive, send)
            return
        refusal = await _refusal(scope)
        if refusal:
            await _respond(send, 401, {"error": {"code": "AUTHENTICATION_FAILED", "message": refusal}})
            return
        app = await self._ensure_started()
        inner = path[len(PREFIX) :] or "/"
        await app({**scope, "path": inner, "raw_path": inner.encode(), "root_path": PREFIX}, receive, send)


async def _refusal(scope: Scope) -> str | None:
    header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "Send 'Authorization: Bearer <API key>' (a Postforge API key)."
    try:
        await sync_to_async(actor_from_api_key, thread_sensitive=True)(token.strip())
    except AuthenticationFailed as exc:
        return exc.message
    return None


async def _respond(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="postforge"'),
                (b"content-length", str(len(data)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
