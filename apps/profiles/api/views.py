from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers as drf_serializers
from rest_framework.decorators import action

from apps.brands import filters as brand_filters
from apps.brands import permissions as brand_permissions
from apps.brands import selectors as brand_selectors
from apps.brands.api import serializers as brand_s
from apps.brands.models import Brand
from apps.brands.services import SETTINGS_DEFAULTS, effective_settings
from apps.core.serializers import iso
from apps.core.views import ApiViewSet, ListMixin

from .. import filters, permissions, selectors, services
from . import serializers as s

_JSON_TYPES = {bool: "boolean", str: "string", int: "number", float: "number", list: "array", dict: "object"}


def _effective_settings_schema() -> dict:
    """Every key of the system layer (always present after the merge), typed from its default."""
    properties = {}
    for key, default in SETTINGS_DEFAULTS.items():
        kind = _JSON_TYPES[type(default)]
        properties[key] = {
            "type": kind,
            **({"items": {"type": "string"}} if kind == "array" else {}),
            **({"additionalProperties": True} if kind == "object" else {}),
        }
    return {
        "type": "object",
        "properties": properties,
        "required": list(SETTINGS_DEFAULTS),
        "additionalProperties": True,
    }


@extend_schema_field(_effective_settings_schema())
class EffectiveSettingsField(drf_serializers.DictField):
    pass


class EffectiveSettingsOutput(drf_serializers.Serializer):
    profileId = drf_serializers.UUIDField()
    brandId = drf_serializers.UUIDField()
    settings = EffectiveSettingsField(help_text="system < brand < profile, merged")
    sources = drf_serializers.DictField(child=drf_serializers.CharField())


class SlotsOutput(drf_serializers.Serializer):
    profileId = drf_serializers.UUIDField()
    timezone = drf_serializers.CharField()
    postingTimes = drf_serializers.ListField(child=drf_serializers.CharField())
    upcoming = drf_serializers.ListField(child=drf_serializers.DateTimeField())


@extend_schema_view(list=extend_schema(operation_id="api_profiles_list"))
class ProfileViewSet(ListMixin, ApiViewSet):
    queryset = selectors.profile_rows()
    filterset_class = filters.ProfileFilter
    output_serializer = s.ProfileOutput
    id_kind = "profile"
    policy = permissions.PROFILES
    sort_fields = {
        "createdAt": "created_at",
        "username": "username",
        "platform": "platform",
        "followerCount": "follower_count",
    }
    default_sort = ("created_at", "desc")

    def get_detail_queryset(self):
        """The caller's profiles, narrowed by the list's own parameters as the list is (and
        with the brand whose settings the effective settings merge)."""
        found = self.filtered(self.get_queryset(), filters.ProfileLookupFilter)
        return found.select_related("brand") if self.action == "effective_settings" else found

    @extend_schema(responses=s.ProfileOutput, operation_id="api_profiles_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_profile_detail(self.get_object()))

    @extend_schema(responses={204: None}, operation_id="api_profiles_destroy")
    def destroy(self, request, pk=None):
        services.profile_disconnect(profile=self.get_object())
        return self.respond(None, status=204)

    @extend_schema(methods=["GET"], responses=s.ProfileOutput, operation_id="api_profiles_settings_get")
    @extend_schema(
        methods=["PUT"],
        request=s.ProfileSettingsInput,
        responses=s.ProfileOutput,
        operation_id="api_profiles_settings_put",
    )
    @action(detail=True, methods=["get", "put"], url_path="settings")
    def profile_settings(self, request, pk=None):
        profile = self.get_object()
        if request.method == "PUT":
            data = self.validated(s.ProfileSettingsInput)
            brand = self.ref(
                Brand.objects.for_organization(self.actor.organization),
                data.get("brandId"),
                "brand",
                "brandId",
                message="Unknown brand.",
            )
            profile = services.profile_update_settings(
                profile=profile,
                display_name=data.get("displayName"),
                settings=data.get("settings"),
                generation_settings=data.get("generationSettings"),
                brand=brand,
            )
        out = s.present_profile(profile)
        out["generationSettings"] = profile.generation_settings
        return self.respond(out)

    @extend_schema(responses=EffectiveSettingsOutput, operation_id="api_profiles_effective_settings")
    @action(detail=True, methods=["get"], url_path="effective-settings")
    def effective_settings(self, request, pk=None):
        profile = self.get_object()
        values, sources = effective_settings(brand=profile.brand, profile=profile)
        return self.respond(
            {
                "profileId": str(profile.pk),
                "brandId": str(profile.brand_id),
                "settings": values,
                "sources": sources,
            }
        )

    @extend_schema(
        methods=["GET"],
        parameters=[s.SlotsQuery],
        responses=SlotsOutput,
        operation_id="api_profiles_slots_get",
    )
    @extend_schema(
        methods=["PUT"],
        parameters=[s.SlotsQuery],
        request=s.ScheduleSlotsInput,
        responses=SlotsOutput,
        operation_id="api_profiles_slots_put",
    )
    @action(detail=True, methods=["get", "put"], url_path="schedule-slots")
    def schedule_slots(self, request, pk=None):
        profile = self.get_object()
        data = self.validated(s.ScheduleSlotsInput) if request.method == "PUT" else None
        days = self.validated(s.SlotsQuery, request.query_params)["days"]  # checked before the write
        if data is not None:
            profile = services.profile_update_settings(profile=profile, settings=dict(data))
        slots = services.schedule_slots(profile=profile, days=days)
        return self.respond(
            {
                "profileId": str(profile.pk),
                "timezone": profile.timezone_name,
                "postingTimes": profile.posting_times,
                "upcoming": [iso(x) for x in slots],
            }
        )

    @extend_schema(request=s.BulkInput, responses={200: dict}, operation_id="api_profiles_bulk")
    @action(detail=False, methods=["post"], url_path="bulk")
    def bulk(self, request):
        data = self.validated(s.BulkInput)
        results = services.profile_bulk_update(organization=self.actor.organization, updates=data["updates"])
        return self.respond({"results": results})


class BrandProfileViewSet(ApiViewSet):
    # A brand's profiles: the brand's route, this app's rows (issue 11). No docstring: the
    # OpenAPI description stays the family's, as when this was a brand action.
    queryset = brand_selectors.brand_rows()
    id_kind = "brand"
    policy = brand_permissions.BRANDS
    #: the brand's profiles: their filters, sort and items
    filterset_class = brand_filters.BrandProfileFilter
    action_sort_fields = {
        "profiles": {"createdAt": "created_at", "username": "username", "platform": "platform"}
    }
    output_serializer = s.ProfileOutput

    @extend_schema(
        methods=["GET"], responses=s.ProfileOutput(many=True), operation_id="api_brands_profiles_list"
    )
    @extend_schema(
        methods=["POST"],
        request=brand_s.ProfileIdsInput,
        responses=s.ProfileOutput(many=True),
        operation_id="api_brands_profiles_add",
    )
    @action(detail=True, methods=["get", "post"], url_path="profiles")
    def profiles(self, request, pk=None):
        brand = self.get_object()
        org_profiles = selectors.profile_rows().for_organization(self.actor.organization)
        if request.method == "POST":
            data = self.validated(brand_s.ProfileIdsInput)
            found = [self.lookup(org_profiles, raw, "profile") for raw in data["profileIds"]]
            for profile in found:
                services.profile_update_settings(profile=profile, brand=brand)
        page = self.paginate_queryset(self.filter_queryset(org_profiles.filter(brand=brand)))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
