"""The analytics endpoints' query parameters (both families and the staff console): the
period, its time zone and the named choices, read from a request's query into the values the
selectors take, and each report endpoint's query declared once as a Serializer of them. A bad
value is a ValidationFailed naming the parameter (the selectors name no request field)."""

from __future__ import annotations

import datetime
import re
import zoneinfo

from django.utils import timezone
from rest_framework import serializers
from rest_framework.fields import empty

from apps.content.models import Content
from apps.core import ids
from apps.core.errors import NotFound, ValidationFailed
from apps.core.timezones import is_timezone
from apps.profiles.models import Platform, normalize_platform
from apps.profiles.selectors import profile_list

from .monitoring import KINDS
from .selectors import GROUP_BY, METRIC_PARAMS, Period

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
            value = _shifted(day, datetime.timedelta(days=1)) if end else day
        else:
            value = datetime.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationFailed(
            f"Invalid {name}.", {name: ["Use an ISO 8601 date (YYYY-MM-DD) or date-time."]}
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=tz)
    # an instant beyond Python's range in UTC (0001-01-01T00:00+05:00) selects the same rows as the
    # first or last instant Python holds: the databases read bounds in UTC (SQLite's adapter
    # converts them itself, where this was an OverflowError, a 500)
    try:
        utc = value.astimezone(datetime.UTC)
    except OverflowError:
        return FIRST_INSTANT if value.year == 1 else LAST_INSTANT
    offset = value.utcoffset()
    if offset is not None and abs(offset) >= datetime.timedelta(hours=16):  # PostgreSQL stops at +-15:59
        return utc
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


def parse_platform(params) -> str | None:
    raw = params.get("platform")
    if not raw:
        return None
    platform = normalize_platform(raw)
    if platform is None:
        raise ValidationFailed("Unknown platform.", {"platform": [f"Unknown platform '{raw}'."]})
    return platform


# --- the report endpoints' queries, declared once (a Serializer per endpoint) ----------------
#
# A view validates its query with `self.validated(TheQuery, request.query_params)` and names the
# same class in `extend_schema(parameters=[TheQuery])`: drf-spectacular makes each field a query
# parameter (its `openapi` schema, `help_text` as the description). Each field reads its
# parameter with the parser above, in the order the fields are declared, so a bad value is the
# same ValidationFailed naming it as before (not DRF's per-field messages); an empty value is a
# parameter left out.


class QueryParam(serializers.Field):
    """One query parameter, read by `parse(raw)`; left out (or empty) it is `None` unless the
    field is required (a 400 saying so)."""

    def __init__(self, *, openapi: dict | None = None, **kwargs) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        #: what OpenAPI says of it (apps.analytics.openapi.QueryParamExtension)
        self.openapi = openapi or {"type": "string"}

    def get_value(self, dictionary):
        return dictionary.get(self.field_name, empty)  # the last value, as `QueryDict.get`

    def run_validation(self, data=empty):
        if data is empty or data == "":
            if self.required:
                name = self.field_name
                raise ValidationFailed(f"{name} is required.", {name: ["Required."]})
            return self.parse(None)
        return self.parse(data)

    def parse(self, raw: str | None):
        return raw

    def to_representation(self, value):
        return value


class ChoiceParam(QueryParam):
    """One of `choices` (listed in the 400 in their order); `default` when left out."""

    def __init__(self, choices, *, default: str | None = None, **kwargs) -> None:
        self.choices = tuple(choices)
        self.fallback = default
        schema = {"type": "string", "enum": sorted(self.choices)}
        if default is not None:
            schema["default"] = default
        super().__init__(openapi=schema, **kwargs)

    def parse(self, raw):
        return parse_choice({self.field_name: raw}, self.field_name, self.choices) or self.fallback


class DaysParam(QueryParam):
    """`period=<days>d` (30 when left out)."""

    def parse(self, raw):
        return parse_days(raw)


class TimezoneParam(QueryParam):
    """An IANA time zone name (UTC when left out)."""

    def parse(self, raw):
        return parse_tz(raw)


class InstantParam(QueryParam):
    """`startDate`/`endDate`: an ISO 8601 date or date-time, checked here and read in the query's
    time zone by `PeriodQuery.validate` (an end date counts its whole day)."""

    def parse(self, raw):
        if raw is not None:
            _parse_point(raw, self.field_name, datetime.UTC, end=False)
        return raw


