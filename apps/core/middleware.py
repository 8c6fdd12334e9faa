from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase

from .request_id import new_request_id, reset_request_id, set_request_id


class RequestIdMiddleware:
    """Give every request an id (or keep a sane incoming X-Request-ID) and echo it back."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request_id = new_request_id(request.headers.get("X-Request-ID"))
        # ours, not Django's: django-stubs' HttpRequest declares only Django's own attributes
        request.request_id = request_id  # type: ignore[attr-defined]
        token = set_request_id(request_id)
        try:
            response = self.get_response(request)
        finally:
            reset_request_id(token)
        response["X-Request-ID"] = request_id
        return response
