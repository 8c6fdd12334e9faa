"""OpenAPI for both families, written once: bearer auth, envelopes, errors, paging
parameters and rate-limit headers are added here rather than on every view."""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

import jsonschema
from django.core.validators import RegexValidator
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import Direction
from rest_framework import serializers
from rest_framework.pagination import BasePagination

from .pagination import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_PAGE
from .schema_inputs import truthful_inputs
from .schema_links import add_links
from .serializers import StrictSerializer

if TYPE_CHECKING:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.plumbing import ComponentRegistry
    from rest_framework.request import Request

#: an OpenAPI object (the schema, an operation, a component, a parameter) as drf-spectacular
#: builds it: JSON, read and rewritten by key
Schema: TypeAlias = dict[str, Any]


class PostforgeAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, telling `postprocess` the sort fields of each list: a
    view's `sort_fields`, or `action_sort_fields[action]` where one action lists other objects;
    an action in the view's `unpaged_actions` answers the whole list (no paging, sort or search)."""

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: ComponentRegistry
    ) -> Schema | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is not None:
            fields = getattr(self.view, "action_sort_fields", {}).get(getattr(self.view, "action", None))
            fields = fields or getattr(self.view, "sort_fields", None)
            output = getattr(self.view, "output_serializer", None)
            if output is not None:  # Family A's `fields=` names these (apps.core.views.wanted_fields)
                operation["x-postforge-fields"] = list(output().fields)
            if getattr(self.view, "action", None) in getattr(self.view, "unpaged_actions", ()):
                operation["x-postforge-sort"] = None
            elif fields:
                operation["x-postforge-sort"] = list(fields)
        return operation

    # --- a list's query parameters come from its view's FilterSet, sort and pagination -------
    def _paged(self) -> bool:
        """A GET that answers a page of a list (not an action in `unpaged_actions`)."""
        return (
            self.method == "GET"
            and self._is_list_view()
            and getattr(self.view, "action", None) not in getattr(self.view, "unpaged_actions", ())
        )

    def get_filter_backends(self) -> list[Any]:
        if not self._paged():
            return []
        backends = list(getattr(self.view, "filter_backends", []))
        if getattr(self.view, "queryset", None) is None:  # no model to read the FilterSet against
            backends = [b for b in backends if not issubclass(b, DjangoFilterBackend)]
        return backends

    def _get_paginator(self) -> None:
        return None  # the families' envelopes are written by `postprocess`, not as Paginated* components

    def _get_pagination_parameters(self) -> list[Schema]:
        pagination_class: type[BasePagination] | None = getattr(self.view, "pagination_class", None)
        if not self._paged() or pagination_class is None:
            return []
        return pagination_class().get_schema_operation_parameters(self.view)

    def _map_basic_serializer(
        self, serializer: serializers.BaseSerializer[Any], direction: Direction
    ) -> Schema:
        schema: Schema = super()._map_basic_serializer(serializer, direction)
        # a rule between fields that `validate()` enforces, in JSON Schema (anyOf, not, minProperties)
        rules = getattr(serializer, "openapi_rules", None)
        if direction == "request" and rules:
            schema.update(rules)
        # what a service checks about one field's text (a URL's scheme, an origin's shape)
        for name, extra in (getattr(serializer, "openapi_fields", None) or {}).items():
            if direction == "request" and name in schema.get("properties", {}):
                if "$ref" in extra:  # a shared component instead (a $ref takes no siblings in OpenAPI 3.0)
                    schema["properties"][name] = dict(extra)
                else:
                    schema["properties"][name].update(extra)
        return schema

    def _map_serializer_field(
        self,
        field: serializers.Field[Any, Any, Any, Any],
        direction: Direction,
        bypass_extensions: bool = False,
    ) -> Schema:
        schema: Schema = super()._map_serializer_field(field, direction, bypass_extensions)
        # DRF trims a CharField's input and refuses it blank: "at least one non-space character"
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and field.trim_whitespace
            and not field.allow_blank
            and schema.get("type") == "string"
            and not {"pattern", "format", "enum"} & set(schema)
            # a RegexField's own pattern is added after this mapping (and must win)
            and not any(isinstance(v, RegexValidator) for v in field.validators)
        ):
            schema["pattern"] = NOT_BLANK
        return schema


