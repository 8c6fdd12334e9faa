"""Schemathesis hooks for tests/test_schemathesis.py (loaded by the `st` process through
SCHEMATHESIS_HOOKS). Each one supplies what a schema cannot say and a real client has:

- an `Idempotency-Key` of its own per request: a key reused with another body is refused
  (409 in A, 422 in B) by design, and a generated key is the same few strings over and over;
- a real image in positive multipart uploads: a schema can say `format: binary` but not "a
  JPEG/PNG/WebP/GIF or MP4/MOV", which the server checks by reading the bytes;
- positive queries that keep the one rule between query parameters the schemas document in
  words (`startDate` before `endDate`; a missing `endDate` is now): JSON Schema cannot relate
  two parameters, so such cases are left out of positive generation (the 400 for a reversed
  period is pinned in tests/analytics).

Negative cases are left as generated (a malformed key or body must still be refused).
"""

from __future__ import annotations

import base64
import datetime
import itertools

import schemathesis
from schemathesis.core.parameters import ParameterLocation

#: a 1x1 PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
_keys = itertools.count(1)


def _negative(case, location: ParameterLocation) -> bool:
    return case.meta is not None and case.meta.is_negative_at(location)


@schemathesis.hook
def before_call(ctx, case, kwargs):
    headers = case.headers or {}
    if "Idempotency-Key" in headers and not _negative(case, ParameterLocation.HEADER):
        headers["Idempotency-Key"] = f"schemathesis-{next(_keys)}"
    body = case.body
    if (
        isinstance(body, dict)
        and "file" in body
        and (case.media_type or "").startswith("multipart/")
        and not _negative(case, ParameterLocation.BODY)
    ):
        body["file"] = PNG


def _instant(raw: str, *, end: bool) -> datetime.datetime:
    if len(raw) == 10:
        day = datetime.datetime.combine(datetime.date.fromisoformat(raw), datetime.time(), datetime.UTC)
        return day + datetime.timedelta(days=1) if end and day.year < 9999 else day
    value = datetime.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


@schemathesis.hook
def filter_case(ctx, case):
    query = case.query or {}
    start, end = query.get("startDate"), query.get("endDate")
    if not start or _negative(case, ParameterLocation.QUERY):
        return True
    try:
        first = _instant(str(start), end=False)
        last = _instant(str(end), end=True) if end else datetime.datetime.now(datetime.UTC)
        # two days of margin: date-only bounds are read in the request's time zone
        return first + datetime.timedelta(days=2) < last
    except (ValueError, OverflowError):
        return True
