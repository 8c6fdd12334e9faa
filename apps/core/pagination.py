"""Paging for both families.

Family A: ``page``/``limit`` -> ``{data, pagination: {page, limit, total, pages}}``, or
keyset paging with ``cursor`` -> ``{data, pagination: {limit, nextCursor, ...}}``.
Family B: ``limit`` with ``offset`` or ``page`` -> ``{data, pagination: {limit, offset,
total, hasNext, hasPrev}}``.
"""

from __future__ import annotations

import base64
import datetime
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import F, Q, QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response

from .errors import ValidationFailed

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
#: the largest `page` and `offset` a list accepts (beyond them: 400)
MAX_PAGE = 1_000_000
MAX_OFFSET = 10_000_000


def _int_param(
    params: Mapping[str, str], name: str, default: int, *, minimum: int, maximum: int | None = None
) -> int:
    raw = params.get(name)
    if raw is None:
        return default
    # paging is typed: an empty value is not a number (filters, unlike paging, read an empty
    # value as the filter left out, as HTML forms send them)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ValidationFailed(f"'{name}' must be an integer.", {name: ["Must be an integer."]}) from None
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise ValidationFailed(f"'{name}' must be {bound}.", {name: [f"Must be {bound}."]})
    return value


def parse_limit(params: Mapping[str, str]) -> int:
    return _int_param(params, "limit", DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT)


@dataclass
class Page:
    items: list
    pagination: dict


def _nullable(qs: QuerySet, field: str) -> bool:
    try:
        return bool(qs.model._meta.get_field(field).null)
    except FieldDoesNotExist:  # an annotation or a related path: sorted as given
        return False


def order_for_paging(qs: QuerySet, field: str, direction: str) -> QuerySet:
    """``qs`` sorted by ``field`` then the primary key, both in ``direction``.

    A nullable sort field puts its empty values last when ascending and first when descending
    (they count as the largest value) on every database, as PostgreSQL does by default:
    SQLite, the embedded default's database, would put them the other way round. Page numbers
    and cursors walk this one order.
    """
    prefix = "-" if direction == "desc" else ""
    if not _nullable(qs, field):
        return qs.order_by(f"{prefix}{field}", f"{prefix}pk")
    column = F(field).desc(nulls_first=True) if direction == "desc" else F(field).asc(nulls_last=True)
    return qs.order_by(column, f"{prefix}pk")


def _require_ordered(qs: QuerySet) -> None:
    if not qs.ordered:
        raise RuntimeError("Paginating an unordered queryset gives unstable pages; order it first.")


# --- Family A -----------------------------------------------------------------------------


def _encode_cursor(values: list) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(values, default=str)).decode().rstrip("=")


def _decode_cursor(raw: str) -> list:
    try:
        padded = raw + "=" * (-len(raw) % 4)
        values = orjson.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(values, list) or len(values) != 2:
            raise ValueError
        return values
    except (ValueError, TypeError, orjson.JSONDecodeError):
        raise ValidationFailed("Invalid cursor.", {"cursor": ["Not a cursor this API returned."]}) from None


def _cursor_value(qs: QuerySet, field: str, value: object) -> object:
    """The cursor's sort value, as the sort field's type (a tampered cursor is a 400)."""
    from django.core.exceptions import ValidationError as DjangoValidationError

    if value is None:
        return None
    invalid = ValidationFailed("Invalid cursor.", {"cursor": ["Not a cursor this API returned."]})
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise invalid
    model_field = qs.model._meta.get_field(field)
    try:
        parsed = model_field.to_python(value)
        if isinstance(model_field, models.DateField | models.DateTimeField) and not isinstance(value, str):
            raise invalid
        model_field.get_prep_value(parsed)
    except (DjangoValidationError, ValueError, TypeError, OverflowError):
        raise invalid from None
    if parsed is None:
        raise invalid
    return parsed


def paginate_v1(qs: QuerySet, params: Mapping[str, str], *, ordering: tuple[str, str]) -> Page:
    """``ordering`` is (field, direction) of the primary sort; ties break on the primary key."""
    _require_ordered(qs)
    limit = parse_limit(params)
    # `page` is typed even beside a cursor (which pages instead): `page=null` is a 400 either way
    page = _int_param(params, "page", 1, minimum=1, maximum=MAX_PAGE)
    if "cursor" in params:
        return _keyset_page(qs, params.get("cursor") or "", limit, ordering)
    total = qs.count()
    offset = (page - 1) * limit
    items = list(qs[offset : offset + limit]) if offset < total else []
    return Page(items, {"page": page, "limit": limit, "total": total, "pages": math.ceil(total / limit)})


