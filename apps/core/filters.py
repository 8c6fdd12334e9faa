from __future__ import annotations

import datetime
from typing import ClassVar

import django_filters
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from .errors import ValidationFailed


def as_utc(value: datetime.datetime, *, default_tz: datetime.tzinfo = datetime.UTC) -> datetime.datetime | None:
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
    value = as_utc(value)
    if value is None:
        raise ValidationFailed(f"'{name}' is out of range.", {name: ["Invalid date."]})
    return value


class FamilyFilterSet(django_filters.FilterSet):
    """Family B's list filters as a django-filter FilterSet: `q` (or `search`) over
    `search_fields`, `date_from`/`date_to` on `date_field` (a bare date covers its whole day; a
    bad one is a 400 naming the parameter). Each app declares its own in `filters.py`
    (`search_fields`, `date_field`) and a list view names it as `filterset_class`."""

    q = django_filters.CharFilter(method="filter_search")
    search = django_filters.CharFilter(method="filter_search")
    date_from = django_filters.CharFilter(method="filter_date")
    date_to = django_filters.CharFilter(method="filter_date")

    search_fields: ClassVar[tuple[str, ...]] = ()
    date_field: ClassVar[str] = "created_at"

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

    def filter_date(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        when = parse_datetime_param({name: value}, name, end_of_day=name == "date_to")
        lookup = "gte" if name == "date_from" else "lte"
        return queryset.filter(**{f"{self.date_field}__{lookup}": when}) if when else queryset

    @classmethod
    def of(cls, *, search_fields: tuple[str, ...], date_field: str) -> type[FamilyFilterSet]:
        """The family's filter for a view that names only its fields (no filters.py yet)."""
        return type("FamilyFilter", (cls,), {"search_fields": search_fields, "date_field": date_field})
