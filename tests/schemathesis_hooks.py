"""Schemathesis hooks for tests/test_schemathesis.py (loaded by the `st` process through
SCHEMATHESIS_HOOKS). Each one supplies what a schema cannot say and a real client has:

- an `Idempotency-Key` of its own per request: a key reused with another body is refused
  (409 in A, 422 in B) by design, and a generated key is the same few strings over and over;
- a real image in positive multipart uploads: a schema can say `format: binary` but not "a
  JPEG/PNG/WebP/GIF or MP4/MOV", which the server checks by reading the bytes;
- positive queries that keep the one rule between query parameters the schemas document in
  words (`startDate` before `endDate`; a missing `endDate` is now): JSON Schema cannot relate
  two parameters, so such cases are left out of positive generation (the 400 for a reversed
  period is pinned in tests/analytics);
- an event's `endsOn` not before its `startsOn` in positive bodies (swapped when generated the
  other way round: a rule between two fields);
- a `scheduledFor`/`scheduledDate` ahead of the clock in positive bodies: the server refuses
  one already past (pinned in tests/publishing and tests/content), which no schema can state;
- no positive Family B connect naming a Facebook Page for another platform (the path names
  the platform, the body the Page: a rule across the two that JSON Schema cannot state);
- a positive `options.crossPost: true` without profile ids names the run's profile: crossPost
  alone publishes to the connected profiles of the content's brand on its platforms, and
  whether there are any depends on what the run did before (a content generated for LinkedIn,
  a new default brand), not on the request (that 400 is pinned in tests/publishing);
- no positive Bluesky connect: it needs Bluesky's directory, out of reach in the run (its 502
  is pinned in tests/publishing/test_bluesky.py);
- no positive TikTok creator-info read: the run binds one profile, on Instagram, and creator
  info is TikTok's (that 400 is pinned in tests/publishing/test_tiktok_choices.py; the 200 too);
- a positive approval-link body names no other content (`contentIds` empty): a generated
  string is no content of the organization, and that 400 is pinned in tests/review;
- no DELETE of the objects the run's bindings name (SCHEMATHESIS_KEEP_IDS): every later case
  that names them would meet a 404 or a 400 for a reason no schema states (schemathesis's
  fuzzing reuses ids it has seen, so excluding DELETE from the bindings is not enough);
- no negative multipart case whose only violation is a part that encodes to nothing (None or
  an empty list): what the server receives holds to the schema;
- no coverage case counted negative for its headers when the declared ones are all valid
  (an extra header, or none): HTTP lets any request carry more headers and OpenAPI cannot
  declare them closed, so it is not a violation.

Negative cases are left as generated (a malformed key or body must still be refused).
"""

from __future__ import annotations

import base64
import datetime
import itertools
import os

import jsonschema
import schemathesis
from hypothesis import strategies as st
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoveragePhaseData, CoverageScenario

#: a 1x1 PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
_keys = itertools.count(1)
# uploads carry a real image: a schema can say `format: binary` but not "a JPEG/PNG/WebP/GIF or
# MP4/MOV", which the server checks by reading the bytes; drawn at generation (a body a hook
# changes is validated again by schemathesis 4.32, which counts bytes as invalid there)
schemathesis.openapi.format("binary", st.just(PNG))


def _negative(case, location: ParameterLocation) -> bool:
    return case.meta is not None and case.meta.is_negative_at(location)


@schemathesis.hook
def before_call(ctx, case, kwargs):
    # new containers, never edits in place: schemathesis shares a case's containers with the
    # cases it derives from the same template (a PNG put in place leaked into negative bodies)
    # done already by map_case where that hook runs (the stateful phase: here)
    _fix_headers(case)
    _fix_body(case)


@schemathesis.hook
def map_case(ctx, case):
    # at generation, before schemathesis fingerprints the case: a case changed in `before_call`
    # is validated again, and a body holding bytes (the PNG) counts as invalid there, which
    # turned a positive upload into a "negative" one the server rightly accepted
    _fix_headers(case)
    _fix_body(case)
    return case


def _fix_headers(case) -> None:
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if key is None or str(key).startswith("schemathesis-") or _negative(case, ParameterLocation.HEADER):
        return
    case.headers = {**headers, "Idempotency-Key": f"schemathesis-{next(_keys)}"}


def _fix_body(case) -> None:
    body = case.body
    if not isinstance(body, dict) or _negative(case, ParameterLocation.BODY):
        return
    fixed = dict(body)
    for name in SCHEDULED:
        if isinstance(fixed.get(name), str):
            fixed[name] = _not_past(fixed[name])
    starts, ends = fixed.get("startsOn"), fixed.get("endsOn")
    if isinstance(starts, str) and isinstance(ends, str) and ends < starts:
        # an event (campaign) ends on or after its first day: a rule between two fields that
        # JSON Schema cannot state (the 400 is pinned in tests/content)
        fixed["startsOn"], fixed["endsOn"] = ends, starts
    options = fixed.get("options")
    if (
        isinstance(options, dict)
        and options.get("crossPost") is True
        and not fixed.get("profiles")
        and PROFILE
    ):
        fixed["profiles"] = [PROFILE]
    if isinstance(fixed.get("contentIds"), list) and str(case.operation.path).endswith("/approval-links"):
        # an approval link's other contents are ids of this organization's content: a generated
        # string names none, and a body naming an unknown one is a 400 on contentIds (pinned in
        # tests/review), which no schema can state; the path's content alone makes the link
        fixed["contentIds"] = []
    if fixed != body:
        case.body = fixed


#: when to publish or generate: the server refuses a time (or a day) already past, a rule on
#: the clock that no schema can state
SCHEDULED = ("scheduledFor", "scheduledDate")


