"""HTTP pieces both analytics families share: the platform filter and the streamed export."""

from __future__ import annotations

from django.http import StreamingHttpResponse

from apps.core.errors import ValidationFailed
from apps.profiles.models import normalize_platform

from . import reports
from .parameters import parse_choice, parse_period, parse_tz


def parse_platform(params):
    raw = params.get("platform")
    if not raw:
        return None
    platform = normalize_platform(raw)
    if platform is None:
        raise ValidationFailed("Unknown platform.", {"platform": [f"Unknown platform '{raw}'."]})
    return platform


def export_response(organization, params):
    fmt = parse_choice(params, "format", ("csv", "json")) or "csv"
    period = parse_period(params, tz=parse_tz(params.get("timezone")), default_days=90)
    rows = reports.export_rows(organization, period.start, period.end)
    response = StreamingHttpResponse(
        reports.stream_export(rows, fmt),
        content_type="text/csv; charset=utf-8" if fmt == "csv" else "application/json",
    )
    response["Content-Disposition"] = f'attachment; filename="postforge-analytics.{fmt}"'
    return response
