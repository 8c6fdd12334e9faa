"""The AsyncAPI 3.0 documents of /ws/events/, one per family, generated from apps.events.catalog.

Served next to each family's OpenAPI schema: `/v1/asyncapi/` and `/api/asyncapi/` (JSON), and
read as a page at `/v1/asyncapi/docs/` and `/api/asyncapi/docs/` (rendered here on the server:
no script, nothing from a CDN). The document describes the service: it `send`s the events and
the socket's replies, and `receive`s a client's actions.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from . import catalog

VERSION = "1.0.0"
CHANNEL = "events"
ADDRESS = "/ws/events/"

_FAMILY = {
    "v1": {
        "title": "Postforge events (Family A: /v1, API keys)",
        "credential": "an API key (`pf_live_...`)",
        "ids": "prefixed ids (`cnt_...`, `prf_...`, `evt_...`) and Family A's status words "
        "(`generated` for content ready for review), as GET /v1/... answers them",
        "openapi": "/v1/schema/",
        "docs": "/v1/docs/",
    },
    "api": {
        "title": "Postforge events (Family B: /api, organization tokens)",
        "credential": "an organization token (a JWT), or an API key with `family=api`",
        "ids": "UUIDs and Family B's status words (`reviewing` for content ready for review), "
        "as GET /api/... answers them",
        "openapi": "/api/schema/",
        "docs": "/api/docs/",
    },
}


def _key(name: str) -> str:
    return name.replace(".", "_")


def _description(family: str) -> str:
    facts = _FAMILY[family]
    return (
        f"Live updates over one websocket, `{ADDRESS}`. Authenticate with {facts['credential']} in "
        "`?token=` or as a `Sec-WebSocket-Protocol` value (`bearer, <token>`). The socket joins "
        "the organization's stream; send `subscribe` with a `contentId` or `batchId` to follow one "
        f"object. Every message carries {facts['ids']}: the same ids and statuses the REST API "
        "answers for the same object at the same moment. Outbox events (those with an `id`) are "
        "also delivered to webhooks; `content.generation.progress` is live only. One subject's events "
        "(a content item's, with its publications'; else a batch's, profile's, brand's or webhook's) "
        "are sent in the order they were committed, each with the subject's next `sequence` and its "
        "`occurredAt`: drop a frame whose `sequence` is not above the last one applied for its "
        "subject. A revoked key or "
        "an expired token closes the socket with 4401; too many sockets per credential or "
        "organization, 4429; an unknown `family`, 4400."
    )


def document(family: str, *, host: str | None = None, secure: bool | None = None) -> dict[str, Any]:
    """The AsyncAPI 3.0 document of `family` ("v1" or "api") as served on `host` (default: the
    host of PUBLIC_BASE_URL). Its links are absolute, as AsyncAPI requires of a URL (the
    official parser refuses a relative `externalDocs.url`)."""
    if family not in catalog.FAMILIES:
        raise ValueError(family)
    public = urlsplit(settings.PUBLIC_BASE_URL)
    if host is None:
        host, secure = public.netloc, public.scheme == "https" if secure is None else secure
    base = f"{'https' if secure else 'http'}://{host}"
    types = catalog.types()
    sent = [t for t in types if t.source != catalog.CLIENT]
    received = [t for t in types if t.source == catalog.CLIENT]
    return {
        "asyncapi": "3.0.0",
        "id": f"urn:postforge:events:{family}",
        "info": {
            "title": _FAMILY[family]["title"],
            "version": VERSION,
            "description": _description(family),
            "externalDocs": {
                "description": "The REST API of this family",
                "url": base + _FAMILY[family]["docs"],
            },
        },
        "defaultContentType": "application/json",
        "servers": {
            "postforge": {
                "host": host,
                "protocol": "wss" if secure else "ws",
                "description": "This service (HTTP and websockets on one port).",
                "security": [{"$ref": "#/components/securitySchemes/token"}],
            }
        },
        "channels": {
            CHANNEL: {
                "address": ADDRESS,
                "title": "Organization events",
                "description": "The organization's stream, or one content item's or batch's after `subscribe`.",
                "servers": [{"$ref": "#/servers/postforge"}],
                "messages": {_key(t.name): {"$ref": f"#/components/messages/{_key(t.name)}"} for t in types},
                "bindings": {
                    "ws": {
                        "query": {
                            "type": "object",
                            "properties": {
                                "token": {"type": "string", "description": "The credential."},
                                "family": {
                                    "type": "string",
                                    "enum": list(catalog.FAMILIES),
                                    "description": "Whose ids and statuses to read (default: v1 for an "
                                    "API key, api for a token).",
                                },
                            },
                        },
                        "bindingVersion": "0.1.0",
                    }
                },
            }
        },
        "operations": {
            "sendEvents": {
                "action": "send",
                "channel": {"$ref": f"#/channels/{CHANNEL}"},
                "summary": "Events, progress and the socket's replies, sent to the client.",
                "messages": [{"$ref": f"#/channels/{CHANNEL}/messages/{_key(t.name)}"} for t in sent],
            },
            "receiveActions": {
                "action": "receive",
                "channel": {"$ref": f"#/channels/{CHANNEL}"},
                "summary": "What a client may send: subscribe, unsubscribe, ping.",
                "messages": [{"$ref": f"#/channels/{CHANNEL}/messages/{_key(t.name)}"} for t in received],
            },
        },
        "components": {
            "messages": {
                _key(t.name): {
                    "name": t.name,
                    "title": t.name,
                    "summary": t.summary,
                    "contentType": "application/json",
                    "payload": {"$ref": f"#/components/schemas/{_key(t.name)}"},
                    "x-postforge-source": t.source,
                }
                for t in types
            },
            "schemas": {_key(t.name): catalog.message_schema(t, family) for t in types},
            "securitySchemes": {
                "token": {
                    "type": "httpApiKey",
                    "name": "token",
                    "in": "query",
                    "description": f"{_FAMILY[family]['credential']}; or as a Sec-WebSocket-Protocol value.",
                }
            },
        },
    }


def _request_document(request: HttpRequest, family: str) -> dict[str, Any]:
    return document(family, host=request.get_host(), secure=request.is_secure())


@require_safe
def asyncapi_json(request: HttpRequest, family: str) -> HttpResponse:
    return JsonResponse(_request_document(request, family), json_dumps_params={"indent": 2})


# --- the page ---------------------------------------------------------------------------------


def _code(text: str) -> SafeString:
    """`text` escaped, its `backticked` words set as code (the documents' descriptions)."""
    parts = escape(text).split("`")
    return mark_safe("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))  # noqa: S308


def _type_of(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "")
    text = " or ".join(kind) if isinstance(kind, list) else str(kind)
    if kind == "array":
        text = f"array of {_type_of(schema.get('items') or {})}"
    return text


def _constraint(schema: dict[str, Any]) -> str:
    if "const" in schema:
        return f"= {json.dumps(schema['const'])}"
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if "pattern" in schema:
        return f"e.g. {schema['examples'][0]}" if schema.get("examples") else f"matches {schema['pattern']}"
    if schema.get("format"):
        return str(schema["format"])
    return ""


def _rows(schema: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    """One row per field, nested fields as `items[].contentId`."""
    rows = []
    required = set(schema.get("required") or [])
    for name, field in (schema.get("properties") or {}).items():
        path = f"{prefix}{name}"
        rows.append(
            {
                "name": path,
                "type": _type_of(field),
                "required": name in required,
                "constraint": _constraint(field) or _constraint(field.get("items") or {}),
                "description_html": _code(field.get("description", "")),
            }
        )
        if field.get("type") == "object":
            rows += _rows(field, f"{path}.")
        items = field.get("items") or {}
        if items.get("type") == "object":
            rows += _rows(items, f"{path}[].")
    return rows


@require_safe
def asyncapi_page(request: HttpRequest, family: str) -> HttpResponse:
    doc = _request_document(request, family)
    schemas = doc["components"]["schemas"]
    # messages with the same payload (the ten content events) share one table
    sections: dict[str, dict[str, Any]] = {}
    for key, message in doc["components"]["messages"].items():
        schema = schemas[key]
        data = schema["properties"]["data"] if "data" in schema.get("properties", {}) else schema
        shape = message["x-postforge-source"] + json.dumps(data, sort_keys=True)
        section = sections.setdefault(
            shape,
            {
                "source": message["x-postforge-source"],
                "names": [],
                "rows": _rows(data),
                "schema_json": json.dumps(schema, indent=2),
            },
        )
        section["names"].append(
            {"key": key, "name": message["name"], "summary_html": _code(message["summary"])}
        )
    titles = {
        catalog.OUTBOX: "Events",
        catalog.LIVE: "Live progress",
        catalog.CONTROL: "The socket's replies",
        catalog.CLIENT: "What a client sends",
    }
    groups = [
        (title, [s for s in sections.values() if s["source"] == source]) for source, title in titles.items()
    ]
    server = doc["servers"]["postforge"]
    return render(
        request,
        "events/asyncapi.html",
        {
            "doc": doc,
            "family": family,
            "facts": _FAMILY[family],
            "description": _code(doc["info"]["description"]),
            "url": f"{server['protocol']}://{server['host']}{ADDRESS}",
            "groups": groups,
            "json_url": f"/{family}/asyncapi/",
        },
    )
