from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema

from apps.core.views import V1ViewSet
from apps.profiles.selectors import profile_list

from .. import openapi, permissions, selectors
from .. import parameters as q
from ..http import export_response


class AnalyticsViewSet(V1ViewSet):
    policy = permissions.ANALYTICS
    id_kind = "profile"  # the path's object: a profile (`profile`)

    def perform_content_negotiation(self, request, force=False):
        # `format=csv|json` names the export's format, not a DRF renderer
        return super().perform_content_negotiation(request, force=True)

    def get_detail_queryset(self):
        return profile_list(organization=self.actor.organization)

    @extend_schema(
        operation_id="v1_analytics_content",
        parameters=[q.ContentReportQuery],
        responses={200: openapi.CONTENT_ANALYTICS},
        extensions={
            "x-postforge-fields": ["period", "metrics", "engagementRateBasis", "breakdown", "clicks"]
        },
    )
    def content(self, request):
        query = self.validated(q.ContentReportQuery, request.query_params)
        data = selectors.content_analytics(
            self.actor.organization,
            query["period"],
            group_by=query["groupBy"],
            metric=query["metric"],
            platform=query["platform"],
            content_id=query["contentId"],
        )
        return self.respond(data)

    @extend_schema(
        operation_id="v1_analytics_profile",
        responses={200: openapi.PROFILE_ANALYTICS},
        extensions={"x-postforge-fields": ["profile", "metrics", "engagementRateBasis", "topContent"]},
        # `timezone` is read (the period's) but, as before, not stated
        parameters=[q.ProfilePeriodQuery, OpenApiParameter("timezone", exclude=True)],
    )
    def profile(self, request, pk=None):
        profile = self.get_object()
        query = self.validated(q.ProfilePeriodQuery, request.query_params)
        return self.respond(selectors.profile_analytics(profile, query["period"]))

    @extend_schema(
        operation_id="v1_analytics_export",
        responses=openapi.EXPORT_RESPONSES,
        extensions={"x-postforge-headers": openapi.EXPORT_HEADERS},
        parameters=[q.ExportQuery],
    )
    def export(self, request):
        query = self.validated(q.ExportQuery, request.query_params)
        return export_response(
            self.actor.organization, fmt=query["format"], period=query["period"], family=self.family
        )
