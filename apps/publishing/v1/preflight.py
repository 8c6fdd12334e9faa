"""Family A: POST /v1/content/{id}/preflight and /v1/content/preflight (issue 32)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.content import selectors as content_selectors
from apps.core.serializers import StrictSerializer
from apps.core.views import V1ViewSet

from ..permissions import PREFLIGHT
from ..serializers import (
    PREFLIGHT_HELP,
    TIKTOK_HELP,
    DraftFields,
    PreflightOutput,
    TikTokChoicesInput,
    present_preflight,
)
from ..services import preflight as pf

PROFILES_HELP = (
    "The profiles to check (default: the profiles the content is scheduled on, else every connected "
    "profile of its brand on its platforms)"
)


class PreflightOptions(StrictSerializer):
    firstComment = serializers.CharField(required=False, allow_blank=True, max_length=2200)
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)


class ContentPreflightInput(StrictSerializer):
    profiles = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        min_length=1,
        max_length=50,
        help_text=PROFILES_HELP,
    )
    scheduledFor = serializers.CharField(
        required=False, max_length=64, help_text="Default: the content's scheduled time, else now"
    )
    timezone = serializers.CharField(required=False, max_length=64)
    options = PreflightOptions(required=False)


class DraftPreflightInput(DraftFields):
    profiles = serializers.ListField(child=serializers.CharField(max_length=64), min_length=1, max_length=50)
    options = PreflightOptions(required=False)


class PreflightViewSet(V1ViewSet):
    id_kind = "content"
    policy = PREFLIGHT

    def get_detail_queryset(self) -> Any:
        return content_selectors.content_get(organization=self.actor.organization)

    @extend_schema(
        request=ContentPreflightInput,
        responses=PreflightOutput,
        operation_id="v1_content_preflight",
        description=PREFLIGHT_HELP,
    )
    def content(self, request: Request, pk: str | None = None) -> Response:
        content = self.get_object()
        data = self.validated(ContentPreflightInput)
        reports, when = pf.content_preflight_run(
            organization=self.actor.organization,
            content=content,
            raw_profile_ids=data.get("profiles"),
            scheduled_for=data.get("scheduledFor"),
            tz_name=data.get("timezone"),
            options=dict(data["options"]) if "options" in data else None,
        )
        return self.respond(present_preflight(reports, when, "v1"))

    @extend_schema(
        request=DraftPreflightInput,
        responses=PreflightOutput,
        operation_id="v1_content_preflight_draft",
        description="The pre-flight check of a post not yet created. " + PREFLIGHT_HELP,
    )
    def draft(self, request: Request) -> Response:
        data = self.validated(DraftPreflightInput)
        reports, when = pf.draft_preflight_run(
            organization=self.actor.organization,
            raw_profile_ids=data["profiles"],
            post_type=data["postType"],
            media_type=data["mediaType"],
            text=data.get("text", ""),
            variants=data.get("variants"),
            media_ids=data.get("mediaIds") or [],
            scheduled_for=data.get("scheduledFor"),
            tz_name=data.get("timezone"),
            options=dict(data.get("options") or {}),
        )
        return self.respond(present_preflight(reports, when, "v1"))