#: "at least one character DRF's trim keeps": the class of what `str.strip` removes
#: (`str.isspace`), which ECMAScript's `\S` does not match exactly (it keeps U+001C-U+001F and
#: U+0085, which Python strips, and drops U+FEFF, which Python keeps)
NOT_BLANK = "[^" + "".join(f"\\u{n:04x}" for n in range(0x10000) if chr(n).isspace()) + "]"


class NamedChoiceFieldExtension(OpenApiSerializerFieldExtension):
    """A name the service normalizes: its canonical values as an enum (aliases still accepted)."""

    target_class = "apps.core.serializers.NamedChoiceField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> Schema:
        return {"type": "string", "enum": list(self.target.schema_choices)}


class OfferedChoiceFieldExtension(OpenApiSerializerFieldExtension):
    """Only the choices a request can succeed with (the others are the service's 400)."""

    target_class = "apps.core.serializers.OfferedChoiceField"

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> Schema:
        return {"type": "string", "enum": list(self.target.offered)}


_INT = {"type": "integer"}
RATE_HEADERS = {
    "X-RateLimit-Limit": {"schema": _INT, "description": "Requests allowed in the current window"},
    "X-RateLimit-Remaining": {"schema": _INT, "description": "Requests left in the current window"},
    "X-RateLimit-Reset": {"schema": _INT, "description": "Epoch seconds when the window resets"},
    "X-Request-ID": {"schema": {"type": "string"}, "description": "Request id, echoed in error bodies (A)"},
}

ERROR_A = {
    "type": "object",
    "required": ["error", "requestId"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "details"],
            "properties": {
                "code": {
                    "type": "string",
                    "enum": [
                        "AUTHENTICATION_ERROR",
                        "AUTHORIZATION_ERROR",
                        "VALIDATION_ERROR",
                        "NOT_FOUND",
                        "CONFLICT",
                        "RATE_LIMIT_ERROR",
                        "PLATFORM_ERROR",
                        "SERVER_ERROR",
                        "METHOD_NOT_ALLOWED",
                        "SERVICE_UNAVAILABLE",
                    ],
                },
                "message": {"type": "string"},
                "details": {"type": "object", "additionalProperties": True},
            },
        },
        "requestId": {"type": "string"},
    },
}
ERROR_B = {
    "type": "object",
    "required": ["error", "details"],
    "properties": {"error": {"type": "string"}, "details": {"type": "object", "additionalProperties": True}},
}
PAGINATION_A = {
    "type": "object",
    "properties": {
        "page": {"type": "integer"},
        "limit": {"type": "integer"},
        "total": {"type": "integer"},
        "pages": {"type": "integer"},
        "nextCursor": {"type": "string", "nullable": True},
        "hasMore": {"type": "boolean"},
    },
    "required": ["limit"],
}
PAGINATION_B = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer"},
        "offset": {"type": "integer"},
        "total": {"type": "integer"},
        "hasNext": {"type": "boolean"},
        "hasPrev": {"type": "boolean"},
    },
    "required": ["limit", "offset", "total", "hasNext", "hasPrev"],
}


def _param(name: str, schema: Schema, description: str = "") -> Schema:
    return {"in": "query", "name": name, "required": False, "schema": schema, "description": description}


LIST_PARAMS_A = [
    _param("page", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1}),
    _param("limit", {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}),
    _param("cursor", {"type": "string"}, "Keyset paging: send it empty for the first page, then nextCursor"),
    _param("sortBy", {"type": "string"}),
    _param("sortOrder", {"type": "string", "enum": ["asc", "desc"]}),
    _param("fields", {"type": "string"}, "Comma-separated field names"),
]
LIST_PARAMS_B = [
    _param("limit", {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}),
    _param(
        "offset", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}, "Takes precedence over `page`"
    ),
    _param("page", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1}),
    _param("sort", {"type": "string"}, "<field>:<asc|desc>"),
    _param("q", {"type": "string"}),
    _param("search", {"type": "string"}),
    _param("date_from", {"type": "string", "format": "date-time"}),
    _param("date_to", {"type": "string", "format": "date-time"}),
]

