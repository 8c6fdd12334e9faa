"""Domain errors carry no HTTP status nor request field names; each family's handler maps the
error class to a status and each subject to its field."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from apps.accounts.plans import PlanLimitExceeded
from apps.core import errors
from apps.core.exceptions import (
    FIELD_NAMES,
    api_exception_handler,
    details_in,
    statuses_of,
    v1_exception_handler,
)
from apps.publishing.services import parse_when
from apps.webhooks.ssrf import UnsafeURL


def _all_error_classes():
    seen, todo = [], [errors.ApplicationError]
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


def test_no_domain_error_names_an_http_status():
    for cls in _all_error_classes():
        assert not hasattr(cls, "status"), cls
        assert not hasattr(cls, "family_b_status"), cls


@pytest.mark.parametrize(
    ("error", "a", "b"),
    [
        (errors.ValidationFailed(), 400, 400),
        (errors.RuleViolation(), 400, 422),
        (errors.NotFound(), 404, 404),
        (errors.Conflict(), 409, 409),
        (errors.InvalidTransition(), 409, 422),
        (errors.KeyReusedWithAnotherBody(), 409, 422),
        (errors.PermissionDenied(), 403, 403),
        (PlanLimitExceeded(), 403, 403),  # another app's subclass takes its parent's statuses
        (UnsafeURL(), 400, 400),
        (errors.AuthenticationFailed(), 401, 401),
        (errors.RateLimited(), 429, 429),
        (errors.PayloadTooLarge(), 413, 413),
        (errors.PlatformFailure(), 502, 502),
        (errors.ApplicationError(), 500, 500),
    ],
)
def test_each_family_maps_the_error_class_to_its_status(error, a, b):
    assert statuses_of(error) == (a, b)


def test_a_service_error_names_a_domain_subject_and_each_family_names_its_field():
    with pytest.raises(errors.InvalidSubject) as caught:
        parse_when("not a time", None)
    exc = caught.value
    assert exc.problems == {"scheduled_for": ["Invalid timestamp."]}
    assert "scheduledFor" not in exc.details

    a = v1_exception_handler(exc, {})
    assert a.status_code == 400
    assert a.data["error"]["code"] == "VALIDATION_ERROR"
    assert a.data["error"]["message"] == "scheduledFor must be an ISO 8601 timestamp."
    assert a.data["error"]["details"] == {"scheduledFor": ["Invalid timestamp."]}
    b = api_exception_handler(exc, {})
    assert b.status_code == 400
    assert b.data == {
        "error": "scheduledFor must be an ISO 8601 timestamp.",
        "details": {"code": "VALIDATION_ERROR", "scheduledFor": ["Invalid timestamp."]},
    }


def test_every_family_names_every_subject_it_knows_with_a_field():
    assert set(FIELD_NAMES["v1"]) == set(FIELD_NAMES["api"])


def test_an_invalid_subject_keeps_a_structured_problem_and_context_in_order():
    exc = errors.InvalidSubject(
        "Some platform content breaks the platform's rules.",
        problems={"variants": {"x": {"caption": ["Too long."]}}, "post_type": "Must be feed."},
        context={"reason": "too_long"},
    )
    assert list(details_in(exc, "v1").items()) == [
        ("content", {"x": {"caption": ["Too long."]}}),
        ("postType", ["Must be feed."]),
        ("reason", "too_long"),
    ]
    assert details_in(exc, "api") == details_in(exc, "v1")


def test_any_domain_error_can_name_subjects_and_the_family_names_their_fields():
    exc = errors.RuleViolation(
        "manual_upload needs the client's media (mediaId of an upload).",
        problems={"source_media": "Required for manual_upload."},
    )
    assert exc.details == {"source_media": ["Required for manual_upload."]}
    a = v1_exception_handler(exc, {})
    assert (a.status_code, a.data["error"]["details"]) == (400, {"mediaId": ["Required for manual_upload."]})
    b = api_exception_handler(exc, {})
    assert (b.status_code, b.data["details"]) == (
        422,
        {"code": "VALIDATION_ERROR", "mediaId": ["Required for manual_upload."]},
    )


APPS = Path(__file__).resolve().parents[2] / "apps"
#: the modules that write: they speak in domain subjects ("scheduled_date"), never in a family's
#: request fields ("scheduledDate")
SERVICE_MODULES = [
    *sorted(APPS.glob("*/services.py")),
    *sorted(APPS.glob("*/services/*.py")),
    APPS / "publishing/oauth.py",
    APPS / "publishing/post_urls.py",
]


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            yield node, func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


@pytest.mark.parametrize("path", SERVICE_MODULES, ids=lambda p: str(p.relative_to(APPS)))
def test_services_name_domain_subjects_never_request_fields(path):
    for call, name in _calls(path):
        assert name != "ValidationFailed", f"{path}:{call.lineno}: raise an InvalidSubject naming a subject"
        subjects = [
            k.value
            for kw in call.keywords
            if kw.arg == "problems" and isinstance(kw.value, ast.Dict)
            for k in kw.value.keys
            if isinstance(k, ast.Constant)
        ]
        if name in ("InvalidSubject",) and len(call.args) > 1 and isinstance(call.args[1], ast.Constant):
            subjects.append(call.args[1].value)
        for subject in subjects:
            assert re.fullmatch(r"[a-z_]+", subject), (
                f"{path}:{call.lineno}: {subject!r} is not a domain subject"
            )


def test_the_staff_console_names_a_services_subjects_in_words():
    """The admin shows a refusal as its message and its problems, the domain subjects in words
    (not a family's request field: staff use neither API)."""
    from apps.content.admin import error_text
    from apps.core.errors import InvalidSubject

    exc = InvalidSubject("scheduledDate is in the past.", "scheduled_date", "Must be today or later.")
    assert error_text(exc) == "scheduledDate is in the past. scheduled date: Must be today or later."
