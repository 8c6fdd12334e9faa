"""POST /v1/content/import and /api/content/import (multipart `file`), and the template CSV."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.errors import ValidationFailed
from apps.core.views import ApiViewSet, V1ViewSet

from .permissions import IMPORTING
from .serializers import IMPORT_HELP, IMPORT_UPLOAD, ImportOutput, present_import
from .services.importing import TEMPLATE, content_import


def _run(view: Any, request: Request) -> Response:
    view.form_fields()
    uploaded = request.FILES.get("file")
    if uploaded is None:
        raise ValidationFailed("Send the file as the multipart part `file`.", {"file": ["Required."]})
    result = content_import(
        organization=view.actor.organization,
        filename=uploaded.name or "",
        data=uploaded.read(),
        actor=view.actor,
    )
    return view.respond(present_import(result, view.family), status=200 if result.replayed else 201)


class ImportV1ViewSet(V1ViewSet):
    policy = IMPORTING
    parser_classes = [MultiPartParser]
    action_buckets = {"create": "batch"}

    @extend_schema(
        request=IMPORT_UPLOAD,
        responses={201: ImportOutput, 200: ImportOutput},
        operation_id="v1_content_import",
        description=IMPORT_HELP,
    )
    def create(self, request: Request) -> Response:
        return _run(self, request)


class ImportApiViewSet(ApiViewSet):
    policy = IMPORTING
    parser_classes = [MultiPartParser]
    action_buckets = {"create": "batch"}

    @extend_schema(
        request=IMPORT_UPLOAD,
        responses={201: ImportOutput, 200: ImportOutput},
        operation_id="api_content_import",
        description=IMPORT_HELP,
    )
    def create(self, request: Request) -> Response:
        return _run(self, request)


def import_template(request: HttpRequest) -> HttpResponse:
    """The import's template CSV (linked from the README, the API docs and the admin)."""
    response = HttpResponse(TEMPLATE, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="postforge-import-template.csv"'
    return response
