from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Protocol, TypeVar, cast

import django_filters
from django.db.models import Model, Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema_field
from rest_framework.filters import BaseFilterBackend
from rest_framework.request import Request
from rest_framework.views import APIView

from . import ids
from .errors import ValidationFailed
from .pagination import order_for_paging, query_param

_M = TypeVar("_M", bound=Model)
_Row = TypeVar("_Row")


def as_utc(
    value: datetime.datetime, *, default_tz: datetime.tzinfo = datetime.UTC
) -> datetime.datetime | None:
    """An aware UTC datetime (a naive one is read in `default_tz`); None when the instant is
    out of range. UTC because PostgreSQL refuses offsets past +-15:59 that ISO 8601 (and
    Python) allow."""
    if timezone.is_naive(value):
        value = value.replace(tzinfo=default_tz)
    try:
        return value.astimezone(datetime.UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00+01:00 is before the first representable instant
        return None


def parse_datetime_param(
    params: Mapping[str, str], name: str, *, end_of_day: bool = False
) -> datetime.datetime | None:
    raw = params.get(name)
    if not raw:
        return None
    value = None
    try:
        day = parse_date(raw) if len(raw) == 10 else None
        if day is not None:
            # A bare date covers the whole day: from its first to its last instant.
            value = datetime.datetime.combine(day, datetime.time.max if end_of_day else datetime.time.min)
        else:
            value = parse_datetime(raw.replace(" ", "+"))
    except ValueError:
        value = None
    if value is None:
        raise ValidationFailed(f"'{name}' must be an ISO 8601 date or timestamp.", {name: ["Invalid date."]})
    utc = as_utc(value)
    if utc is None:  # before the first or after the last instant Python holds: that one bounds the same rows
        utc = datetime.datetime.min if value.year == 1 else datetime.datetime.max
        utc = utc.replace(tzinfo=datetime.UTC)
    return utc


class ListFilterSet(django_filters.FilterSet):
    """The base of every list's FilterSet (one `filters.py` per app, named by a view as
    `filterset_class`). Its filters read the family's query names; a bad value raises the
    domain's `ValidationFailed` naming the parameter, which the view's family renders (a 400
    in Family A's or Family B's format). The view passes its request: `organization` is the
    caller's, for filters that name another object of it (`referenced`)."""

    #: model date field that `date_bounds` filter
    date_field: ClassVar[str] = "created_at"
    #: query name -> "gte" (from; a bare date: its first instant) or "lte" (to; its last)
    date_bounds: ClassVar[dict[str, str]] = {}

    @property
    def organization(self) -> Any:  # the caller's Organization (an accounts model: core imports no app)
        return self.request.user.organization

    def filter_date(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        lookup = self.date_bounds[name]
        when = parse_datetime_param({name: value}, name, end_of_day=lookup == "lte")
        return queryset.filter(**{f"{self.date_field}__{lookup}": when}) if when else queryset

    @staticmethod
    def referenced(queryset: QuerySet[_M], raw: str, *, kind: str, field: str) -> _M:
        """The object of `queryset` a parameter names by id; an unknown one is a 400 on the
        parameter (as an unknown id in a body is)."""
        pk = ids.parse(raw, kind)
        found = queryset.filter(pk=pk).first() if pk else None
        if found is None:
            raise ValidationFailed(f"Unknown {field}.", {field: ["Not found."]})
        return found

    @staticmethod
    def id_of(raw: str, *, kind: str, field: str, detail: str) -> object:
        """The primary key in an id parameter (no query); a malformed one is a 400."""
        pk = ids.parse(raw, kind)
        if pk is None:
            raise ValidationFailed(f"Invalid {field}.", {field: [detail]})
        return pk


def query_filter(
    method: str, *, description: str = "", schema: dict | None = None
) -> django_filters.CharFilter:
    """A query parameter read as given (not stripped) and handed to `method`; `description`
    and `schema` are what OpenAPI says of it (a string by default)."""
    found = django_filters.CharFilter(method=method, strip=False, help_text=description or None)
    if not schema:
        return found
    # drf-spectacular reads a given schema's own description and ignores help_text then
    if description:
        schema = {**schema, "description": description}
    return extend_schema_field(schema)(found)


class FamilyFilterSet(ListFilterSet):
    """Family B's list filters: `q` (or `search`) over `search_fields`, `date_from`/`date_to`
    on `date_field` (a bare date covers its whole day; a bad one is a 400 naming the
    parameter). Each app declares its own in `filters.py` (`search_fields`, `date_field`,
    its own parameters) and a list view names it as `filterset_class`."""

    q = django_filters.CharFilter(method="filter_search")
    search = django_filters.CharFilter(method="filter_search")
    # read as sent (not stripped): a date made of spaces or control characters is a 400 naming
    # the parameter, as on /v1, not an empty value read as no filter
    date_from = django_filters.CharFilter(method="filter_date", strip=False)
    date_to = django_filters.CharFilter(method="filter_date", strip=False)

    search_fields: ClassVar[tuple[str, ...]] = ()
    date_bounds: ClassVar[dict[str, str]] = {"date_from": "gte", "date_to": "lte"}

    def filter_search(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if name == "search" and (self.data.get("q") or ""):  # `q` wins when both are given
            return queryset
        term = value.strip()
        if not term or not self.search_fields:
            return queryset
        cond = Q()
        for field in self.search_fields:
            cond |= Q(**{f"{field}__icontains": term})
        return queryset.filter(cond)

    @classmethod
    def of(cls, *, search_fields: tuple[str, ...], date_field: str) -> type[FamilyFilterSet]:
        """The family's filter for a view that names only its fields (no filters.py yet)."""
        return type("FamilyFilter", (cls,), {"search_fields": search_fields, "date_field": date_field})


# --- the families' filter backends (GenericViewSet's `filter_backends`, in this order) -------


class FamilyView(Protocol):
    """What the backends read and set on a family's view (`apps.core.views._FamilyViewSet`;
    `wanted_fields` and `_wanted` are Family A's, `V1ViewSet`)."""

    default_sort: tuple[str, str]
    #: the sort the list follows (set by the sort backend, read by keyset paging)
    _ordering: tuple[str, str]
    #: the `fields=` selection (set by `FieldSelection`)
    _wanted: list[str] | None

    def get_filterset_class(self) -> type[ListFilterSet] | None: ...

    def filtered(self, queryset: QuerySet[_M, _Row]) -> QuerySet[_M, _Row]: ...

    def get_sort_fields(self) -> dict[str, str]: ...

    def wanted_fields(self) -> list[str] | None: ...


class FamilyFilterBackend(DjangoFilterBackend):
    """The view's FilterSet (`get_filterset_class()`) over the list, bound to the request; a
    bad value raises `ValidationFailed` naming the parameter (no form errors to render). The
    OpenAPI parameters come from the FilterSet (drf-spectacular's django-filter extension)."""

    def get_filterset_class(
        self, view: FamilyView, queryset: QuerySet[Any] | None = None
    ) -> type[ListFilterSet] | None:
        return view.get_filterset_class()

    def filter_queryset(
        self, request: Request, queryset: QuerySet[_M, _Row], view: FamilyView
    ) -> QuerySet[_M, _Row]:
        return view.filtered(queryset)


def _sort_fields(view: FamilyView) -> dict[str, str]:
    return view.get_sort_fields()


class SortByOrdering(BaseFilterBackend):
    """Family A's sort: `sortBy` (one of the view's sort fields, camelCase) and `sortOrder`;
    ties break on the primary key. The view's `_ordering` is what keyset paging follows."""

    def parse(self, request: Request, view: FamilyView) -> tuple[str, str]:
        params = request.query_params
        default_field, default_order = view.default_sort
        # the sort is typed like paging: an empty value is a 400, not the default
        name = params.get("sortBy")
        order = params.get("sortOrder", default_order).lower()
        if order not in ("asc", "desc"):
            raise ValidationFailed(
                "sortOrder must be 'asc' or 'desc'.", {"sortOrder": ["Must be asc or desc."]}
            )
        if name is None:
            return default_field, order
        fields = _sort_fields(view)
        if name not in fields:
            raise bad_sort("sortBy", name, fields)
        return fields[name], order

    def filter_queryset(
        self, request: Request, queryset: QuerySet[_M, _Row], view: APIView
    ) -> QuerySet[_M, _Row]:
        family_view = cast(FamilyView, view)
        family_view._ordering = field, direction = self.parse(request, family_view)
        return order_for_paging(queryset, field, direction)

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        return [
            query_param("sortBy", {"type": "string", "enum": list(_sort_fields(cast(FamilyView, view)))}),
            query_param("sortOrder", {"type": "string", "enum": ["asc", "desc"]}),
        ]


class SortOrdering(SortByOrdering):
    """Family B's sort: `sort=<field>` or `sort=<field>:<asc|desc>` over the same whitelist."""

    def parse(self, request: Request, view: FamilyView) -> tuple[str, str]:
        raw = request.query_params.get("sort")
        if raw is None:
            return view.default_sort
        name, _, order = raw.partition(":")
        order = (order or "asc").lower()
        if order not in ("asc", "desc"):
            raise ValidationFailed(
                "sort direction must be 'asc' or 'desc'.", {"sort": ["Use <field>:<asc|desc>."]}
            )
        fields = _sort_fields(view)
        if name not in fields:
            raise bad_sort("sort", name, fields)
        return fields[name], order

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        enum = [
            v for name in _sort_fields(cast(FamilyView, view)) for v in (name, f"{name}:asc", f"{name}:desc")
        ]
        return [query_param("sort", {"type": "string", "enum": enum}, "<field> or <field>:<asc|desc>")]


class FieldSelection(BaseFilterBackend):
    """Family A's `fields=`: checked before any query (an empty page still says 400), kept on
    the view for the list's items."""

    def filter_queryset(
        self, request: Request, queryset: QuerySet[_M, _Row], view: APIView
    ) -> QuerySet[_M, _Row]:
        family_view = cast(FamilyView, view)
        family_view._wanted = family_view.wanted_fields()
        return queryset


def bad_sort(name: str, value: str, fields: Iterable[str]) -> ValidationFailed:
    return ValidationFailed(f"Cannot sort by '{value}'.", {name: [f"Must be one of: {', '.join(fields)}."]})
