"""The registry of websocket messages: every event type and its payload schema, in one place.

Services emit one internal event (ids as canonical UUIDs, statuses in the model's words); the
websocket consumer renders each message into its caller's family at the edge (`render`): a
`/v1` API key reads `cnt_...` ids and Family A's status words, an `/api` token UUIDs and Family
B's, as each family's REST answer renders the same object. The AsyncAPI documents
(apps/events/asyncapi.py) are generated from the same schemas, so what is documented is what
is rendered, and tests validate every message the suite sends against them.

The schemas, their markers and the registry of types live one floor below, in
apps/events/schema.py, which both this module and definitions import (no circle).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from apps.core import ids

from . import definitions  # noqa: F401  (the definitions register themselves on import)
from .schema import (  # noqa: F401  (the registry and the schema helpers, named here for callers)
    CLIENT,
    CONTROL,
    FAMILIES,
    ID_MARK,
    LIVE,
    OUTBOX,
    STATUS_MARK,
    EventType,
    Vocabulary,
    define,
    family_schema,
    get,
    message_schema,
    require,
    types,
    vocabulary,
    vocabulary_get,
)

logger = logging.getLogger(__name__)


# --- rendering into a family ------------------------------------------------------------------


def _render_id(value: Any, kind: str, family: str) -> Any:
    parsed = ids.parse(value, kind) if isinstance(value, str) else None
    if parsed is None:  # not an id (left as sent, so the mismatch is visible, not hidden)
        return value
    return ids.render(parsed, kind) if family == "v1" else str(parsed)


def render_value(value: Any, schema: Mapping[str, Any], family: str) -> Any:
    """`value` (internal form) as `family` reads it, following `schema`."""
    if value is None:
        return None
    if ID_MARK in schema:
        return _render_id(value, schema[ID_MARK], family)
    if STATUS_MARK in schema:
        return vocabulary_get(schema[STATUS_MARK]).word(value, family) if isinstance(value, str) else value
    if isinstance(value, dict) and "properties" in schema:
        properties = schema["properties"]
        return {k: render_value(v, properties[k], family) if k in properties else v for k, v in value.items()}
    if isinstance(value, list) and "items" in schema:
        return [render_value(v, schema["items"], family) for v in value]
    return value


#: the last messages rendered, per family: an organization's sockets in one process receive the
#: same message, rendered once (about 80 us a message here, 40 ms for 500 sockets otherwise)
_rendered: dict[tuple, dict[str, Any]] = {}
#: the same messages as JSON text, per family: a socket sends these bytes as they are
_texts: dict[tuple, str] = {}
RENDERED_KEPT = 512
_undefined_seen: set[Any] = set()


def _memo_key(payload: Mapping[str, Any], family: str) -> tuple | None:
    """One message's identity: its type, its send time (to the microsecond) and its object."""
    data = payload.get("data")
    if not payload.get("sentAt") or not isinstance(data, Mapping):
        return None  # the socket's own replies: few, and not shared
    subject = data.get("id") or data.get("contentId") or data.get("batchId") or data.get("profileId")
    return (family, payload.get("type"), payload["sentAt"], str(subject), data.get("progress"))


def render(payload: Mapping[str, Any], family: str) -> dict[str, Any]:
    """A websocket message `{type, data, sentAt}` in `family`'s ids and statuses (the returned
    dict may be shared by every socket of the family: do not change it)."""
    event_type = get(str(payload.get("type")))
    if event_type is None:
        if payload.get("type") not in _undefined_seen:  # once a type and process, not per socket
            _undefined_seen.add(payload.get("type"))
            logger.warning("websocket message of undefined type %r sent as is", payload.get("type"))
        return dict(payload)
    key = _memo_key(payload, family)
    found = _rendered.get(key) if key is not None else None
    if found is not None:
        return found
    rendered = {**payload, "data": render_value(payload.get("data") or {}, event_type.sent_schema, family)}
    if key is not None:
        if len(_rendered) >= RENDERED_KEPT:
            _rendered.clear()
        _rendered[key] = rendered
    return rendered


def render_text(payload: Mapping[str, Any], family: str) -> str:
    """`render(payload, family)` as the JSON text a socket sends: an event is rendered and
    encoded once per family and process, and its text sent as it is to every socket of that
    family (before, each of an organization's 500 sockets encoded its own copy)."""
    key = _memo_key(payload, family)
    found = _texts.get(key) if key is not None else None
    if found is not None:
        return found
    text = json.dumps(render(payload, family))
    if key is not None:
        if len(_texts) >= RENDERED_KEPT:
            _texts.clear()
        _texts[key] = text
    return text
