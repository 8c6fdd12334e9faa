"""The two families' exception handlers: one envelope each, never a 500 for bad input.

Family A: ``{"error": {"code", "message", "details"}, "requestId"}``
Family B: ``{"error": "message", "details": {...}}``
"""

from __future__ import annotations

import logging
from typing import Any, TypeAlias

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent, TooManyFilesSent
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

from . import errors
from .request_id import current_request_id

logger = logging.getLogger(__name__)

_DRF_CODES = {
    400: "VALIDATION_ERROR",
    401: "AUTHENTICATION_ERROR",
    403: "AUTHORIZATION_ERROR",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "VALIDATION_ERROR",
    409: "CONFLICT",
    413: "VALIDATION_ERROR",
    415: "VALIDATION_ERROR",
    422: "VALIDATION_ERROR",
    429: "RATE_LIMIT_ERROR",
    502: "PLATFORM_ERROR",
}


class Replay(Exception):
    """Carries a stored response back out through the handler (idempotent replay)."""

    def __init__(self, response: HttpResponse):
        self.response = response


#: error class -> (Family A status, Family B status); the nearest class in the error's MRO
#: decides (a rule broken or a transition refused is a 422 in Family B)
STATUSES: dict[type[errors.ApplicationError], tuple[int, int]] = {
    errors.ApplicationError: (500, 500),
    errors.ValidationFailed: (400, 400),
    errors.RuleViolation: (400, 422),
    errors.NotFound: (404, 404),
    errors.Conflict: (409, 409),
    errors.InvalidTransition: (409, 422),
    errors.KeyReusedWithAnotherBody: (409, 422),
    errors.PermissionDenied: (403, 403),
    errors.AuthenticationFailed: (401, 401),
    errors.RateLimited: (429, 429),
    errors.PayloadTooLarge: (413, 413),
    errors.PlatformFailure: (502, 502),
}


#: the request field that names a domain subject of an error's `problems` in both families
#: (a subject not listed is its own name)
_SHARED_FIELD_NAMES = {
    "brand": "brandId",
    "profile": "profiles",
    "generation_profiles": "profileIds",
    "schedules": "scheduleIds",
    "variants": "content",
    "post_type": "postType",
    "generation_mode": "generationMode",
    "scheduled_date": "scheduledDate",
    "scheduled_for": "scheduledFor",
    "schedule_timezone": "options.timezone",
    "ends_on": "endsOn",
    "posting_times": "postingTimes",
    "default_visibility": "defaultVisibility",
    "redirect_uri": "redirectUri",
    "page_id": "pageId",
    "account_type": "accountType",
    "source_media": "mediaId",
    "reference_image": "referenceImageId",
    "ai_disclosure": "aiGenerated",
}

#: per family: the request field that names each domain subject of an error's `problems`
FIELD_NAMES: dict[str, dict[str, str]] = {
    "v1": {
        **_SHARED_FIELD_NAMES,
        "tiktok_privacy_level": "options.tiktok.privacyLevel",
        "tiktok_consent": "options.tiktok.consent",
    },
    "api": {
        **_SHARED_FIELD_NAMES,
        "tiktok_privacy_level": "tiktok.privacyLevel",
        "tiktok_consent": "tiktok.consent",
    },
}


def details_in(exc: errors.ApplicationError, family: str) -> dict:
    """The error's details as `family` renders them: its problems' subjects named by the
    family's request fields (for per-item results in a 200, as the handler does for a whole
    request)."""
    if not exc.problems:
        return exc.details
    names = FIELD_NAMES[family]
    return {**{names.get(s, s): p for s, p in exc.problems.items()}, **exc.context}


def statuses_of(exc: errors.ApplicationError) -> tuple[int, int]:
    return next(STATUSES[cls] for cls in type(exc).__mro__ if cls in STATUSES)


#: Django's own request errors, the first class that matches: (status, code, message); the
#: specific SuspiciousOperation subclasses come before it
_DJANGO_ERRORS: tuple[tuple[type[Exception] | tuple[type[Exception], ...], int, str, str], ...] = (
    (Http404, 404, "NOT_FOUND", "Resource not found."),
    (DjangoPermissionDenied, 403, "AUTHORIZATION_ERROR", "Insufficient permissions."),
    (RequestDataTooBig, 413, "VALIDATION_ERROR", "The request body is too large."),
    ((TooManyFieldsSent, TooManyFilesSent), 400, "VALIDATION_ERROR", "The request body has too many fields."),
    (SuspiciousOperation, 400, "VALIDATION_ERROR", "The request could not be read."),
)


