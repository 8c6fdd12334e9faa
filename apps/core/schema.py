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
                "code": {"type": "string", "enum": ["AUTHENTICATION_ERROR", "AUTHORIZATION_ERROR", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT", "RATE_LIMIT_ERROR", "PLATFORM_ERROR", "SERVER_ERROR"]},
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
    "429": "Rate limit exceeded",
}


def postprocess(result, generator, request, public):
    """Wrap bodies in each family's envelope and declare errors and headers everywhere."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components.update({"ErrorA": ERROR_A, "ErrorB": ERROR_B, "PaginationA": PAGINATION_A, "PaginationB": PAGINATION_B})
    for path, item in result.get("paths", {}).items():
        family_b = path.startswith("/api/")
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            is_list = False
            for status, response in op.get("responses", {}).items():
                if not status.startswith("2"):
                    continue
                response.setdefault("headers", {}).update(RATE_HEADERS)
                content = response.get("content", {}).get("application/json")
                if not content:
                    continue
                schema = content["schema"]
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
            if method == "post":
                existing = {p["name"] for p in op.get("parameters", [])}
                if "Idempotency-Key" not in existing:
                    op.setdefault("parameters", []).append(
                        {"in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string", "maxLength": 255},
                         "description": "Replays the first response for 24 h"}
                    )
    return result
