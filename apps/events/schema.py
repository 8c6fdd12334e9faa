"""The vocabulary of the websocket messages' schemas, and their registry (below catalog and definitions).

`definitions` describes every message with these helpers and registers it here (`define`);
`catalog` imports both and renders frames into a family; the AsyncAPI documents read the
registry through `catalog`. This module imports neither, so the two form no circle.

A payload schema is JSON Schema with two markers the renderer reads:
- ``x-pf-id``: an id of that kind (apps.core.ids): `cnt_<32 hex>` in Family A, a UUID in B;
- ``x-pf-status``: a status of that vocabulary, in the family's words. A vocabulary's values
  and per-family words are registered by the app that owns them (content registers `content`
  in its AppConfig.ready), since events sits below every app that emits.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from apps.core import ids

#: the two families: Family A (`/v1`, API keys) and Family B (`/api`, organization tokens)
FAMILIES = ("v1", "api")

ID_MARK = "x-pf-id"
STATUS_MARK = "x-pf-status"


# --- vocabularies (statuses) ----------------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    values: tuple[str, ...]
    #: family -> {model word: family word}; a word not named is the same in that family
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def word(self, value: str, family: str) -> str:
        return self.words.get(family, {}).get(value, value)

    def family_values(self, family: str) -> list[str]:
        return list(dict.fromkeys(self.word(v, family) for v in self.values))


_vocabularies: dict[str, Vocabulary] = {}


def vocabulary(
    name: str, values: Iterable[str], words: Mapping[str, Mapping[str, str]] | None = None
) -> None:
    """Register (or replace) the statuses of `name` and their words per family."""
    _vocabularies[name] = Vocabulary(tuple(values), dict(words or {}))


def vocabulary_get(name: str) -> Vocabulary:
    try:
        return _vocabularies[name]
    except KeyError:
        raise LookupError(f"No status vocabulary '{name}' is registered (its app's ready() does).") from None


# --- schema helpers -------------------------------------------------------------------------


def _nullable(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    if nullable:
        schema["type"] = [schema["type"], "null"]
    return schema


def id_(kind: str, description: str = "", *, nullable: bool = False) -> dict[str, Any]:
    assert kind in ids.PREFIXES, kind
    return _nullable(
        {"type": "string", ID_MARK: kind, "description": description or f"A {kind} id."}, nullable
    )


def status(name: str, description: str = "") -> dict[str, Any]:
    return {"type": "string", STATUS_MARK: name, "description": description or f"A {name} status."}


def string(description: str = "", *, nullable: bool = False, **more: Any) -> dict[str, Any]:
    return _nullable({"type": "string", "description": description, **more}, nullable)


def datetime_(description: str = "", *, nullable: bool = False) -> dict[str, Any]:
    return string(description, nullable=nullable, format="date-time")


def integer(description: str = "", **more: Any) -> dict[str, Any]:
    return {"type": "integer", "description": description, **more}


def number(description: str = "") -> dict[str, Any]:
    return {"type": "number", "description": description}


def boolean(description: str = "") -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def array(items: dict[str, Any], description: str = "") -> dict[str, Any]:
    return {"type": "array", "items": items, "description": description}


def obj(
    required: Mapping[str, dict], optional: Mapping[str, dict] | None = None, description: str = ""
) -> dict:
    """An object with exactly these fields (a field not declared here fails the suite's check)."""
    properties = {**required, **(optional or {})}
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


# --- the registry -----------------------------------------------------------------------------

#: who sends a message: the service's outbox (an `id`, also sent to webhooks), a live-only
#: broadcast (progress), the socket itself (control replies), or the client (actions)
OUTBOX, LIVE, CONTROL, CLIENT = "outbox", "live", "control", "client"


@dataclass(frozen=True)
class EventType:
    name: str
    summary: str
    data: dict[str, Any]
    source: str = OUTBOX

    @functools.cached_property
    def sent_schema(self) -> dict[str, Any]:
        """`data_schema()`, computed once (the consumer renders every frame with it)."""
        return self.data_schema()

    def data_schema(self) -> dict[str, Any]:
        """The payload's `data` as sent: an outbox event carries its own `id`, its subject's
        `sequence` and when it happened (`occurredAt`) too."""
        if self.source != OUTBOX:
            return self.data
        schema = copy.deepcopy(self.data)
        schema["properties"] = {
            "id": id_("event", "The event's id (also the webhook message id)."),
            "sequence": integer(SEQUENCE_HELP, minimum=1),
            "occurredAt": datetime_("When the change happened (committed with the event; UTC)."),
            **schema["properties"],
        }
        schema["required"] = ["id", "sequence", "occurredAt", *schema["required"]]
        return schema


#: what `sequence` means, in the documents (and the README says the same)
SEQUENCE_HELP = (
    "The event's number among its subject's events: its `contentId`'s if it has one, else its "
    "`batchId`'s, `profileId`'s, `brandId`'s or `webhookId`'s (a publication's events count with "
    "its content's). One subject's events are sent in this order, and numbers only grow; a frame "
    "whose `sequence` is not above the last one applied for its subject is a late or repeated "
    "copy (a resend after a failed send): drop it."
)


_types: dict[str, EventType] = {}


def define(name: str, summary: str, data: dict[str, Any], *, source: str = OUTBOX) -> EventType:
    event_type = EventType(name=name, summary=summary, data=data, source=source)
    _types[name] = event_type
    return event_type


def get(name: str) -> EventType | None:
    return _types.get(name)


def types(*sources: str) -> list[EventType]:
    return [t for t in _types.values() if not sources or t.source in sources]


def require(name: str) -> EventType:
    """The definition of an event a service records; an undefined type is a programming error."""
    found = _types.get(name)
    if found is None:
        raise LookupError(f"Event type '{name}' is not defined in apps/events/definitions.py.")
    return found


# --- the family's JSON Schema (for the AsyncAPI documents) ------------------------------------

_UUID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


def family_schema(schema: Mapping[str, Any], family: str) -> dict[str, Any]:
    """`schema` with its markers replaced by what `family` reads: an id's pattern, a status's enum."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in (ID_MARK, STATUS_MARK):
            continue
        if key == "properties":
            out[key] = {k: family_schema(v, family) for k, v in value.items()}
        elif key == "items":
            out[key] = family_schema(value, family)
        elif key == "description" and not value:
            continue
        else:
            out[key] = copy.deepcopy(value)
    if ID_MARK in schema:
        kind = schema[ID_MARK]
        if family == "v1":
            out["pattern"] = f"^{ids.PREFIXES[kind]}_[0-9a-f]{{32}}$"
            out["examples"] = [f"{ids.PREFIXES[kind]}_0f8fad5bd9cb469fa16570867728950e"]
        else:
            out["format"] = "uuid"
            out["pattern"] = _UUID_PATTERN
            out["examples"] = ["0f8fad5b-d9cb-469f-a165-70867728950e"]
    if STATUS_MARK in schema:
        values: list[Any] = vocabulary_get(schema[STATUS_MARK]).family_values(family)
        out["enum"] = [*values, None] if "null" in (out.get("type") or []) else values
    return out


def message_schema(event_type: EventType, family: str) -> dict[str, Any]:
    """The whole frame of `event_type` as `family` receives (or, for client actions, sends) it."""
    if event_type.source == CLIENT:
        return family_schema(event_type.data, family)
    return {
        "type": "object",
        "required": ["type", "data"] + (["sentAt"] if event_type.source in (OUTBOX, LIVE) else []),
        "properties": {
            "type": {"type": "string", "const": event_type.name},
            "data": family_schema(event_type.data_schema(), family),
            "sentAt": {
                "type": "string",
                "format": "date-time",
                "description": "When the service sent it (UTC).",
            },
        },
        "additionalProperties": False,
    }
