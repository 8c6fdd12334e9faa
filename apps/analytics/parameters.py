"""The analytics endpoints' query parameters (both families and the staff console): the
period, its time zone and the named choices, read from a request's query into the values the
selectors take. A bad value is a ValidationFailed naming the parameter (the selectors name no
request field)."""

from __future__ import annotations

import datetime
import re
import zoneinfo

from django.utils import timezone

from apps.core.errors import ValidationFailed
from apps.core.timezones import is_timezone

from .selectors import Period

#: the first and last instants Python can hold: a bound beyond them selects the same rows
FIRST_INSTANT = datetime.datetime.min.replace(tzinfo=datetime.UTC)
LAST_INSTANT = datetime.datetime.max.replace(tzinfo=datetime.UTC)


def parse_tz(raw: str | None) -> zoneinfo.ZoneInfo:
    if not raw:
        return zoneinfo.ZoneInfo("UTC")
    if not is_timezone(raw):  # the IANA names of apps.core.timezones (the schemas' enum)
        raise ValidationFailed(
            "Unknown timezone.", {"timezone": [f"'{raw}' is not an IANA time zone (e.g. Europe/Paris)."]}
        )
    return zoneinfo.ZoneInfo(raw)


def _shifted(value: datetime.datetime, delta: datetime.timedelta) -> datetime.datetime:
    try:
        return value + delta
    except OverflowError:  # e.g. the day after 9999-12-31: the last instant bounds the same rows
        return LAST_INSTANT if delta > datetime.timedelta(0) else FIRST_INSTANT


def _parse_point(raw: str, name: str, tz, *, end: bool) -> datetime.datetime:
    try:
        if len(raw) == 10:
            day = datetime.datetime.combine(datetime.date.fromisoformat(raw), datetime.time(), tz)
            return _shifted(day, datetime.timedelta(days=1)) if end else day
        value = datetime.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationFailed(
            f"Invalid {name}.", {name: ["Use an ISO 8601 date (YYYY-MM-DD) or date-time."]}
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    offset = value.utcoffset()
    if offset is not None and abs(offset) >= datetime.timedelta(hours=16):  # PostgreSQL stops at +-15:59
        try:
            value = value.astimezone(datetime.UTC)
        except OverflowError:
            value = FIRST_INSTANT if value.year == 1 else LAST_INSTANT
    return value


def parse_period(params, *, tz, default_days: int = 30) -> Period:
    now = timezone.now()
    start_raw, end_raw = params.get("startDate"), params.get("endDate")
    end = _parse_point(end_raw, "endDate", tz, end=True) if end_raw else now
    start = (
        _parse_point(start_raw, "startDate", tz, end=False)
        if start_raw
        else _shifted(end, -datetime.timedelta(days=default_days))
    )
    if end <= start:
        raise ValidationFailed("endDate is before startDate.", {"endDate": ["Must be after startDate."]})
    return Period(start=start, end=end, tz=tz)


def parse_choice(params, name: str, valid) -> str | None:
    raw = params.get(name)
    if raw in (None, ""):
        return None
    if raw not in valid:
        raise ValidationFailed(f"Unknown {name} '{raw}'.", {name: [f"Valid values: {', '.join(valid)}."]})
    return raw


def parse_days(raw: str | None, default: int = 30) -> int:
    if raw in (None, ""):
        return default
    m = re.fullmatch(r"(\d{1,3})d", raw)
    if not m or not 1 <= int(m.group(1)) <= 730:
        raise ValidationFailed(
            "Invalid period.", {"period": ["A number of days from 1 to 730 followed by 'd' (e.g. 30d)."]}
        )
    return int(m.group(1))
