"""Family A: POST /v1/content/{id}/preflight and /v1/content/preflight (issue 32)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.content import selectors as content_selectors
from apps.core.serializers import StrictSerializer
from apps.core.views import V1ViewSet

from ..permissions import PREFLIGHT
from ..selectors import profiles_for_publishing
from ..serializers import (
    PREFLIGHT_HELP,
    TIKTOK_HELP,
    DraftFields,
    PreflightOutput,
    TikTokChoicesInput,
    present_preflight,
)
from ..services import preflight as pf
from ..services.timing import parse_when

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
        organization = self.actor.organization
        profiles = profiles_for_publishing(
            organization=organization, content=None, raw_ids=data["profiles"], kind="profile"
        )
        subject = pf.draft_subject(
            organization=organization,
            platforms=sorted({p.platform for p in profiles}),
            post_type=data["postType"],
            media_type=data["mediaType"],
            text=data.get("text", ""),
            variants=data.get("variants"),
            media_ids=data.get("mediaIds") or [],
        )
        tz = data.get("timezone")
        when = (
            parse_when(data["scheduledFor"], tz or profiles[0].timezone_name)
            if data.get("scheduledFor")
            else None
        )
        options = dict(data.get("options") or {})
        reports = pf.content_preflight(
            subject=subject, profiles=profiles, scheduled_for=when, options=options
        )
        return self.respond(present_preflight(reports, when or timezone.now(), "v1"))
