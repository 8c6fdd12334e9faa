from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser

from apps.brands import filters as brand_filters
from apps.brands import permissions as brand_permissions
from apps.brands import selectors as brand_selectors
from apps.brands import services as brand_services
from apps.brands.models import Brand
from apps.core import ids
from apps.core.errors import NotFound, ValidationFailed
from apps.core.views import ApiViewSet

from .. import selectors
from ..models import Kind, MediaAsset
from ..services import media_delete, media_upload
from .serializers import MediaOutput, ThumbnailOutput, present_media

_UPLOAD: dict[str, Any] = {
    "multipart/form-data": {
        "type": "object",
        "properties": {
            "file": {"type": "string", "format": "binary"},
            "brandId": {"type": "string"},
            "kind": {"type": "string", "enum": ["upload", "reference", "asset"]},
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


_ID = (
    "(?:med_)?(?:[0-9A-Fa-f]{32}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})"
)
#: what `thumbnails` reads from `ids`: up to 100 media ids, commas between, blanks and empty items ignored
MEDIA_ID_LIST = rf"^\s*(?:{_ID}\s*)?(?:,\s*(?:{_ID}\s*)?){{0,99}}$"


class MediaViewSet(ApiViewSet):
    id_kind = "media"
    scope = "content:write"
    read_scope = "content:read"
    sort_fields = {"createdAt": "created_at", "size": "size"}
    default_sort = ("created_at", "desc")
    search_fields = ("original_filename",)
    parser_classes = [MultiPartParser]

    def _brand_param(self, raw):
        return self.ref(
            Brand.objects.for_organization(self.actor.organization),
            raw,
            "brand",
            "brandId",
            message="Unknown brand.",
        )

    def _media(self, kind=None):
        params = self.request.query_params
        kind = kind or params.get("kind") or None
        if kind and kind not in Kind.values:
            raise ValidationFailed("Unknown kind.", {"kind": [f"Must be one of {', '.join(Kind.values)}."]})
        media_type = params.get("type") or None
        if media_type and media_type not in ("image", "video"):
            raise ValidationFailed("Unknown type.", {"type": ["Must be image or video."]})
        brand = self._brand_param(params.get("brandId"))
        return selectors.media_list(
            organization=self.actor.organization,
            kind=kind,
            brand_id=brand.pk if brand else None,
            media_type=media_type,
        )

    @extend_schema(
        responses=MediaOutput(many=True),
        operation_id="api_media_list",
        parameters=[
            OpenApiParameter("kind", str, enum=list(Kind.values)),
            OpenApiParameter("brandId", str),
            OpenApiParameter("type", str, enum=["image", "video"]),
        ],
    )
    def list(self, request):
        return self.respond_list(self._media(), lambda a: present_media(a, request))

    @extend_schema(responses=MediaOutput, operation_id="api_media_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(present_media(self.lookup(self._media(), pk), request))

    @extend_schema(responses={204: None}, operation_id="api_media_destroy")
    def destroy(self, request, pk=None):
        media_delete(asset=self.lookup(self._media(), pk))
        return self.respond(None, status=204)

    @extend_schema(request=_UPLOAD, responses={201: MediaOutput}, operation_id="api_media_upload")
    @action(detail=False, methods=["post"], url_path="upload")
    def upload(self, request):
        self.form_fields("brandId", "kind")
        kind = request.data.get("kind") or Kind.UPLOAD
        if kind not in (Kind.UPLOAD, Kind.REFERENCE, Kind.ASSET):
            raise ValidationFailed("kind must be upload, reference or asset.", {"kind": ["Invalid choice."]})
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
        if request.method == "POST":
            self.form_fields("brandId")
            brand = self._brand_param(request.data.get("brandId"))
            asset = media_upload(
                organization=self.actor.organization,
                uploaded=request.FILES.get("file"),
                kind=Kind.REFERENCE,
                brand=brand,
            )
            return self.respond(present_media(asset, request), status=201)
        return self.respond_list(self._media(kind=Kind.REFERENCE), lambda a: present_media(a, request))

    @extend_schema(
        responses=ThumbnailOutput(many=True),
        operation_id="api_media_thumbnails",
        parameters=[
            OpenApiParameter(
                "ids",
                {"type": "string", "pattern": MEDIA_ID_LIST},
                description="Comma-separated media ids (up to 100)",
            )
        ],
    )
    @action(detail=False, methods=["get"], url_path="thumbnails")
    def thumbnails(self, request):
        raw = request.query_params.get("ids", "")
        qs = self._media()
        if raw:
            wanted = [ids.parse(x.strip(), "media") for x in raw.split(",") if x.strip()]
            if any(w is None for w in wanted) or len(wanted) > 100:
                raise ValidationFailed("ids must be up to 100 media ids.", {"ids": ["Invalid id list."]})
            qs = qs.filter(pk__in=wanted)
        qs = qs.exclude(thumbnail="")

        def present(asset):
            media = present_media(asset, request)
            return {"id": str(asset.pk), "thumbnailUrl": media["thumbnailUrl"], "url": media["url"]}

        return self.respond_list(qs, present)


class BrandMediaViewSet(ApiViewSet):
    # A brand's logo and reference images: the brand's routes, this app's rows (issue 11). No
    # docstring: the OpenAPI description stays the family's, as when these were brand actions.
    queryset = brand_selectors.brand_rows()
    id_kind = "brand"
    policy = brand_permissions.BRANDS
    sort_fields = {"createdAt": "created_at", "size": "size"}
    filterset_class = brand_filters.BrandMediaFilter

    def _brand(self, pk):
        return self.lookup(self.get_queryset(), pk)

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
        brand = self._brand(pk)
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
        brand = self._brand(pk)
        if request.method == "POST":
            self.form_fields()
            asset = media_upload(
                organization=self.actor.organization,
                uploaded=request.FILES.get("file"),
                kind=Kind.REFERENCE,
                brand=brand,
            )
            return self.respond(present_media(asset, request), status=201)
        qs = MediaAsset.objects.for_organization(self.actor.organization).references_for_brand(brand)
        return self.respond_list(qs, lambda a: present_media(a, request))

    @extend_schema(responses={204: None}, operation_id="api_brands_refs_delete")
    @action(detail=True, methods=["delete"], url_path=r"reference-images/(?P<image_id>[^/]+)")
    def reference_image_delete(self, request, pk=None, image_id=None):
        brand = self._brand(pk)
        qs = MediaAsset.objects.for_organization(self.actor.organization).references_for_brand(brand)
        media_delete(asset=self.lookup(qs, image_id, "media"))
        return self.respond(None, status=204)
