"""Family B: POST /api/content/{id}/preflight and /api/content/preflight (issue 32)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.content import selectors as content_selectors
from apps.core.serializers import StrictSerializer
from apps.core.views import ApiViewSet

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


class ContentPreflightInput(StrictSerializer):
    profileIds = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        min_length=1,
        max_length=50,
        help_text="The profiles to check (default: the profiles the content is scheduled on, else every "
        "connected profile of its brand on its platforms)",
    )
    scheduledFor = serializers.CharField(
        required=False, max_length=64, help_text="Default: the content's scheduled time, else now"
    )
    timezone = serializers.CharField(required=False, max_length=64)
    firstComment = serializers.CharField(required=False, allow_blank=True, max_length=2200)
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)


class DraftPreflightInput(DraftFields):
    profileIds = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=50
    )
    firstComment = serializers.CharField(required=False, allow_blank=True, max_length=2200)
    tiktok = TikTokChoicesInput(required=False, help_text=TIKTOK_HELP)


def _options(data: dict[str, Any]) -> dict[str, Any] | None:
    found: dict[str, Any] = {k: data[k] for k in ("firstComment", "tiktok") if k in data}
    return found or None


class PreflightViewSet(ApiViewSet):
    id_kind = "content"
    policy = PREFLIGHT

    def get_detail_queryset(self) -> Any:
        return content_selectors.content_get(organization=self.actor.organization)

    @extend_schema(
        request=ContentPreflightInput,
        responses=PreflightOutput,
        operation_id="api_content_preflight",
        description=PREFLIGHT_HELP,
    )
    def content(self, request: Request, pk: str | None = None) -> Response:
        content = self.get_object()
        data = self.validated(ContentPreflightInput)
        reports, when = pf.content_preflight_run(
            organization=self.actor.organization,
            content=content,
            raw_profile_ids=data.get("profileIds"),
            scheduled_for=data.get("scheduledFor"),
            tz_name=data.get("timezone"),
            options=_options(data),
        )
        return self.respond(present_preflight(reports, when, "api"))

    @extend_schema(
        request=DraftPreflightInput,
        responses=PreflightOutput,
        operation_id="api_content_preflight_draft",
        description="The pre-flight check of a post not yet created. " + PREFLIGHT_HELP,
    )
    def draft(self, request: Request) -> Response:
        data = self.validated(DraftPreflightInput)
        reports, when = pf.draft_preflight_run(
            organization=self.actor.organization,
            raw_profile_ids=data["profileIds"],
            post_type=data["postType"],
            media_type=data["mediaType"],
            text=data.get("text", ""),
            variants=data.get("variants"),
            media_ids=data.get("mediaIds") or [],
            scheduled_for=data.get("scheduledFor"),
            tz_name=data.get("timezone"),
            options=_options(data),
        )
        return self.respond(present_preflight(reports, when, "api"))
