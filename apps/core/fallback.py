"""404s in each family's format for paths that match no route (e.g. /v2/...)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

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
