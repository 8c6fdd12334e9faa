from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.serializers import Serializer

from apps.brands import permissions as brand_permissions
from apps.brands import selectors as brand_selectors
from apps.brands import services as brand_services
from apps.brands.models import Brand
from apps.core.errors import NotFound, ValidationFailed
from apps.core.filters import ListFilterSet
from apps.core.views import ApiViewSet, ListMixin

from .. import filters, permissions, selectors
from ..models import Kind, MediaAsset
from ..services import media_delete, media_upload
from .serializers import MediaOutput, ThumbnailOutput, present_media

_UPLOAD: dict[str, Any] = {
    "multipart/form-data": {
        "type": "object",
        "properties": {
            "file": {"type": "string", "format": "binary"},
            "brandId": {"type": "string"},
            "kind": {"type": "string", "enum": ["upload", "reference", "asset", "font"]},
        },
        "required": ["file"],
        "additionalProperties": False,
    }
}
#: a brand's logo and reference images: the file alone (the brand is the path's)
_FILE_UPLOAD = {
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary"}},
        "required": ["file"],
        "additionalProperties": False,
    }
}
#: reference images are always kind=reference: no `kind` part (issue 10)
_REF_UPLOAD = {
    "multipart/form-data": {
        **_UPLOAD["multipart/form-data"],
        "properties": {k: v for k, v in _UPLOAD["multipart/form-data"]["properties"].items() if k != "kind"},
    }
}


