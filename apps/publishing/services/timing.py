"""When a post is asked for: one parser of the times both families, the admin, the calendar and
the pre-flight check receive (below scheduling and pre-flight, which both read it)."""

from __future__ import annotations

import datetime
import zoneinfo

from django.utils.dateparse import parse_datetime

from apps.core.errors import InvalidSubject
from apps.core.filters import as_utc
from apps.profiles.services import validate_timezone


def parse_when(raw: object, tz_name: str | None) -> datetime.datetime:
    """ISO 8601; a time without offset is read in `tz_name` (the request's or profile's zone)."""
    invalid = InvalidSubject(
        "scheduledFor must be an ISO 8601 timestamp.", "scheduled_for", "Invalid timestamp."
    )
    parsed: datetime.datetime | None
    if isinstance(raw, datetime.datetime):
        parsed = raw
    else:
        try:  # well-formed but impossible (month 13, hour 25) raises ValueError
            parsed = parse_datetime(str(raw)) if raw else None
        except ValueError:
            parsed = None
        if parsed is None:
            raise invalid
    if tz_name:
        validate_timezone(tz_name)  # an unknown (or 100 kB) name is a 400, not ZoneInfo's KeyError
    value = as_utc(parsed, default_tz=zoneinfo.ZoneInfo(tz_name or "UTC"))
    if value is None:  # past the first or last representable instant
        raise invalid
    return value
