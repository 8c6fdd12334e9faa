"""ASGI entry: HTTP through Django (and /mcp/ through the MCP SDK), websockets at /ws/events/
through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi = get_asgi_application()

from apps.core.secrets_policy import require  # noqa: E402

require()  # outside development, no public SECRET_KEY and no key derived from it (as config/wsgi.py)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from apps.agents.asgi import McpMount  # noqa: E402
from apps.events.consumers import EventsConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {
        # /mcp/: the MCP server over streamable HTTP (issue 32); the rest through Django
        "http": McpMount(django_asgi),
        # the session (staff in the admin console) is read alongside the API's tokens
        "websocket": AuthMiddlewareStack(URLRouter([path("ws/events/", EventsConsumer.as_asgi())])),
    }
)