@extend_schema_view(list=extend_schema(operation_id="api_media_list"))
class MediaViewSet(ListMixin, ApiViewSet):
    queryset = selectors.media_rows()
    filterset_class = filters.MediaFilter
    output_serializer = MediaOutput
    id_kind = "media"
    policy = permissions.MEDIA
    sort_fields = {"createdAt": "created_at", "size": "size"}
    default_sort = ("created_at", "desc")
    parser_classes = [MultiPartParser]
    #: the lists an action answers: their FilterSets (what they list, and its parameters) and
    #: how each item is presented
    action_filtersets: dict[str, type[ListFilterSet]] = {
        "reference_images": filters.ReferenceImageFilter,
        "thumbnails": filters.ThumbnailFilter,
    }
    action_outputs: dict[str, type[Serializer]] = {"thumbnails": ThumbnailOutput}

    def get_filterset_class(self) -> type[ListFilterSet]:
        return self.action_filtersets.get(self.action or "") or super().get_filterset_class()

    def get_serializer_class(self):
        return self.action_outputs.get(self.action or "") or super().get_serializer_class()

    def get_detail_queryset(self):
        # the list's `kind`, `type` and `brandId` narrow a path's media too
        return self.filtered(self.get_queryset(), filters.MediaLookupFilter)

    def _brand_param(self, raw):
        return self.ref(
            Brand.objects.for_organization(self.actor.organization),
            raw,
            "brand",
            "brandId",
            message="Unknown brand.",
        )

    @extend_schema(responses=MediaOutput, operation_id="api_media_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(present_media(self.get_object(), request))

    @extend_schema(responses={204: None}, operation_id="api_media_destroy")
    def destroy(self, request, pk=None):
        media_delete(asset=self.get_object())
        return self.respond(None, status=204)

    @extend_schema(request=_UPLOAD, responses={201: MediaOutput}, operation_id="api_media_upload")
    @action(detail=False, methods=["post"], url_path="upload")
    def upload(self, request):
        self.form_fields("brandId", "kind")
        kind = request.data.get("kind") or Kind.UPLOAD
        if kind not in (Kind.UPLOAD, Kind.REFERENCE, Kind.ASSET, Kind.FONT):
            raise ValidationFailed(
                "kind must be upload, reference, asset or font.", {"kind": ["Invalid choice."]}
            )
        brand = self._brand_param(request.data.get("brandId"))
        asset = media_upload(
            organization=self.actor.organization, uploaded=request.FILES.get("file"), kind=kind, brand=brand
        )
        return self.respond(present_media(asset, request), status=201)

    @extend_schema(methods=["GET"], responses=MediaOutput(many=True), operation_id="api_media_refs_list")
    @extend_schema(
        methods=["POST"],
        request=_REF_UPLOAD,
        responses={201: MediaOutput},
        operation_id="api_media_refs_create",
    )
    @action(detail=False, methods=["get", "post"], url_path="reference-images")
    def reference_images(self, request):
        if request.method == "GET":
            return self.list(request)
        self.form_fields("brandId")
        brand = self._brand_param(request.data.get("brandId"))
        asset = media_upload(
            organization=self.actor.organization,
            uploaded=request.FILES.get("file"),
            kind=Kind.REFERENCE,
            brand=brand,
        )
        return self.respond(present_media(asset, request), status=201)

    @extend_schema(responses=ThumbnailOutput(many=True), operation_id="api_media_thumbnails")
    @action(detail=False, methods=["get"], url_path="thumbnails")
    def thumbnails(self, request):
        return self.list(request)


class BrandMediaViewSet(ApiViewSet):
    # A brand's logo and reference images: the brand's routes, this app's rows (issue 11). No
    # docstring: the OpenAPI description stays the family's, as when these were brand actions.
    queryset = brand_selectors.brand_rows()  # the path's brand (`get_object`)
    id_kind = "brand"
    policy = brand_permissions.BRANDS
    #: the brand's reference images: their filters, sort and items
    filterset_class = filters.BrandMediaFilter
    action_sort_fields = {"reference_images": {"createdAt": "created_at", "size": "size"}}
    output_serializer = MediaOutput

    def _references(self, brand):
        return MediaAsset.objects.for_organization(self.actor.organization).references_for_brand(brand)

    @extend_schema(methods=["GET"], responses=MediaOutput, operation_id="api_brands_logo_get")
    @extend_schema(
        methods=["POST"],
        request=_FILE_UPLOAD,
        responses={201: MediaOutput},
        operation_id="api_brands_logo_post",
    )
    @extend_schema(methods=["DELETE"], responses={204: None}, operation_id="api_brands_logo_delete")
    @action(detail=True, methods=["get", "post", "delete"], url_path="logo", parser_classes=[MultiPartParser])
    def logo(self, request, pk=None):
        brand = self.get_object()
        if request.method == "POST":
            self.form_fields()
            asset = media_upload(
                organization=self.actor.organization,
                uploaded=request.FILES.get("file"),
                kind=Kind.LOGO,
                brand=brand,
            )
            brand_services.brand_update(brand=brand, logo=asset)
            return self.respond(present_media(asset, request), status=201)
        if request.method == "DELETE":
            brand_services.brand_update(brand=brand, logo=None)
            return self.respond(None, status=204)
        if not brand.logo_id:
            raise NotFound("This brand has no logo.", {"brandId": str(brand.pk)})
        return self.respond(present_media(brand.logo, request))

    @extend_schema(methods=["GET"], responses=MediaOutput(many=True), operation_id="api_brands_refs_list")
    @extend_schema(
        methods=["POST"],
        request=_FILE_UPLOAD,
        responses={201: MediaOutput},
        operation_id="api_brands_refs_create",
    )
    @action(
        detail=True, methods=["get", "post"], url_path="reference-images", parser_classes=[MultiPartParser]
    )
    def reference_images(self, request, pk=None):
        brand = self.get_object()
        if request.method == "GET":  # the view's FilterSet, sort, paging and output serializer
            page = self.paginate_queryset(self.filter_queryset(self._references(brand)))
            return self.get_paginated_response(self.get_serializer(page, many=True).data)
        self.form_fields()
        asset = media_upload(
            organization=self.actor.organization,
            uploaded=request.FILES.get("file"),
            kind=Kind.REFERENCE,
            brand=brand,
        )
        return self.respond(present_media(asset, request), status=201)

    @extend_schema(responses={204: None}, operation_id="api_brands_refs_delete")
    @action(detail=True, methods=["delete"], url_path=r"reference-images/(?P<image_id>[^/]+)")
    def reference_image_delete(self, request, pk=None, image_id=None):
        media_delete(asset=self.lookup(self._references(self.get_object()), image_id, "media"))
        return self.respond(None, status=204)
