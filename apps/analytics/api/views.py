from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from apps.core.filters import FamilyFilterBackend
from apps.core.views import ApiViewSet, ListMixin

from .. import filters, monitoring, openapi, permissions, reports
from .. import parameters as q
from ..http import export_response
from ..serializers import ContentMetricsOutput


class _AnalyticsBase(ApiViewSet):
    policy = permissions.ANALYTICS

    def perform_content_negotiation(self, request, force=False):
        # `format=csv|json` names the export's format, not a DRF renderer
        return super().perform_content_negotiation(request, force=True)


@extend_schema_view(
    list=extend_schema(
        operation_id="api_analytics_content",
        extensions={"x-postforge-no-filters": True},  # its period is startDate/endDate
        responses={200: openapi.CONTENT_METRICS_ROW},  # (a list: drf-spectacular makes it an array)
    )
)
class ContentMetricsViewSet(ListMixin, _AnalyticsBase):
    # GET /api/analytics/content: each content's posts' figures, sorted, filtered and paged
    queryset = reports.content_metric_rows()
    output_serializer = ContentMetricsOutput
    filterset_class = filters.ContentMetricsFilter
    filter_backends = [filters.ContentMetricsSort, FamilyFilterBackend]  # the sort is checked first
    sort_fields = reports.CONTENT_SORTS


class AnalyticsApiViewSet(_AnalyticsBase):
    @extend_schema(
        operation_id="api_analytics_profiles", responses={200: dict}, parameters=[q.ProfileReportQuery]
    )
    def profiles(self, request):
        query = self.validated(q.ProfileReportQuery, request.query_params)
        return self.respond(reports.profile_report(query["profileId"], query["period"]))

    @extend_schema(
        operation_id="api_analytics_overview", responses={200: openapi.OVERVIEW}, parameters=[q.OverviewQuery]
    )
    def overview(self, request):
        query = self.validated(q.OverviewQuery, request.query_params)
        return self.respond(reports.overview(self.actor.organization, query["period"]))

    @extend_schema(
        operation_id="api_analytics_export",
        responses=openapi.EXPORT_RESPONSES,
        extensions={"x-postforge-headers": openapi.EXPORT_HEADERS},
        parameters=[q.ExportQuery],
    )
    def export(self, request):
        query = self.validated(q.ExportQuery, request.query_params)
        return export_response(
            self.actor.organization, fmt=query["format"], period=query["period"], family=self.family
        )

    @extend_schema(
        operation_id="api_analytics_best_times", responses={200: dict}, parameters=[q.BestTimesQuery]
    )
    def best_times(self, request):
        query = self.validated(q.BestTimesQuery, request.query_params)
        return self.respond(reports.best_times(query["profileId"]))


class MonitoringViewSet(ApiViewSet):
    policy = permissions.ANALYTICS

    @extend_schema(operation_id="api_monitoring_errors", responses={200: dict}, parameters=[q.ErrorsQuery])
    def errors(self, request):
        query = self.validated(q.ErrorsQuery, request.query_params)
        period = query["period"]
        groups = monitoring.errors(
            self.actor.organization,
            kind=query["kind"],
            platform=query["platform"],
            profile_id=query["profileId"],
            since=period.start if period else None,
            until=period.end if period else None,
        )
        return self.respond({"errors": groups})
