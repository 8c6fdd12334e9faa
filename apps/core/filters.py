from __future__ import annotations

import datetime

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
