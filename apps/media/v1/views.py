"""Family A routes for media rows that live under a brand's path (issue 11: the view belongs to
the app that owns the rows, so brands imports no media)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.parsers import MultiPartParser

from apps.brands import permissions as brand_permissions
from apps.brands import selectors as brand_selectors
from apps.brands import services as brand_services
from apps.brands.v1 import serializers as brand_s
from apps.core.errors import ValidationFailed
from apps.core.views import V1ViewSet

from ..models import Kind
from ..services import media_upload


class BrandAssetViewSet(V1ViewSet):
    """POST /v1/brands/{id}/assets: multipart field `file`; optional `type`
    logo|reference|asset|font (a font: TTF, OTF or WOFF2, checked with fontTools)."""

    queryset = brand_selectors.brand_rows()  # the path's brand (`get_object`)
    lookup_url_kwarg = "brand_pk"
    id_kind = "brand"
    policy = brand_permissions.BRANDS
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {
                    "file": {"type": "string", "format": "binary"},
                    "type": {"type": "string", "enum": ["asset", "logo", "reference", "font"]},
                },
                "required": ["file"],
                "additionalProperties": False,
            }
        },
        responses={201: brand_s.AssetOutput},
        operation_id="v1_brand_assets_create",
    )
    def create(self, request, brand_pk=None):
        brand = self.get_object()
        self.form_fields("type")
        kind = request.data.get("type") or Kind.ASSET
        if kind not in (Kind.ASSET, Kind.LOGO, Kind.REFERENCE, Kind.FONT):
            raise ValidationFailed(
                "type must be asset, logo, reference or font.", {"type": ["Invalid choice."]}
            )
        asset = media_upload(
            organization=self.actor.organization, uploaded=request.FILES.get("file"), kind=kind, brand=brand
        )
        if kind == Kind.LOGO:
            brand_services.brand_update(brand=brand, logo=asset)
        return self.respond(brand_s.present_asset(asset, request), status=201)
