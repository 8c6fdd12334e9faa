from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.decorators import action

from apps.core.views import ApiViewSet, ListMixin

from .. import filters, permissions, selectors, services
from . import serializers as s


@extend_schema_view(list=extend_schema(operation_id="api_brands_list"))
class BrandViewSet(ListMixin, ApiViewSet):
    queryset = selectors.brand_rows()
    output_serializer = s.BrandOutput
    id_kind = "brand"
    policy = permissions.BRANDS
    sort_fields = {"createdAt": "created_at", "name": "name", "slug": "slug", "updatedAt": "updated_at"}
    default_sort = ("created_at", "desc")
    filterset_class = filters.BrandFilter

    @extend_schema(responses=s.BrandOutput, operation_id="api_brands_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_brand(self.get_object(), request))

    @extend_schema(request=s.BrandInput, responses={201: s.BrandOutput}, operation_id="api_brands_create")
    def create(self, request):
        ser = self.valid_serializer(s.BrandInput)
        brand = services.brand_create(organization=self.actor.organization, **ser.to_fields())
        return self.respond(s.present_brand(brand, request), status=201)

    @extend_schema(request=s.BrandUpdateInput, responses=s.BrandOutput, operation_id="api_brands_update")
    def update(self, request, pk=None):
        brand = self.get_object()
        ser = self.valid_serializer(s.BrandUpdateInput)
        return self.respond(s.present_brand(services.brand_update(brand=brand, **ser.to_fields()), request))

    @extend_schema(responses={204: None}, operation_id="api_brands_destroy")
    def destroy(self, request, pk=None):
        services.brand_delete(brand=self.get_object())
        return self.respond(None, status=204)

    # --- generation settings ----------------------------------------------------------
    @extend_schema(
        methods=["GET"], responses=s.GenerationSettingsOutput, operation_id="api_brands_settings_get"
    )
    @extend_schema(
        methods=["PUT"],
        request=s.GenerationSettingsInput,
        responses=s.GenerationSettingsOutput,
        operation_id="api_brands_settings_put",
    )
    @action(detail=True, methods=["get", "put"], url_path="settings")
    def generation_settings(self, request, pk=None):
        brand = self.get_object()
        if request.method == "PUT":
            data = self.validated(s.GenerationSettingsInput)
            permissions.require_settings_change(self.actor, brand, data)
            brand = services.brand_settings_update(brand=brand, settings=data)
        return self.respond(services.brand_settings_full(brand))
