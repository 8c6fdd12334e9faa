from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.parsers import MultiPartParser

from apps.core.errors import ValidationFailed
from apps.core.views import ListMixin, V1ViewSet
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_upload

from .. import permissions, selectors, services
from . import serializers as s


@extend_schema_view(list=extend_schema(operation_id="v1_brands_list"))
class BrandViewSet(ListMixin, V1ViewSet):
    queryset = selectors.brand_rows()
    output_serializer = s.BrandOutput
    id_kind = "brand"
    policy = permissions.BRANDS
    sort_fields = {"createdAt": "created_at", "name": "name", "updatedAt": "updated_at"}
    default_sort = ("created_at", "desc")

    def _brands(self):
        return self.get_queryset()

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
                    MediaAsset.objects.for_organization(self.actor.organization),
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
        return self.respond(s.present_brand(self.lookup(self._brands(), pk), request))

    @extend_schema(request=s.BrandInput, responses={201: s.BrandOutput}, operation_id="v1_brands_create")
    def create(self, request):
        brand = services.brand_create(organization=self.actor.organization, **self._fields(s.BrandInput))
        return self.respond(s.present_brand(brand, request), status=201)

    @extend_schema(request=s.BrandUpdateInput, responses=s.BrandOutput, operation_id="v1_brands_update")
    def update(self, request, pk=None):
        brand = self.lookup(self._brands(), pk)
        brand = services.brand_update(brand=brand, **self._fields(s.BrandUpdateInput))
        return self.respond(s.present_brand(brand, request))

    @extend_schema(responses={204: None}, operation_id="v1_brands_destroy")
    def destroy(self, request, pk=None):
        services.brand_delete(brand=self.lookup(self._brands(), pk))
        return self.respond(None, status=204)


class BrandAssetViewSet(V1ViewSet):
    """POST /v1/brands/{id}/assets: multipart field `file`; optional `type` logo|reference|asset."""

    policy = permissions.BRANDS
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "type": {"type": "string", "enum": ["asset", "logo", "reference"]},
                },
                "required": ["file"],
                "additionalProperties": False,
            }
        },
        responses={201: s.AssetOutput},
        operation_id="v1_brand_assets_create",
    )
    def create(self, request, brand_pk=None):
        brand = self.lookup(selectors.brand_list(organization=self.actor.organization), brand_pk, "brand")
        self.form_fields("type")
        kind = request.data.get("type") or Kind.ASSET
        if kind not in (Kind.ASSET, Kind.LOGO, Kind.REFERENCE):
            raise ValidationFailed("type must be asset, logo or reference.", {"type": ["Invalid choice."]})
        asset = media_upload(
            organization=self.actor.organization, uploaded=request.FILES.get("file"), kind=kind, brand=brand
        )
        if kind == Kind.LOGO:
            services.brand_update(brand=brand, logo=asset)
        return self.respond(s.present_asset(asset, request), status=201)
