"""Domain errors carry no HTTP status; each family's handler maps the error class to one."""

from __future__ import annotations

import pytest

from apps.accounts.plans import PlanLimitExceeded
from apps.core import errors
from apps.core.exceptions import statuses_of
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
