"""OpenAPI for both families, written once: bearer auth, envelopes, errors, paging
parameters and rate-limit headers are added here rather than on every view."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerScheme(OpenApiAuthenticationExtension):
    target_class = "apps.core.auth.ApiKeyAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "API key: `Authorization: Bearer pf_live_...`"}


class BearerOrJWTScheme(OpenApiAuthenticationExtension):
    target_class = "apps.core.auth.ApiKeyOrJWTAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "Identity-provider JWT (RS256/ES256) or API key: `Authorization: Bearer <token>`",
        }


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
                "code": {"type": "string", "enum": ["AUTHENTICATION_ERROR", "AUTHORIZATION_ERROR", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT", "RATE_LIMIT_ERROR", "PLATFORM_ERROR", "SERVER_ERROR", "METHOD_NOT_ALLOWED"]},
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
        "page": {"type": "integer"}, "limit": {"type": "integer"}, "total": {"type": "integer"},
        "pages": {"type": "integer"}, "nextCursor": {"type": "string", "nullable": True}, "hasMore": {"type": "boolean"},
    },
    "required": ["limit"],
}
PAGINATION_B = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer"}, "offset": {"type": "integer"}, "total": {"type": "integer"},
        "hasNext": {"type": "boolean"}, "hasPrev": {"type": "boolean"},
    },
    "required": ["limit", "offset", "total", "hasNext", "hasPrev"],
}


def _param(name, schema, description=""):
    return {"in": "query", "name": name, "required": False, "schema": schema, "description": description}


LIST_PARAMS_A = [
    _param("page", {"type": "integer", "minimum": 1, "default": 1}),
    _param("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
    _param("cursor", {"type": "string"}, "Keyset paging: send it empty for the first page, then nextCursor"),
    _param("sortBy", {"type": "string"}),
    _param("sortOrder", {"type": "string", "enum": ["asc", "desc"]}),
    _param("fields", {"type": "string"}, "Comma-separated field names"),
]
LIST_PARAMS_B = [
    _param("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
    _param("offset", {"type": "integer", "minimum": 0}),
    _param("page", {"type": "integer", "minimum": 1}),
    _param("sort", {"type": "string"}, "<field>:<asc|desc>"),
    _param("q", {"type": "string"}),
    _param("search", {"type": "string"}),
    _param("date_from", {"type": "string", "format": "date-time"}),
    _param("date_to", {"type": "string", "format": "date-time"}),
]

ERROR_STATUSES = {
    "400": "Invalid request", "401": "Missing or invalid credentials", "403": "Insufficient permissions",
    "404": "Not found", "409": "Conflict", "413": "Payload too large", "422": "Unprocessable (Family B)",
    "429": "Rate limit exceeded", "500": "Unexpected server error (reported with the request id)",
}
#: per family: title, base path (a generated client's base_url is the site root)
FAMILY_INFO = {
    "v1": ("Postforge API (Family A, /v1)", "/v1"),
    "api": ("Postforge API (Family B, /api)", "/api"),
}
LICENSE = {"name": "AGPL-3.0-or-later", "url": "https://www.gnu.org/licenses/agpl-3.0.html"}
BODY_METHODS = ("post", "put", "patch")


def _family_a_partial(result) -> None:
    """Every Family A response honours `fields=` (only the named fields come back), so a
    response object guarantees only its `id`: a typed client must parse a partial object."""
    components = result["components"]["schemas"]
    seen: set[str] = set()

    def walk(node):
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


def postprocess(result, generator, request, public):
    """Wrap bodies in each family's envelope and declare errors and headers everywhere."""
    paths = result.get("paths", {})
    family = "api" if any(p.startswith("/api/") for p in paths) else "v1"
    title, base = FAMILY_INFO[family]
    info = result.setdefault("info", {})
    info.update({"title": title, "version": "1.0.0", "license": LICENSE})
    # paths are relative to the server's base path (a client's base_url ends in /v1 or /api)
    result["servers"] = [{"url": base, "description": "This server"}]
    result["paths"] = paths = {(p[len(base):] if p.startswith(base + "/") else p): i for p, i in paths.items()}
    if family == "v1":
        _family_a_partial(result)
    components = result.setdefault("components", {}).setdefault("schemas", {})
    # request bodies come from StrictSerializer: an unknown field is a 400, so say so
    for name, component in components.items():
        if name.endswith("Request") and "properties" in component:
            component.setdefault("additionalProperties", False)
    # each schema carries its own family's envelopes only (no unused components)
    if family == "api":
        components.update({"ErrorB": ERROR_B, "PaginationB": PAGINATION_B})
    else:
        components.update({"ErrorA": ERROR_A, "PaginationA": PAGINATION_A})
    for path, item in result.get("paths", {}).items():
        family_b = family == "api"
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            is_list = False
            json_body = False  # a 2xx answers JSON the family's `respond` built (so `fields=` applies in A)
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
                if schema.get("type") == "array":
                    is_list = True
                    pagination = {"$ref": "#/components/schemas/PaginationB" if family_b else "#/components/schemas/PaginationA"}
                    content["schema"] = {"type": "object", "required": ["data", "pagination"],
                                         "properties": {"data": schema, "pagination": pagination}}
                elif family_b:
                    content["schema"] = {"type": "object", "required": ["data"], "properties": {"data": schema}}
            if is_list and method == "get":
                existing = {p["name"] for p in op.get("parameters", [])}
                op.setdefault("parameters", []).extend(
                    p for p in (LIST_PARAMS_B if family_b else LIST_PARAMS_A) if p["name"] not in existing
                )
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
            for param in op.get("parameters", []):
                if param.get("in") == "query" and param["name"] == "wait":  # (0, 60]: the server refuses others
                    param["schema"] = {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 60}
            if family_b:  # Family B ids are UUIDs
                for param in op.get("parameters", []):
                    if param.get("in") == "path" and param["name"] in ("id", "brand_pk", "pk"):
                        param["schema"] = {"type": "string", "format": "uuid"}
            op.setdefault("summary", _summary(op, method, path))
            if not op.get("tags"):
                op["tags"] = [path.strip("/").split("/")[0] or family]
            if method in BODY_METHODS and op.get("requestBody"):
                op["responses"].setdefault(
                    "415", {"description": "Unsupported media type", "content": {"application/json": {"schema": ref}}}
                )
            if not family_b and method in ("get", *BODY_METHODS) and (json_body or method != "get"):
                existing = {p["name"] for p in op.get("parameters", [])}
                if "fields" not in existing:
                    op.setdefault("parameters", []).append(LIST_PARAMS_A[-1])
            if method == "post":
                existing = {p["name"] for p in op.get("parameters", [])}
                if "Idempotency-Key" not in existing:
                    op.setdefault("parameters", []).append(
                        {"in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string", "maxLength": 255},
                         "description": "Replays the first response for 24 h"}
                    )
    return result


def _summary(op, method, path) -> str:
    """A short human summary from the operation id (`api_brands_logo_post` -> "Brands logo post")."""
    words = op.get("operationId", f"{method} {path}").split("_")
    if words and words[0] in ("v1", "api"):
        words = words[1:]
    text = " ".join(words).strip() or f"{method.upper()} {path}"
    return text[:1].upper() + text[1:]