#: the database went away (a restart, a failover, a dropped connection): a 503 to retry
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
DATABASE_UNAVAILABLE_MESSAGE = "The database is unavailable for a moment; retry after Retry-After seconds."


def database_unavailable_headers() -> dict:
    return {"Retry-After": str(settings.DATABASE_UNAVAILABLE_RETRY_AFTER)}


def _normalize(exc: Exception, family: str) -> tuple[int, int, str, str, dict, dict]:
    """(status A, status B, code, message, details, headers) for any exception; `details` in
    the family's field names."""
    headers: dict = {}
    if isinstance(exc, DATABASE_UNAVAILABLE):
        logger.warning("database unavailable: %s", str(exc).strip()[:200])
        return (
            503,
            503,
            "SERVICE_UNAVAILABLE",
            DATABASE_UNAVAILABLE_MESSAGE,
            {},
            database_unavailable_headers(),
        )
    if isinstance(exc, errors.ApplicationError):
        status_a, status_b = statuses_of(exc)
        if isinstance(exc, errors.RateLimited):
            headers["Retry-After"] = str(exc.retry_after)
        if isinstance(exc, errors.AuthenticationFailed):
            headers["WWW-Authenticate"] = _challenge(exc)
        details = details_in(exc, family)
        return status_a, status_b, exc.code, exc.message, details, headers
    for classes, status, code, message in _DJANGO_ERRORS:
        if isinstance(exc, classes):
            return status, status, code, message, {}, headers
    if isinstance(exc, drf.APIException):
        return _normalize_drf(exc, headers)
    return 500, 500, "SERVER_ERROR", "Internal server error.", {}, headers


def _normalize_drf(exc: drf.APIException, headers: dict) -> tuple[int, int, str, str, dict, dict]:
    """DRF's errors: its status (401 for missing or bad credentials), the code for it and its
    detail as the message; a validation error's detail as `details`."""
    status = exc.status_code
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        status = 401
        headers["WWW-Authenticate"] = 'Bearer realm="postforge"'
    code = _DRF_CODES.get(status, "SERVER_ERROR")
    if isinstance(exc, drf.ValidationError):
        details = exc.detail if isinstance(exc.detail, dict) else {"nonFieldErrors": exc.detail}
        return 400, 400, code, "Invalid request parameters.", _plain_dict(details), headers
    if isinstance(exc, drf.ParseError):
        return 400, 400, code, f"Malformed request body: {exc.detail}", {}, headers
    if isinstance(exc, drf.Throttled):
        headers["Retry-After"] = str(int(getattr(exc, "wait", None) or 1))
    message = str(exc.detail) if not isinstance(exc.detail, list | dict) else "Request failed."
    return status, status, code, message, {}, headers


def _challenge(exc: errors.AuthenticationFailed) -> str:
    """RFC 6750: no credentials is a bare challenge; bad ones say `invalid_token`."""
    if exc.message.startswith("Missing credentials"):
        return 'Bearer realm="postforge"'
    return 'Bearer realm="postforge", error="invalid_token"'


#: DRF's error details as plain JSON: ErrorDetail strings made str, `non_field_errors` renamed
Plain: TypeAlias = dict[str, "Plain"] | list["Plain"] | str


def _plain_dict(value: dict[Any, Any]) -> dict[str, Plain]:
    return {("nonFieldErrors" if k == "non_field_errors" else k): _plain(v) for k, v in value.items()}


def _plain(value: object) -> Plain:
    if isinstance(value, dict):
        return _plain_dict(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value)


def _log_unexpected(exc: Exception, status: int) -> None:
    if status >= 500 and not isinstance(exc, errors.PlatformFailure | OperationalError | InterfaceError):
        logger.exception("Unhandled error", exc_info=exc)


def v1_exception_handler(exc: Exception, context: dict) -> HttpResponse:
    if isinstance(exc, Replay):
        return exc.response
    status, _, code, message, details, headers = _normalize(exc, "v1")
    _log_unexpected(exc, status)
    body = {
        "error": {"code": code, "message": message, "details": details},
        "requestId": current_request_id(),
    }
    if isinstance(exc, errors.RateLimited):
        headers["X-RateLimit-Retry-After"] = str(exc.retry_after)
    return Response(body, status=status, headers=headers)


def api_exception_handler(exc: Exception, context: dict) -> HttpResponse:
    if isinstance(exc, Replay):
        return exc.response
    _, status, code, message, details, headers = _normalize(exc, "api")
    _log_unexpected(exc, status)
    return Response({"error": message, "details": {"code": code, **details}}, status=status, headers=headers)
