"""OpenAPI, what the server checks about the inputs the views declare as plain strings: ids
of other objects, dates, time zones, periods and cursors (a step of `apps.core.schema.postprocess`)."""

from __future__ import annotations

from typing import Any, TypeAlias

from . import ids, timezones

#: an OpenAPI object as drf-spectacular builds it (as in apps.core.schema)
Schema: TypeAlias = dict[str, Any]

#: a date (the whole day) or an instant: what `startDate`/`endDate` accept
DATE_OR_INSTANT = {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}
#: `period=<days>d`, 1 to 730 days (apps.analytics.parameters.parse_days)
PERIOD = {"type": "string", "pattern": "^(?:[1-9][0-9]?|[1-6][0-9]{2}|7[0-2][0-9]|730)d$"}
#: a `cursor` is the `nextCursor` of a previous page (base64url of its position), or empty
CURSOR = {"type": "string", "pattern": "^[A-Za-z0-9_-]*$"}
EMPTY = {"type": "string", "maxLength": 0}
#: query parameters django-filter declares as date-times that also take a date
DATE_FILTERS = frozenset({"date_from", "date_to"})
#: names of query parameters and body fields that hold the id of another object, and its kind
ID_FIELDS = {
    "brandId": "brand",
    "profileId": "profile",
    "socialProfileId": "profile",
    "profileIds": "profile",
    "profiles": "profile",
    "contentId": "content",
    "campaignId": "campaign",
    "tagId": "tag",
    "tagIds": "tag",
    "mediaId": "media",
    "referenceImageId": "media",
    "scheduleIds": "schedule",
}
#: Family A path ids: the kind of the id after each collection
PATH_KINDS = {
    "brands": "brand",
    "content": "content",
    "profiles": "profile",
    "webhooks": "webhook",
    "deliveries": "delivery",
    "redirect-origins": "redirect_origin",
    "assets": "asset",
    "media": "media",
    "tags": "tag",
    "campaigns": "campaign",
}


def id_schema(kind: str, family: str) -> Schema:
    """Family A names objects `<prefix>_<32 hex>`, Family B with canonical UUIDs (both accept both)."""
    if family == "api":
        return {"type": "string", "format": "uuid"}
    return {"type": "string", "pattern": f"^{ids.PREFIXES[kind]}_[0-9a-f]{{32}}$"}


def _plain_string(schema: object) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") == "string"
        and not {"enum", "format", "$ref"} & set(schema)
    )


def truthful_inputs(result: Schema, family: str) -> None:
    """Say what the server checks about inputs the views declare as plain strings: ids of
    other objects, dates, time zones, periods, cursors."""
    components = result["components"]["schemas"]
    # the IANA names the server accepts (and no other); `x-enum-varnames` keeps generated
    # clients from folding `Etc/GMT+1` and `Etc/GMT-1` into one enum key
    zones = timezones.timezones()
    components["Timezone"] = {
        "type": "string",
        "enum": list(zones),
        "x-enum-varnames": [timezones.enum_varname(z) for z in zones],
        "description": "An IANA time zone name, e.g. Europe/Paris",
    }
    by_name: dict[str, dict] = {
        "startDate": DATE_OR_INSTANT,
        "endDate": DATE_OR_INSTANT,
        # Family B's list filters (apps.core.filters.FamilyFilterSet): a date covers its whole day
        "date_from": DATE_OR_INSTANT,
        "date_to": DATE_OR_INSTANT,
        "period": PERIOD,
        "cursor": CURSOR,
        "timezone": {"$ref": "#/components/schemas/Timezone"},
    }
    for path, item in result.get("paths", {}).items():
        segments = path.strip("/").split("/")
        for op in item.values():
            if not isinstance(op, dict):
                continue
            for param in op.get("parameters", []):
                _truthful_parameter(param, segments, family, by_name)
    body_fields: dict[str, dict] = {
        "timezone": by_name["timezone"],
        # read by apps.publishing.services.parse_when (ISO 8601; a date is its midnight)
        "scheduledFor": DATE_OR_INSTANT,
    }
    for name, component in components.items():
        if name.endswith("Request"):
            _truthful_body(component, family, body_fields)


def _truthful_parameter(param: Schema, segments: list[str], family: str, by_name: dict[str, Schema]) -> None:
    """A query parameter's date, period, time zone, cursor or id; a Family A path id."""
    name, schema = param["name"], param.get("schema")
    if (
        param["in"] == "query"
        and (
            _plain_string(schema)
            or (name in DATE_FILTERS and isinstance(schema, dict) and schema.get("type") == "string")
        )
        and name != "cursor"
        and (name in by_name or name in ID_FIELDS)
    ):
        strict: dict = by_name.get(name) or id_schema(ID_FIELDS[name], family)
        # an empty value is read as a parameter left out (HTML forms send them), which
        # a required one cannot be
        empty = [] if param.get("required") else [EMPTY]
        options = [*strict.get("anyOf", [strict]), *empty]
        param["schema"] = {"anyOf": options} if len(options) > 1 else options[0]
    elif param["in"] == "query" and name == "cursor" and _plain_string(schema):
        param["schema"] = dict(CURSOR)
    elif param["in"] == "path" and family == "v1" and _plain_string(schema):
        at = segments.index("{" + name + "}") if "{" + name + "}" in segments else 0
        kind = PATH_KINDS.get(segments[at - 1]) if at else None
        if kind:
            param["schema"] = id_schema(kind, family)


def _truthful_body(component: Schema, family: str, body_fields: dict[str, Schema]) -> None:
    """A request body's time zone, scheduled time and ids of other objects."""
    for field, prop in component.get("properties", {}).items():
        if field in body_fields and _plain_string(prop):
            shape = body_fields[field]
            described = {} if "$ref" in shape else {k: v for k, v in prop.items() if k == "description"}
            component["properties"][field] = {**shape, **described}
            continue
        kind = ID_FIELDS.get(field)
        if not kind or not isinstance(prop, dict):
            continue
        extra = {k: v for k, v in prop.items() if k in ("nullable", "description", "readOnly", "writeOnly")}
        if _plain_string(prop):
            component["properties"][field] = {**id_schema(kind, family), **extra}
        elif prop.get("type") == "array" and _plain_string(prop.get("items")):
            prop["items"] = id_schema(kind, family)
