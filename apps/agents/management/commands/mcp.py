"""`python manage.py mcp`: Postforge's MCP server over stdio, for an agent that starts it as a
subprocess (Claude Desktop, an IDE). The API key comes from --api-key or POSTFORGE_API_KEY."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Serve Postforge's MCP tools over stdio (key: --api-key or POSTFORGE_API_KEY)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--api-key", default="", help="a Postforge API key (else POSTFORGE_API_KEY)")

    def handle(self, *args: Any, api_key: str, **options: Any) -> None:
        import anyio

        from apps.accounts.auth import actor_from_api_key
        from apps.agents.server import server, use_stdio_key
        from apps.core.errors import AuthenticationFailed

        secret = api_key or os.environ.get("POSTFORGE_API_KEY", "")
        if not secret:
            raise CommandError("Give an API key: --api-key or POSTFORGE_API_KEY.")
        try:
            actor_from_api_key(secret)  # a bad key stops here, before any client talks to it
        except AuthenticationFailed as exc:
            raise CommandError(exc.message) from None
        use_stdio_key(secret)
        anyio.run(server.run_stdio_async)
