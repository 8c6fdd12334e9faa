"""Typed application errors raised by services; each API family renders them."""

from __future__ import annotations


class ApplicationError(Exception):
    code = "SERVER_ERROR"
    status = 500
    family_b_status: int | None = None  # Family B may answer differently (e.g. 422)

    def __init__(self, message: str = "", details: dict | None = None):
        super().__init__(message or self.__class__.__doc__ or self.code)
        self.message = message or (self.__class__.__doc__ or self.code).strip()
        self.details = details or {}


class ValidationFailed(ApplicationError):
    """Invalid request parameters."""

    code = "VALIDATION_ERROR"
    status = 400


class RuleViolation(ApplicationError):
    """A well-formed request that breaks a business rule (400 in A, 422 in B)."""

    code = "VALIDATION_ERROR"
    status = 400
    family_b_status = 422


class NotFound(ApplicationError):
    """Resource not found."""

    code = "NOT_FOUND"
    status = 404


class Conflict(ApplicationError):
    """Resource conflict."""

    code = "CONFLICT"
    status = 409


class InvalidTransition(Conflict):
    """The action is not allowed in the current status (409 in A, 422 in B)."""

    family_b_status = 422


class PermissionDenied(ApplicationError):
    """Insufficient permissions."""

    code = "AUTHORIZATION_ERROR"
    status = 403


class AuthenticationFailed(ApplicationError):
    """Missing or invalid credentials."""

    code = "AUTHENTICATION_ERROR"
    status = 401


class RateLimited(ApplicationError):
    """Rate limit exceeded."""

    code = "RATE_LIMIT_ERROR"
    status = 429

    def __init__(self, message: str = "", details: dict | None = None, *, retry_after: int = 1):
        super().__init__(message, details)
        self.retry_after = retry_after


class PayloadTooLarge(ApplicationError):
    """The upload is too large."""

    code = "VALIDATION_ERROR"
    status = 413


class PlatformFailure(ApplicationError):
    """Social platform API error."""

    code = "PLATFORM_ERROR"
    status = 502
