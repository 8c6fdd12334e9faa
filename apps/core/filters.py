from __future__ import annotations

import datetime
from typing import ClassVar

import django_filters
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from . import ids
from .errors import ValidationFailed


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


def parse_datetime_param(params, name: str, *, end_of_day: bool = False) -> datetime.datetime | None:
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
    def organization(self):
        return self.request.user.organization

    def filter_date(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        lookup = self.date_bounds[name]
        when = parse_datetime_param({name: value}, name, end_of_day=lookup == "lte")
        return queryset.filter(**{f"{self.date_field}__{lookup}": when}) if when else queryset

    @staticmethod
    def referenced(queryset: QuerySet, raw: str, *, kind: str, field: str):
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


def query_filter(method: str) -> django_filters.CharFilter:
    """A query parameter read as given (not stripped) and handed to `method`."""
    return django_filters.CharFilter(method=method, strip=False)


class FamilyFilterSet(ListFilterSet):
    """Family B's list filters: `q` (or `search`) over `search_fields`, `date_from`/`date_to`
    on `date_field` (a bare date covers its whole day; a bad one is a 400 naming the
    parameter). Each app declares its own in `filters.py` (`search_fields`, `date_field`,
    its own parameters) and a list view names it as `filterset_class`."""

    q = django_filters.CharFilter(method="filter_search")
    search = django_filters.CharFilter(method="filter_search")
    date_from = django_filters.CharFilter(method="filter_date")
    date_to = django_filters.CharFilter(method="filter_date")

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