#: the search and date filters of Family B's FilterSets (apps.core.filters.FamilyFilterSet)
LIST_FILTERS_B = frozenset({"q", "search", "date_from", "date_to"})

ERROR_STATUSES = {
    "400": "Invalid request",
    "401": "Missing or invalid credentials",
    "403": "Insufficient permissions",
    "404": "Not found",
    "409": "Conflict",
    "413": "Payload too large",
    "422": "Unprocessable (Family B)",
    "429": "Rate limit exceeded",
    "500": "Unexpected server error (reported with the request id)",
    "503": "The database is unavailable for a moment (a restart, a failover): retry after Retry-After seconds",
}
#: per family: title, base path (a generated client's base_url is the site root)
FAMILY_INFO = {
    "v1": ("Postforge API (Family A, /v1)", "/v1"),
    "api": ("Postforge API (Family B, /api)", "/api"),
}
LICENSE = {"name": "AGPL-3.0-or-later", "url": "https://www.gnu.org/licenses/agpl-3.0.html"}
BODY_METHODS = ("post", "put", "patch")
#: drf-spectacular describes a serializer without a docstring with its base class's
INHERITED_DOC = inspect.cleandoc(StrictSerializer.__doc__ or "")


def _family_a_partial(result: Schema) -> None:
    """Every Family A response honours `fields=` (only the named fields come back), so a
    response object guarantees only its `id`: a typed client must parse a partial object."""
    components = result["components"]["schemas"]
    seen: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in seen and name in components:
                    seen.add(name)
                    walk(components[name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for item in result.get("paths", {}).values():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            for status, response in op.get("responses", {}).items():
                if status.startswith("2"):
                    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
                    ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
                    if ref and ref.startswith("#/components/schemas/"):
                        name = ref.rsplit("/", 1)[1]
                        top = components.get(name)
                        if top is not None and "id" in top.get("properties", {}):
                            top["required"] = ["id"]


def postprocess(result: Schema, generator: SchemaGenerator, request: Request | None, public: bool) -> Schema:
    """Wrap bodies in each family's envelope and declare errors and headers everywhere."""
    paths = result.get("paths", {})
    family = "api" if any(p.startswith("/api/") for p in paths) else "v1"
    title, base = FAMILY_INFO[family]
    info = result.setdefault("info", {})
    info.update({"title": title, "version": "1.0.0", "license": LICENSE})
    if "/asyncapi/" not in info.get("description", ""):  # the websocket's document, next to this one
        info["description"] = (
            f"{info.get('description', '')}\n\nLive updates over the websocket `/ws/events/`, in this "
            f"family's ids and statuses: [its AsyncAPI 3.0 document](/{family}/asyncapi/docs/) "
            f"([JSON](/{family}/asyncapi/))."
        ).strip()
    # paths are relative to the server's base path (a client's base_url ends in /v1 or /api)
    result["servers"] = [{"url": base, "description": "This server"}]
    result["paths"] = paths = {
        (p[len(base) :] if p.startswith(base + "/") else p): i for p, i in paths.items()
    }
    if family == "v1":
        _family_a_partial(result)
    components = _components(result, family)
    for path, item in result.get("paths", {}).items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                _operation(op, method, path, family, components)
    truthful_inputs(result, family)
    _plain_enum_refs(result, components)
    _examples(result, family)
    add_links(result)
    return result


def _components(result: Schema, family: str) -> Schema:
    """The schemas' components: request bodies closed to unknown fields, and the family's
    envelopes (each schema carries its own family's only: no unused components)."""
    components: Schema = result.setdefault("components", {}).setdefault("schemas", {})
    # request bodies come from StrictSerializer: an unknown field is a 400, so say so
    for name, component in components.items():
        if component.get("description") == INHERITED_DOC:  # StrictSerializer's docstring, not the input's
            del component["description"]
        if name.endswith("Request") and "properties" in component:
            component.setdefault("additionalProperties", False)
            _defaults_to_descriptions(component)
    if family == "api":
        components.update({"ErrorB": ERROR_B, "PaginationB": PAGINATION_B})
    else:
        components.update({"ErrorA": ERROR_A, "PaginationA": PAGINATION_A})
    return components


def _operation(op: Schema, method: str, path: str, family: str, components: Schema) -> None:
    """One operation in its family's words: envelopes, list parameters, errors, parameter
    schemas, its request body, `fields=` (A) and the Idempotency-Key of a POST."""
    family_b = family == "api"
    is_list, json_body = _envelopes(op, method, family_b)
    field_names = op.pop("x-postforge-fields", None) or (None if is_list else _answer_fields(op, components))
    unpaged = "x-postforge-sort" in op and op["x-postforge-sort"] is None
    sort_fields = op.pop("x-postforge-sort", None)
    if is_list and method == "get" and not unpaged:
        _list_parameters(op, sort_fields, family_b)
    ref = _error_responses(op, family_b)
    _parameter_schemas(op, family_b)
    op.setdefault("summary", _summary(op, method, path))
    if not op.get("tags"):
        op["tags"] = [path.strip("/").split("/")[0] or family]
    _request_body(op, method, components, ref)
    if not family_b:
        _fields_parameter(op, method, json_body, field_names)
    if method == "post":
        existing = {p["name"] for p in op.get("parameters", [])}
        if "Idempotency-Key" not in existing:
            op.setdefault("parameters", []).append(
                {
                    "in": "header",
                    "name": "Idempotency-Key",
                    "required": False,
                    "schema": {"type": "string", "maxLength": 255},
                    "description": "Replays the first response for 24 h",
                }
            )


def _envelopes(op: Schema, method: str, family_b: bool) -> tuple[bool, bool]:
    """Each 2xx answer's headers and the family's envelope around its JSON body; returns (a
    paged list, a JSON body the family's `respond` built (so `fields=` applies in A))."""
    is_list = False
    json_body = False
    extra_headers = op.pop("x-postforge-headers", {})  # (op is this generation's own dict)
    for status, response in op.get("responses", {}).items():
        if not status.startswith("2"):
            continue
        response.setdefault("headers", {}).update({**RATE_HEADERS, **extra_headers})
        content = response.get("content", {}).get("application/json")
        if not content:
            continue
        schema = content["schema"]
        if schema.get("x-postforge-raw"):  # a body written whole by the view (a stream)
            content["schema"] = {k: v for k, v in schema.items() if k != "x-postforge-raw"}  # (shared dict)
            continue
        json_body = True
        if schema.get("type") == "array" and method != "get" and family_b:
            # a list a write answers (POST /api/content/multi-platform): `{data}`, no paging
            content["schema"] = {"type": "object", "required": ["data"], "properties": {"data": schema}}
        elif schema.get("type") == "array":
            is_list = True
            pagination = {
                "$ref": "#/components/schemas/PaginationB" if family_b else "#/components/schemas/PaginationA"
            }
            content["schema"] = {
                "type": "object",
                "required": ["data", "pagination"],
                "properties": {"data": schema, "pagination": pagination},
            }
        elif family_b:
            content["schema"] = {"type": "object", "required": ["data"], "properties": {"data": schema}}
    return is_list, json_body


def _list_parameters(op: Schema, sort_fields: list[str] | None, family_b: bool) -> None:
    """A paged list's paging, filter and sort parameters, with their bounds and enums."""
    standard = {p["name"]: p for p in (LIST_PARAMS_B if family_b else LIST_PARAMS_A)}
    if op.pop("x-postforge-no-filters", False):  # a list that reads no q/search/date_*
        standard = {k: v for k, v in standard.items() if k not in LIST_FILTERS_B}
    if sort_fields and family_b:
        standard["sort"] = _param(
            "sort", {"type": "string", "enum": sort_enum(sort_fields)}, "<field> or <field>:<asc|desc>"
        )
    elif sort_fields:
        standard["sortBy"] = _param("sortBy", {"type": "string", "enum": list(sort_fields)})
    params = op.setdefault("parameters", [])
    for i, param in enumerate(params):  # a view's own `page`/`limit`/`sort` take the bounds and enum
        if param.get("in") == "query" and param["name"] in standard and "enum" not in param["schema"]:
            params[i] = {**standard[param["name"]], **{k: v for k, v in param.items() if k == "description"}}
    existing = {p["name"] for p in params}
    params.extend(p for name, p in standard.items() if name not in existing)


def _error_responses(op: Schema, family_b: bool) -> Schema:
    """The family's error answers (422 in B only; 429 and 503 with their Retry-After); returns the
    reference to the family's error body."""
    ref = {"$ref": "#/components/schemas/ErrorB" if family_b else "#/components/schemas/ErrorA"}
    for status, description in ERROR_STATUSES.items():
        if status == "422" and not family_b:
            continue
        response = op["responses"].setdefault(status, {"description": description})
        response["content"] = {"application/json": {"schema": ref}}
        if status == "429":
            headers = {"Retry-After": {"schema": _INT}}
            if not family_b:
                headers["X-RateLimit-Retry-After"] = {"schema": _INT}
            response["headers"] = headers
        if status == "503":
            response["headers"] = {
                "Retry-After": {"schema": _INT, "description": "Seconds to wait before retrying"}
            }
    return ref


def _parameter_schemas(op: Schema, family_b: bool) -> None:
    """Family B's path ids are UUIDs."""
    if family_b:
        for param in op.get("parameters", []):
            if param.get("in") == "path" and param["name"] in ("id", "brand_pk", "pk"):
                param["schema"] = {"type": "string", "format": "uuid"}


def _request_body(op: Schema, method: str, components: Schema, ref: Schema) -> None:
    """A body with required fields (an upload's `file` among them) is itself required: an empty
    one breaks those rules, a 400; a body method answers 415 to another media type."""
    body_ref = (
        op.get("requestBody", {})
        .get("content", {})
        .get("application/json", {})
        .get("schema", {})
        .get("$ref", "")
    )
    body_schema = components.get(body_ref.rsplit("/", 1)[1], {}) if body_ref else {}
    upload = op.get("requestBody", {}).get("content", {}).get("multipart/form-data", {})
    body_schema = body_schema or upload.get("schema", {})
    if _refuses_empty(body_schema):
        op["requestBody"]["required"] = True
    if method in BODY_METHODS and op.get("requestBody"):
        op["responses"].setdefault(
            "415", {"description": "Unsupported media type", "content": {"application/json": {"schema": ref}}}
        )


def _refuses_empty(body_schema: Schema) -> bool:
    """Whether an empty body breaks the body's own rules (a required field, `minProperties`, or a
    rule between fields such as publish's `not`: no `profiles` and no `options.crossPost`)."""
    rules = {
        k: v for k, v in body_schema.items() if k in ("required", "minProperties", "anyOf", "oneOf", "not")
    }
    return bool(rules) and not jsonschema.Draft4Validator(rules).is_valid({})


def _fields_parameter(op: Schema, method: str, json_body: bool, field_names: list[str] | None) -> None:
    """Family A's `fields=` on what answers JSON `respond` built, as a pattern of its fields."""
    if method in ("get", *BODY_METHODS) and (json_body or method != "get"):
        existing = {p["name"] for p in op.get("parameters", [])}
        if "fields" not in existing:
            op.setdefault("parameters", []).append(LIST_PARAMS_A[-1])
    if field_names:
        for i, param in enumerate(op.get("parameters", [])):
            if param.get("in") == "query" and param["name"] == "fields":
                op["parameters"][i] = {
                    **param,
                    "schema": {"type": "string", "pattern": fields_pattern(field_names)},
                    "description": f"Comma-separated, any of: {', '.join(field_names)}",
                }


#: request and response bodies recorded from real calls by tests/core/test_openapi_examples.py
EXAMPLES_FILE = Path(__file__).with_name("openapi_examples.json")


@functools.cache
def _recorded_examples() -> Schema:
    return json.loads(EXAMPLES_FILE.read_text()) if EXAMPLES_FILE.exists() else {}


def _examples(result: Schema, family: str) -> None:
    """Put the recorded examples on their operations (keyed by operation id)."""
    recorded = _recorded_examples().get(family, {})
    for item in result.get("paths", {}).values():
        for op in item.values():
            example = recorded.get(op.get("operationId")) if isinstance(op, dict) else None
            if not example:
                continue
            if "request" in example:
                body = op.get("requestBody", {}).get("content", {}).get("application/json")
                if body is not None:
                    body["example"] = example["request"]
            for status, body in example.get("responses", {}).items():
                content = op.get("responses", {}).get(status, {}).get("content", {}).get("application/json")
                if content is not None:
                    content["example"] = body


def _answer_fields(op: Schema, components: Schema) -> list[str] | None:
    """The top-level names of a 2xx JSON answer declared by a component (what a view without
    an `output_serializer` checks `fields=` against: the keys of its answer)."""
    for status, response in op.get("responses", {}).items():
        ref = response.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
        if status.startswith("2") and ref.startswith("#/components/schemas/"):
            properties = components.get(ref.rsplit("/", 1)[1], {}).get("properties")
            if properties:
                return list(properties)
    return None


def _defaults_to_descriptions(component: Schema) -> None:
    """A request field the server fills in when it is left out says so in words, not with
    `default`: openapi-typescript turns a `default` into a *required* property (its
    defaultNonNullable), so a generated TypeScript body would have to send it."""
    for prop in component["properties"].values():
        if isinstance(prop, dict) and "default" in prop and "readOnly" not in prop:
            value = prop.pop("default")
            shown = str(value).lower() if isinstance(value, bool) else value
            prop["description"] = (prop.get("description", "") + f" Default: `{shown}`.").strip()


def _plain_enum_refs(node: object, components: Schema) -> None:
    """`{allOf: [$ref Enum], minLength, maxLength}` (a NamedChoiceField's server-side length
    beside its enum) becomes the bare `$ref`: the enum already bounds the length."""
    if isinstance(node, dict):
        for key, value in list(node.items()):
            if (
                isinstance(value, dict)
                and len(value.get("allOf", ())) == 1
                and "$ref" in value["allOf"][0]
                and set(value) <= {"allOf", "minLength", "maxLength"}
                and "enum" in components.get(value["allOf"][0]["$ref"].rsplit("/", 1)[1], {})
            ):
                node[key] = value["allOf"][0]
            else:
                _plain_enum_refs(value, components)
    elif isinstance(node, list):
        for value in node:
            _plain_enum_refs(value, components)


def fields_pattern(names: Iterable[str]) -> str:
    """`fields=`: empty, or names of the resource separated by commas."""
    one = "(?:" + "|".join(re.escape(n) for n in names) + ")"
    return f"^(?:{one}(?:,{one})*)?$"


def sort_enum(fields: Iterable[str]) -> list[str]:
    """Family B's `sort`: `<field>`, `<field>:asc` or `<field>:desc`."""
    return [f"{f}{o}" for f in fields for o in ("", ":asc", ":desc")]


def _summary(op: Schema, method: str, path: str) -> str:
    """A short human summary from the operation id (`api_brands_logo_post` -> "Brands logo post")."""
    words = op.get("operationId", f"{method} {path}").split("_")
    if words and words[0] in ("v1", "api"):
        words = words[1:]
    text = " ".join(words).strip() or f"{method.upper()} {path}"
    return text[:1].upper() + text[1:]
