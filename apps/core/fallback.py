"""404s in each family's format for paths that match no route (e.g. /v2/...), and the answer
to an error raised outside a view (`server_error`, Django's handler500)."""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.defaults import server_error as django_server_error

from .request_id import current_request_id


# csrf_exempt: these answer every method with a JSON 404; without it a POST/PUT/DELETE to an
# unknown path got Django's HTML "403 CSRF verification failed" page instead.
@csrf_exempt
def v1_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    return JsonResponse(
        {
            "error": {"code": "NOT_FOUND", "message": f"No such endpoint: {request.path}", "details": {}},
            "requestId": current_request_id(),
        },
        status=404,
    )


@csrf_exempt
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    return JsonResponse(
        {"error": f"No such endpoint: {request.path}", "details": {"code": "NOT_FOUND"}}, status=404
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an error raised outside a view's exception handler (a middleware, the
    transaction around a view, the connection itself). The database being away is a 503 with
    Retry-After in the path's family's format (issue 20: a PostgreSQL restart gave 500s);
    anything else Django's 500 page."""
    from .exceptions import DATABASE_UNAVAILABLE, DATABASE_UNAVAILABLE_MESSAGE, database_unavailable_headers

    exc = sys.exc_info()[1]
    if not isinstance(exc, DATABASE_UNAVAILABLE):
        return django_server_error(request)
    if request.path.startswith("/v1/"):
        body: dict = {
            "error": {"code": "SERVICE_UNAVAILABLE", "message": DATABASE_UNAVAILABLE_MESSAGE, "details": {}},
            "requestId": current_request_id(),
        }
    else:
        body = {"error": DATABASE_UNAVAILABLE_MESSAGE, "details": {"code": "SERVICE_UNAVAILABLE"}}
    return JsonResponse(body, status=503, headers=database_unavailable_headers())
