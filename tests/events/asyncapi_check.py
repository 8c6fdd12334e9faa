"""Validation against the AsyncAPI documents (apps/events/asyncapi.py).

`data/asyncapi-3.0.0.schema.json` is the AsyncAPI Initiative's JSON Schema of AsyncAPI 3.0.0
documents (npm `@asyncapi/specs` 6.11.1, schemas/3.0.0.json, Apache-2.0: see
data/asyncapi-specs-LICENSE), kept here so the check runs offline.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

from apps.events import asyncapi, catalog

SPEC_SCHEMA = Path(__file__).parent / "data" / "asyncapi-3.0.0.schema.json"


@functools.cache
def spec_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SPEC_SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    # formats checked (a relative `externalDocs.url` is not a `uri`); `uri` needs rfc3986-validator
    assert "uri" in cls.FORMAT_CHECKER.checkers, "pip install rfc3986-validator (a dev dependency)"
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def document_errors(document: dict[str, Any]) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in spec_validator().iter_errors(document)
    ]


@functools.cache
def _message_validators(family: str) -> dict[str, jsonschema.protocols.Validator]:
    doc = asyncapi.document(family)
    checker = jsonschema.FormatChecker()
    return {
        message["name"]: jsonschema.Draft7Validator(doc["components"]["schemas"][key], format_checker=checker)
        for key, message in doc["components"]["messages"].items()
    }


def message_errors(payload: Any, family: str) -> list[str]:
    """What is wrong with one frame `family` receives (or a client sends), per the document."""
    if not isinstance(payload, dict):
        return [f"not an object: {payload!r}"]
    name = payload.get("type") or payload.get("action")
    validator = _message_validators(family).get(str(name))
    if validator is None:
        return [f"{name!r} is not a message of the {family} AsyncAPI document (apps/events/definitions.py)"]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(payload)]


def internal_event_errors(payload: Any) -> list[str]:
    """An internal event (as services send it to a group) rendered into each family."""
    errors = []
    for family in catalog.FAMILIES:
        errors += [f"[{family}] {e}" for e in message_errors(catalog.render(payload, family), family)]
    return errors
