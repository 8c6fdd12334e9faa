"""Check a real response against what the live OpenAPI schema declares for it (issue 10)."""

from __future__ import annotations

import functools

from django.test import Client
from openapi_schema_validator import OAS30Validator


@functools.cache
def _schema(family: str) -> dict:
    response = Client(HTTP_HOST="127.0.0.1").get(
        f"/{family}/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"
    )
    assert response.status_code == 200
    return response.json()


def declared(family: str, path: str, method: str, status: int, media: str = "application/json") -> dict:
    """The schema declared for one response (`path` relative to the family's base)."""
    spec = _schema(family)
    response = spec["paths"][path][method.lower()]["responses"][str(status)]
    return {**response["content"][media]["schema"], "components": spec["components"]}


def media_types(family: str, path: str, method: str, status: int) -> list[str]:
    return list(_schema(family)["paths"][path][method.lower()]["responses"][str(status)].get("content", {}))


def assert_conforms(
    family: str, path: str, method: str, status: int, body, media: str = "application/json"
) -> None:
    OAS30Validator(declared(family, path, method, status, media)).validate(body)