class PlatformParam(QueryParam):
    """A platform's name (aliases accepted)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(openapi={"type": "string", "enum": sorted(Platform.values)}, **kwargs)

    def parse(self, raw):
        return parse_platform({"platform": raw})


class IdParam(QueryParam):
    """The id of an object of `kind`: malformed, a 400 naming the parameter."""

    def __init__(self, kind: str, **kwargs) -> None:
        self.kind = kind
        super().__init__(**kwargs)

    def parse(self, raw):
        if raw is None:
            return None
        value = ids.parse(raw, self.kind)
        if value is None:
            name = self.field_name
            raise ValidationFailed(f"Invalid {name}.", {name: [f"Not a {self.kind} id."]})
        return value


class ProfileParam(QueryParam):
    """A profile of the caller's organization, looked up by the view (a 404 naming the id)."""

    def parse(self, raw):
        if raw is None:
            return None
        view = self.context["view"]
        return view.lookup(profile_list(organization=view.actor.organization), raw, "profile")


class QuerySerializer(serializers.Serializer):
    """A report's query parameters (not a list's filters: those are FilterSets)."""


class PeriodQuery(QuerySerializer):
    """`startDate`/`endDate` (read in `timezone`) as the `period`: by default the
    `default_days` up to now; the end must come after the start."""

    default_days = 30
    #: the period is read only when a bound is given (else `period` is None)
    optional_period = False

    def read_period(self) -> Period:
        data = self.initial_data
        tz = parse_tz(data.get("timezone") if "timezone" in self.fields else None)
        return parse_period(data, tz=tz, default_days=self.default_days)

    def validate_startDate(self, value: str | None) -> str | None:
        # an end before the start is refused here, before the parameters declared after the
        # dates are read (the order the views checked them in)
        if value is not None:
            self.read_period()
        return value

    def validate(self, attrs: dict) -> dict:
        bounded = attrs.get("startDate") or attrs.get("endDate")
        attrs["period"] = self.read_period() if bounded or not self.optional_period else None
        return attrs


# --- each report endpoint's query ---------------------------------------------------------


class ProfileReportQuery(QuerySerializer):
    """GET /api/analytics/profiles"""

    profileId = ProfileParam(required=True)
    period = DaysParam()


class OverviewQuery(QuerySerializer):
    """GET /api/analytics/overview"""

    period = DaysParam()


class BestTimesQuery(QuerySerializer):
    """GET /api/analytics/best-times"""

    profileId = ProfileParam(required=True)


class ExportQuery(PeriodQuery):
    """GET /v1/analytics/export and /api/analytics/export"""

    default_days = 90

    format = ChoiceParam(
        ("csv", "json"), default="csv", help_text="csv (default) or json; the body is streamed"
    )
    timezone = TimezoneParam(help_text="IANA time zone of date-only bounds (default UTC)")
    endDate = InstantParam(help_text="ISO 8601 date (inclusive) or date-time; default now")
    startDate = InstantParam(help_text="ISO 8601 date or date-time; default 90 days before endDate")


class ContentReportQuery(PeriodQuery):
    """GET /v1/analytics/content"""

    groupBy = ChoiceParam(GROUP_BY, default="day")
    metric = ChoiceParam(tuple(METRIC_PARAMS))
    timezone = TimezoneParam()
    endDate = InstantParam()
    startDate = InstantParam()
    contentId = IdParam("content")
    platform = PlatformParam()

    def validate_contentId(self, value):
        organization = self.context["view"].actor.organization
        if value is not None and not Content.objects.for_organization(organization).filter(pk=value).exists():
            raise NotFound("Resource not found.", {"contentId": self.initial_data["contentId"][:100]})
        return value


class ProfilePeriodQuery(PeriodQuery):
    """GET /v1/analytics/profiles/{id}"""

    timezone = TimezoneParam()
    endDate = InstantParam()
    startDate = InstantParam()


class ErrorsQuery(PeriodQuery):
    """GET /api/monitoring/errors (a period only when a bound is given; no time zone: UTC)"""

    default_days = 3650
    optional_period = True

    kind = ChoiceParam(KINDS)
    endDate = InstantParam()
    startDate = InstantParam()
    profileId = IdParam("profile")
    platform = PlatformParam()

    def validate_profileId(self, value):
        organization = self.context["view"].actor.organization
        if value is not None and not profile_list(organization=organization).filter(pk=value).exists():
            raise NotFound("Resource not found.", {"id": str(self.initial_data["profileId"])[:100]})
        return value
