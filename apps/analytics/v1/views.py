from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema

from apps.core import ids
from apps.core.errors import NotFound, ValidationFailed
from apps.core.views import V1ViewSet
from apps.profiles.models import Platform
from apps.profiles.selectors import profile_list

from .. import openapi, selectors
from ..http import export_response, parse_platform
from ..parameters import parse_choice, parse_period, parse_tz


class AnalyticsViewSet(V1ViewSet):
    scope = "analytics"

    def perform_content_negotiation(self, request, force=False):
        # `format=csv|json` names the export's format, not a DRF renderer
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="v1_analytics_content",
        parameters=[
            *[OpenApiParameter(n, str) for n in ("contentId", "startDate", "endDate", "timezone")],
            OpenApiParameter("platform", str, enum=Platform.values),
            OpenApiParameter("metric", str, enum=list(selectors.METRIC_PARAMS)),
            OpenApiParameter("groupBy", str, enum=list(selectors.GROUP_BY), default="day"),
        ],
        responses={200: dict},
        extensions={"x-postforge-fields": ["period", "metrics", "engagementRateBasis", "breakdown"]},
    )
    def content(self, request):
        params = request.query_params
        group_by = parse_choice(params, "groupBy", selectors.GROUP_BY) or "day"
        metric = parse_choice(params, "metric", tuple(selectors.METRIC_PARAMS))
        tz = parse_tz(params.get("timezone"))
        period = parse_period(params, tz=tz)
        content_id = None
        if params.get("contentId"):
            content_id = ids.parse(params["contentId"], "content")
            if content_id is None:
                raise ValidationFailed("Invalid contentId.", {"contentId": ["Not a content id."]})
            from apps.content.models import Content

            if not Content.objects.for_organization(self.actor.organization).filter(pk=content_id).exists():
                raise NotFound("Resource not found.", {"contentId": params["contentId"][:100]})
        data = selectors.content_analytics(
            self.actor.organization,
            period,
            group_by=group_by,
            metric=metric,
            platform=parse_platform(params),
            content_id=content_id,
        )
        return self.respond(data)

    @extend_schema(
        operation_id="v1_analytics_profile",
        responses={200: dict},
        extensions={"x-postforge-fields": ["profile", "metrics", "engagementRateBasis", "topContent"]},
        parameters=[OpenApiParameter("startDate", str), OpenApiParameter("endDate", str)],
    )
    def profile(self, request, pk=None):
        profile = self.lookup(profile_list(organization=self.actor.organization), pk, "profile")
        period = parse_period(request.query_params, tz=parse_tz(request.query_params.get("timezone")))
        return self.respond(selectors.profile_analytics(profile, period))

    @extend_schema(
        operation_id="v1_analytics_export",
        responses=openapi.EXPORT_RESPONSES,
        extensions={"x-postforge-headers": openapi.EXPORT_HEADERS},
        parameters=openapi.EXPORT_PARAMETERS,
    )
    def export(self, request):
        return export_response(self.actor.organization, request.query_params)
