from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema, extend_schema_view

from apps.core.errors import ValidationFailed
from apps.core.views import ListMixin, V1ViewSet

from .. import permissions, selectors, services
from ..models import Brand
from . import serializers as s

#: the rows `assets.logo` names: the brand's own foreign key's model (media's assets), reached
#: through the field so brands imports no media (issue 11)
_LOGO_ROWS: Any = Brand._meta.get_field("logo").related_model


@extend_schema_view(list=extend_schema(operation_id="v1_brands_list"))
class BrandViewSet(ListMixin, V1ViewSet):
    queryset = selectors.brand_rows()
    output_serializer = s.BrandOutput
    id_kind = "brand"
    policy = permissions.BRANDS
    sort_fields = {"createdAt": "created_at", "name": "name", "updatedAt": "updated_at"}
    default_sort = ("created_at", "desc")

    def _fields(self, serializer_class) -> dict:
        fields = self.valid_serializer(serializer_class).to_fields()
        if "logo_ref" in fields:
            ref = fields.pop("logo_ref")
            if ref and "://" in ref:  # assets.logo is "string, URL" in the spec: an https URL
                try:
                    URLValidator(schemes=["https"])(ref)
                except DjangoValidationError:
                    raise ValidationFailed(
                        "assets.logo must be an https URL or the assetId of an image uploaded to this brand.",
                        {"assets": {"logo": ["Enter an https URL or an assetId."]}},
                    ) from None
                fields["logo_url"] = ref
                fields["logo"] = None
            elif ref:
                fields["logo"] = self.ref(
                    _LOGO_ROWS.objects.for_organization(self.actor.organization),
                    ref,
                    "asset",
                    "assets.logo",
                    message="assets.logo must be the assetId of an image uploaded to this brand.",
                    details={
                        "assets": {"logo": ["Unknown asset; upload it with POST /v1/brands/{id}/assets."]}
                    },
                )
                fields["logo_url"] = ""
            else:
                fields["logo"] = None
                fields["logo_url"] = ""
        return fields

    @extend_schema(responses=s.BrandOutput, operation_id="v1_brands_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_brand(self.get_object(), request))

    @extend_schema(request=s.BrandInput, responses={201: s.BrandOutput}, operation_id="v1_brands_create")
    def create(self, request):
        brand = services.brand_create(organization=self.actor.organization, **self._fields(s.BrandInput))
        return self.respond(s.present_brand(brand, request), status=201)

    @extend_schema(request=s.BrandUpdateInput, responses=s.BrandOutput, operation_id="v1_brands_update")
    def update(self, request, pk=None):
        brand = self.get_object()
        brand = services.brand_update(brand=brand, **self._fields(s.BrandUpdateInput))
        return self.respond(s.present_brand(brand, request))

    @extend_schema(responses={204: None}, operation_id="v1_brands_destroy")
    def destroy(self, request, pk=None):
        services.brand_delete(brand=self.get_object())
        return self.respond(None, status=204)
