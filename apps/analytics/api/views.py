from __future__ import annotations

from django.db.models import F
from drf_spectacular.utils import OpenApiParameter, extend_schema

from apps.core import ids
from apps.core.errors import ValidationFailed
from apps.core.pagination import paginate_api
from apps.core.schema import sort_enum
from apps.core.views import ApiViewSet
from apps.profiles.models import Platform
from apps.profiles.selectors import profile_list

from .. import monitoring, openapi, reports
from ..http import export_response, parse_platform
from ..parameters import parse_choice, parse_days, parse_period, parse_tz


def _id(params, name, kind):
    raw = params.get(name)
    if not raw:
        return None
    value = ids.parse(raw, kind)
    if value is None:
        raise ValidationFailed(f"Invalid {name}.", {name: [f"Not a {kind} id."]})
    return value


class AnalyticsApiViewSet(ApiViewSet):
    scope = "analytics"

    def perform_content_negotiation(self, request, force=False):
        # `format=csv|json` names the export's format, not a DRF renderer
        return super().perform_content_negotiation(request, force=True)

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
        operation_id="api_analytics_content",
        extensions={"x-postforge-no-filters": True},  # its period is startDate/endDate
        responses={200: {"type": "array", "items": openapi.CONTENT_METRICS_ROW}},
        parameters=[
            *[
                OpenApiParameter(n, str)
                for n in ("brandId", "profileId", "campaignId", "tagId", "startDate", "endDate", "timezone")
            ],
            OpenApiParameter("platform", str, enum=Platform.values),
            OpenApiParameter("sort", str, enum=sort_enum(reports.CONTENT_SORTS), default="publishedAt:desc"),
        ],
    )
    def content(self, request):
        params = request.query_params
        raw_sort = params.get("sort") or "publishedAt:desc"
        name, _, order = raw_sort.partition(":")
        if name not in reports.CONTENT_SORTS or (order or "desc") not in ("asc", "desc"):
            raise ValidationFailed(
                "Invalid sort.",
                {"sort": [f"Use <field>:<asc|desc>, field one of {', '.join(reports.CONTENT_SORTS)}."]},
            )
        period = parse_period(params, tz=parse_tz(params.get("timezone")), default_days=3650)
        qs = reports.content_metrics(
            self.actor.organization,
            brand_id=_id(params, "brandId", "brand"),
            profile_id=_id(params, "profileId", "profile"),
            platform=parse_platform(params),
            campaign_id=_id(params, "campaignId", "campaign"),
            tag_id=_id(params, "tagId", "tag"),
            start=period.start,
            end=period.end,
        )
        field = reports.CONTENT_SORTS[name]
        expr = F(field).asc(nulls_last=True) if order == "asc" else F(field).desc(nulls_last=True)
        page = paginate_api(qs.order_by(expr, "-id"), params)
        return self.respond_page([reports.present_content_metrics(c) for c in page.items], page.pagination)

    def respond_page(self, items, pagination):
        from rest_framework.response import Response

        return Response({"data": items, "pagination": pagination})

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
