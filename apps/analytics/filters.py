"""The analytics list's filters and sort (apps.core.filters): `GET /api/analytics/content`.
A bad value is a 400 naming the parameter."""

from __future__ import annotations

from django.db.models import F, QuerySet
from rest_framework.filters import BaseFilterBackend

from apps.brands.models import Brand
from apps.content.models import Campaign, Tag
from apps.core.errors import NotFound, ValidationFailed
from apps.core.filters import ListFilterSet, query_filter
from apps.core.schema import sort_enum
from apps.profiles.models import Platform, SocialProfile

from .parameters import parse_period, parse_platform, parse_tz

#: what OpenAPI says of `platform`
PLATFORM_SCHEMA = {"type": "string", "enum": sorted(Platform.values)}


class ContentMetricsFilter(ListFilterSet):
    """GET /api/analytics/content: content with a post published in the period (`startDate`,
    `endDate` read in `timezone`; by default the ten years up to now), of a brand, a profile, a
    platform, a campaign or a tag."""

    startDate = query_filter("filter_period")
    endDate = query_filter("filter_period")
    timezone = query_filter("filter_period")
    brandId = query_filter("filter_brand")
    profileId = query_filter("filter_profile")
    platform = query_filter("filter_platform", schema=PLATFORM_SCHEMA)
    campaignId = query_filter("filter_campaign")
    tagId = query_filter("filter_tag")

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        # the period applies even when none is given (its default), so it is read here, first
        period = parse_period(self.data, tz=parse_tz(self.data.get("timezone")), default_days=3650)
        queryset = super().filter_queryset(queryset)
        return queryset.filter(publications__published_at__gte=period.start).filter(
            publications__published_at__lt=period.end
        )

    def filter_period(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset  # the three make one period, applied by `filter_queryset`

    def _id(self, value: str, name: str, kind: str) -> object:
        """The id of an object of the caller's organization (malformed: a 400 naming the
        parameter); another organization's, or none, is a 404 naming the parameter, as the
        analytics reports answer (`profileId` of /api/analytics/profiles, `contentId` of
        /v1/analytics/content). Issue 20: it was an empty 200."""
        pk = self.id_of(value, kind=kind, field=name, detail=f"Not a {kind} id.")
        model = {"brand": Brand, "profile": SocialProfile, "campaign": Campaign, "tag": Tag}[kind]
        if not model.objects.for_organization(self.organization).filter(pk=str(pk)).exists():
            raise NotFound("Resource not found.", {name: value[:100]})
        return pk

    def filter_brand(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(brand_id=self._id(value, name, "brand"))

    def filter_profile(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(publications__profile_id=self._id(value, name, "profile"))

    def filter_platform(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(publications__profile__platform=parse_platform({name: value}))

    def filter_campaign(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(campaign_id=self._id(value, name, "campaign"))

    def filter_tag(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(tags__id=self._id(value, name, "tag"))


class ContentMetricsSort(BaseFilterBackend):
    """`sort=<field>` or `sort=<field>:<asc|desc>` over the view's sort fields, descending when
    no direction is given and by default `publishedAt:desc`; empty values last either way, then
    the newest id first. Checked before the filters."""

    default = "publishedAt:desc"

    def filter_queryset(self, request, queryset, view):
        fields = view.get_sort_fields()
        name, _, order = (request.query_params.get("sort") or self.default).partition(":")
        if name not in fields or (order or "desc") not in ("asc", "desc"):
            raise ValidationFailed(
                "Invalid sort.", {"sort": [f"Use <field>:<asc|desc>, field one of {', '.join(fields)}."]}
            )
        field = F(fields[name])
        return queryset.order_by(
            field.asc(nulls_last=True) if order == "asc" else field.desc(nulls_last=True), "-id"
        )

    def get_schema_operation_parameters(self, view) -> list[dict]:
        enum = sorted(sort_enum(view.get_sort_fields()))
        return [
            {
                "in": "query",
                "name": "sort",
                "schema": {"type": "string", "enum": enum, "default": self.default},
            }
        ]