def _after(field: str, direction: str, value: object, last: uuid.UUID, *, nullable: bool) -> Q:
    """The rows after the cursor (``value``, ``last``) in :func:`order_for_paging`'s order.

    Ties on the sort value break on the primary key. Empty values count as the largest: after
    an empty one descending come the rest of the empty ones and then every filled one;
    ascending, filled values are followed by the empty ones.
    """
    op = "lt" if direction == "desc" else "gt"
    same_then_id = Q(**{f"pk__{op}": last})
    if value is None:
        same = Q(**{f"{field}__isnull": True}) & same_then_id
        return same | Q(**{f"{field}__isnull": False}) if direction == "desc" else same
    # the bound on the sort column is implied by what follows it; it is there for the planner: the
    # index scan starts at the cursor (without it, the scan began at the list's first row and
    # filtered every earlier page out)
    bound = Q(**{f"{field}__{op}e": value})
    after = Q(**{f"{field}__{op}": value}) | (Q(**{field: value}) & same_then_id)
    if nullable and direction == "asc":
        return (bound & after) | Q(**{f"{field}__isnull": True})
    return bound & after


def _keyset_page(qs: QuerySet, cursor: str, limit: int, ordering: tuple[str, str]) -> Page:
    field, direction = ordering
    if cursor:
        value, last_id = _decode_cursor(cursor)
        try:
            last_uuid = uuid.UUID(str(last_id))
        except ValueError:
            raise ValidationFailed(
                "Invalid cursor.", {"cursor": ["Not a cursor this API returned."]}
            ) from None
        value = _cursor_value(qs, field, value)
        qs = qs.filter(_after(field, direction, value, last_uuid, nullable=_nullable(qs, field)))
    qs = order_for_paging(qs, field, direction)
    items = list(qs[: limit + 1])
    has_more = len(items) > limit
    items = items[:limit]
    next_cursor = None
    if has_more:
        last = items[-1]
        value = getattr(last, field)
        if isinstance(value, datetime.datetime | datetime.date):
            value = value.isoformat()
        next_cursor = _encode_cursor([value, str(last.pk)])
    return Page(items, {"limit": limit, "nextCursor": next_cursor, "hasMore": has_more})


# --- Family B -----------------------------------------------------------------------------


def paginate_api(qs: QuerySet, params: Mapping[str, str]) -> Page:
    _require_ordered(qs)
    limit = parse_limit(params)
    # `page` is checked even when `offset` wins: a bad parameter is a 400, never ignored
    page = _int_param(params, "page", 1, minimum=1, maximum=MAX_PAGE)
    if params.get("offset") is not None:
        offset = _int_param(params, "offset", 0, minimum=0, maximum=MAX_OFFSET)
    else:
        offset = (page - 1) * limit
    total = qs.count()
    items = list(qs[offset : offset + limit]) if offset < total else []
    return Page(
        items,
        {
            "limit": limit,
            "offset": offset,
            "total": total,
            "hasNext": offset + len(items) < total,
            "hasPrev": offset > 0,
        },
    )


# --- the families' pagination classes (GenericViewSet's `pagination_class`) ----------------


def query_param(name: str, schema: dict, description: str = "") -> dict:
    """An optional query parameter as OpenAPI states it."""
    return {"in": "query", "name": name, "required": False, "schema": schema, "description": description}


PAGE_PARAM = query_param("page", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1})
LIMIT_PARAM = query_param(
    "limit", {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}
)


class _FamilyPagination(BasePagination):
    page: Page

    def get_paginated_response(self, data: Any) -> Response:
        return Response({"data": data, "pagination": self.page.pagination})


class V1Pagination(_FamilyPagination):
    """Family A: `page`/`limit`, or keyset paging with `cursor` on the list's sort (the view's
    `ordering`, set by its sort backend)."""

    params = (
        PAGE_PARAM,
        LIMIT_PARAM,
        query_param(
            "cursor", {"type": "string"}, "Keyset paging: send it empty for the first page, then nextCursor"
        ),
    )

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list:
        ordering = getattr(view, "_ordering", None) or ("created_at", "desc")
        self.page = paginate_v1(queryset, request.query_params, ordering=ordering)
        return self.page.items

    def get_schema_operation_parameters(self, view: Any) -> list[dict]:
        return [dict(p) for p in self.params]


class ApiPagination(_FamilyPagination):
    """Family B: `limit` with `offset` or `page`."""

    params = (
        LIMIT_PARAM,
        query_param(
            "offset", {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET}, "Takes precedence over `page`"
        ),
        PAGE_PARAM,
    )

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list:
        self.page = paginate_api(queryset, request.query_params)
        return self.page.items

    def get_schema_operation_parameters(self, view: Any) -> list[dict]:
        return [dict(p) for p in self.params]
