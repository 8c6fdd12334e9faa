from __future__ import annotations

from .request_id import new_request_id, reset_request_id, set_request_id


class RequestIdMiddleware:
    """Give every request an id (or keep a sane incoming X-Request-ID) and echo it back."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = new_request_id(request.headers.get("X-Request-ID"))
        request.request_id = request_id
        token = set_request_id(request_id)
        try:
            response = self.get_response(request)
        finally:
            reset_request_id(token)
        response["X-Request-ID"] = request_id
        return response