def _not_past(raw: str) -> str:
    """`raw` if it is well ahead of now, else the same kind of value (a day, an instant) a month ahead."""
    try:
        when = _instant(raw, end=False)
    except (ValueError, OverflowError):
        return raw
    now = datetime.datetime.now(datetime.UTC)
    if when > now + datetime.timedelta(days=2):
        return raw
    later = now + datetime.timedelta(days=30)
    return later.date().isoformat() if len(raw) == 10 else later.isoformat().replace("+00:00", "Z")


def _instant(raw: str, *, end: bool) -> datetime.datetime:
    if len(raw) == 10:
        day = datetime.datetime.combine(datetime.date.fromisoformat(raw), datetime.time(), datetime.UTC)
        return day + datetime.timedelta(days=1) if end and day.year < 9999 else day
    value = datetime.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


def _headers_hold(case) -> bool:
    """A coverage case counted negative for its headers whose declared headers are all there
    and valid: what is left is a header the operation does not name (HTTP lets any request
    carry more, proxies and tracing add them, and OpenAPI cannot declare them closed) or
    nothing at all (schemathesis 4.32 labels the header set "only required properties" as
    negative, and only a multipart body, whose boundary differs each time, keeps it from
    being dropped as a duplicate of the positive case). Neither is a schema violation."""
    data = case.meta.phase.data if case.meta is not None else None
    if not (
        isinstance(data, CoveragePhaseData)
        and data.parameter_location == ParameterLocation.HEADER
        and data.scenario
        in (CoverageScenario.OBJECT_UNEXPECTED_PROPERTIES, CoverageScenario.OBJECT_ONLY_REQUIRED)
    ):
        return False
    sent = {name.lower(): value for name, value in (case.headers or {}).items()}
    for param in case.operation.headers:
        value = sent.get(param.name.lower())
        if value is None:
            if param.is_required:
                return False
            continue
        if not jsonschema.Draft4Validator(param.definition.get("schema", {})).is_valid(value):
            return False
    return True


def _page_off_facebook(case) -> bool:
    """A positive Family B connect that names a Page for a platform without Pages (Facebook's, a
    LinkedIn organization's), asks for a LinkedIn organization on another platform, or names a
    Page for a LinkedIn member: the platform is in the path and the rest in the body, a rule
    across the two that JSON Schema cannot state (Family A, with both in the body, states it; the
    400s are pinned in tests/publishing/test_oauth_platforms.py and test_linkedin_pages.py)."""
    if case.operation.path != "/oauth/{platform}/authorize" or not isinstance(case.body, dict):
        return False
    if _negative(case, ParameterLocation.BODY) or _negative(case, ParameterLocation.PATH):
        return False
    platform = (case.path_parameters or {}).get("platform")
    page, kind = case.body.get("pageId"), case.body.get("accountType")
    return bool(
        (page and platform not in ("facebook", "linkedin"))
        or (kind == "organization" and platform != "linkedin")
        or (page and kind == "member")
    )


def _bluesky_reached(case) -> bool:
    """A positive Bluesky connect: it reaches Bluesky's directory, which the run has none of (the
    tests point it at a closed port), so its answer is the 502 for Bluesky out of reach (pinned
    in tests/publishing/test_bluesky.py), whatever the request; negative bodies still run."""
    if case.operation.path not in ("/profiles/bluesky/connect", "/oauth/bluesky/app-password"):
        return False
    return not _negative(case, ParameterLocation.BODY)


def _creator_info_off_tiktok(case) -> bool:
    """A positive TikTok creator-info read: the run's profile is on Instagram, so the answer is
    the 400 naming the platform (pinned in tests/publishing/test_tiktok_choices.py)."""
    if not case.operation.path.endswith("/tiktok/creator-info"):
        return False
    return not _negative(case, ParameterLocation.PATH)


#: the ids of the objects the run binds (tests/test_schemathesis.py), in both families' forms
PROFILE = os.environ.get("SCHEMATHESIS_PROFILE_ID", "")
KEEP = frozenset(filter(None, os.environ.get("SCHEMATHESIS_KEEP_IDS", "").split(",")))


def _multipart_sent_valid(case) -> bool:
    """A negative multipart body whose violation never reaches the wire: a part whose value is
    None or an empty list is no part at all once encoded (requests drops it), so the server
    receives a body that holds to the schema and rightly accepts it. The invalid part of such
    a case is schemathesis's own dictionary, not the request."""
    body = case.body
    if not (
        isinstance(body, dict)
        and (case.media_type or "").startswith("multipart/")
        and _negative(case, ParameterLocation.BODY)
    ):
        return False
    sent = {name: value for name, value in body.items() if value is not None and value != []}
    if sent == body:
        return False
    alternative = case.operation.get_body_for_media_type(case.media_type)
    schema = (alternative.definition or {}).get("schema") if alternative is not None else None
    if not isinstance(schema, dict):
        return False
    as_json = {
        name: "file" if isinstance(value, (bytes, bytearray)) or type(value).__name__ == "Binary" else value
        for name, value in sent.items()
    }
    return jsonschema.Draft4Validator(schema).is_valid(as_json)


def _deletes_kept(case) -> bool:
    return case.method.upper() == "DELETE" and any(
        str(value) in KEEP for value in (case.path_parameters or {}).values()
    )


@schemathesis.hook
def filter_case(ctx, case):
    if (
        _headers_hold(case)
        or _page_off_facebook(case)
        or _deletes_kept(case)
        or _bluesky_reached(case)
        or _creator_info_off_tiktok(case)
        or _multipart_sent_valid(case)
    ):
        return False
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
