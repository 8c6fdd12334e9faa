"""The router every API package registers its viewsets on (both families)."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter


class Router(SimpleRouter):
    """No trailing slashes: /api/brands, /api/brands/<id>."""

    def __init__(self) -> None:
        super().__init__(trailing_slash=False)
