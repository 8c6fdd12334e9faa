"""Typed application errors raised by services; each API family renders them.

An error names what went wrong (its class and `code`), never an HTTP status: each family's
handler (apps.core.exceptions) maps the class to its status."""

from __future__ import annotations

from typing import Any, TypeAlias

#: what is wrong with a subject: a sentence (rendered as a one-item list), or a structure the
#: families share as it is (a list of sentences, or per platform and field)
Problem: TypeAlias = str | list[Any] | dict[str, Any]


class ApplicationError(Exception):
    """An error a service raises.

    `problems` name what is wrong by domain subject ("scheduled_date", "variants", "source_media"),
    never by request field: each family's handler names the subject's field
    (`apps.core.exceptions.FIELD_NAMES`). `details` adds what names no subject (an upload's
    `reason` code, a refused transition's `allowedActions`), after the problems."""

    code = "SERVER_ERROR"

    def __init__(
        self, message: str = "", details: dict | None = None, *, problems: dict[str, Problem] | None = None
    ):
        super().__init__(message or self.__class__.__doc__ or self.code)
        self.message = message or (self.__class__.__doc__ or self.code).strip()
        self.problems: dict[str, list[Any] | dict[str, Any]] = {
            s: [p] if isinstance(p, str) else p for s, p in (problems or {}).items()
        }
        self.context: dict[str, Any] = details or {}
        self.details = {**self.problems, **self.context} if self.problems else self.context


class ValidationFailed(ApplicationError):
    """Invalid request parameters."""

    code = "VALIDATION_ERROR"


class InvalidSubject(ValidationFailed):
    """Values a service or selector refused, each named by the domain subject it concerns: one
    (`subject`, `problem`) or several (`problems`, in the order the details list them);
    `context` adds details that name no subject."""

    def __init__(
        self,
        message: str,
        subject: str | None = None,
        problem: Problem = "",
        *,
        problems: dict[str, Problem] | None = None,
        context: dict[str, Any] | None = None,
    ):
        named = {subject: problem} if subject is not None else {}
        super().__init__(message, context, problems={**named, **(problems or {})})


class UnknownReference(InvalidSubject):
    """Objects named by id that the organization does not have (or nobody has)."""

    def __init__(self, subject: str, missing: list[str] | None = None):
        problem = f"Not found: {', '.join(missing)}." if missing else "Not found."
        super().__init__(f"Unknown {subject}.", subject, problem)
        self.missing = missing or []


class NoTargets(InvalidSubject):
    """An action that needs objects to act on was given none."""


class RuleViolation(ApplicationError):
    """A well-formed request that breaks a business rule (400 in A, 422 in B)."""

    code = "VALIDATION_ERROR"


class NotFound(ApplicationError):
    """Resource not found."""

    code = "NOT_FOUND"


class Conflict(ApplicationError):
    """Resource conflict."""

    code = "CONFLICT"


class InvalidTransition(Conflict):
    """The action is not allowed in the current status (409 in A, 422 in B)."""


class KeyReusedWithAnotherBody(Conflict):
    """This Idempotency-Key was used with another request body."""


class PermissionDenied(ApplicationError):
    """Insufficient permissions."""

    code = "AUTHORIZATION_ERROR"


class AuthenticationFailed(ApplicationError):
    """Missing or invalid credentials."""

    code = "AUTHENTICATION_ERROR"


class RateLimited(ApplicationError):
    """Rate limit exceeded."""

    code = "RATE_LIMIT_ERROR"

    def __init__(self, message: str = "", details: dict | None = None, *, retry_after: int = 1):
        super().__init__(message, details)
        self.retry_after = retry_after


class PayloadTooLarge(ApplicationError):
    """The upload is too large."""

    code = "VALIDATION_ERROR"


class PlatformFailure(ApplicationError):
    """Social platform API error."""

    code = "PLATFORM_ERROR"
