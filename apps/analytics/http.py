"""The streamed export both analytics families answer."""

from __future__ import annotations

from django.http import StreamingHttpResponse

from . import reports


def export_response(organization, *, fmt: str, period, family: str) -> StreamingHttpResponse:
    """`fmt` (csv or json) and `period` as `ExportQuery` validated them; ids in `family`'s form."""
    rows = reports.export_rows(organization, period.start, period.end, family=family)
    response = StreamingHttpResponse(
        reports.stream_export(rows, fmt),
        content_type="text/csv; charset=utf-8" if fmt == "csv" else "application/json",
    )
    response["Content-Disposition"] = f'attachment; filename="postforge-analytics.{fmt}"'
    return response
