from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from apps.core import ids
from apps.core.errors import ValidationFailed
from apps.core.filters import FamilyFilterBackend
from apps.core.views import ApiViewSet, ListMixin
from apps.profiles.models import Platform
from apps.profiles.selectors import profile_list

from .. import filters, monitoring, openapi, reports
from ..http import export_response, parse_platform
from ..parameters import parse_choice, parse_days, parse_period, parse_tz
from ..serializers import ContentMetricsOutput


def _id(params, name, kind):
    raw = params.get(name)
    if not raw:
        return None
    value = ids.parse(raw, kind)
    if value is None:
        raise ValidationFailed(f"Invalid {name}.", {name: [f"Not a {kind} id."]})
    return value


class _AnalyticsBase(ApiViewSet):
    scope = "analytics"

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
        operation_id="api_analytics_profiles",
        responses={200: dict},
        parameters=[OpenApiParameter("profileId", str, required=True), OpenApiParameter("period", str)],
    )
    def profiles(self, request):
        params = request.query_params
        if not params.get("profileId"):
            raise ValidationFailed("profileId is required.", {"profileId": ["Required."]})
        profile = self.lookup(
            profile_list(organization=self.actor.organization), params["profileId"], "profile"
        )
        return self.respond(reports.profile_report(profile, parse_days(params.get("period"))))

    @extend_schema(
        operation_id="api_analytics_overview",
        responses={200: dict},
        parameters=[OpenApiParameter("period", str)],
    )
    def overview(self, request):
        return self.respond(
            reports.overview(self.actor.organization, parse_days(request.query_params.get("period")))
        )

    @extend_schema(
        operation_id="api_analytics_export",
        responses=openapi.EXPORT_RESPONSES,
        extensions={"x-postforge-headers": openapi.EXPORT_HEADERS},
        parameters=openapi.EXPORT_PARAMETERS,
    )
    def export(self, request):
        return export_response(self.actor.organization, request.query_params)

    @extend_schema(
        operation_id="api_analytics_best_times",
        responses={200: dict},
        parameters=[OpenApiParameter("profileId", str, required=True)],
    )
    def best_times(self, request):
        params = request.query_params
        if not params.get("profileId"):
            raise ValidationFailed("profileId is required.", {"profileId": ["Required."]})
        profile = self.lookup(
            profile_list(organization=self.actor.organization), params["profileId"], "profile"
        )
        return self.respond(reports.best_times(profile))


class MonitoringViewSet(ApiViewSet):
    scope = "analytics"

    @extend_schema(
        operation_id="api_monitoring_errors",
        responses={200: dict},
        parameters=[
            *[OpenApiParameter(n, str) for n in ("profileId", "startDate", "endDate")],
            OpenApiParameter("kind", str, enum=list(monitoring.KINDS)),
            OpenApiParameter("platform", str, enum=Platform.values),
        ],
    )
    def errors(self, request):
        params = request.query_params
        kind = parse_choice(params, "kind", monitoring.KINDS)
        since = until = None
        if params.get("startDate") or params.get("endDate"):
            period = parse_period(params, tz=parse_tz(None), default_days=3650)
            since, until = period.start, period.end
        profile_id = _id(params, "profileId", "profile")
        if (
            profile_id
            and not profile_list(organization=self.actor.organization).filter(pk=profile_id).exists()
        ):
            self.lookup(profile_list(organization=self.actor.organization), params["profileId"], "profile")
        groups = monitoring.errors(
            self.actor.organization,
            kind=kind,
            platform=parse_platform(params),
            profile_id=profile_id,
            since=since,
            until=until,
        )
        return self.respond({"errors": groups})
