from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser

from apps.core.views import ApiViewSet, ListMixin
from apps.media.api.serializers import MediaOutput, present_media
from apps.media.models import Kind, MediaAsset
from apps.media.services import media_delete, media_upload
from apps.profiles.api.serializers import ProfileOutput, present_profile
from apps.profiles.models import SocialProfile
from apps.profiles.services import profile_update_settings

from .. import filters, permissions, selectors, services
from . import serializers as s

_UPLOAD = {
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary"}},
        "required": ["file"],
        "additionalProperties": False,
    }
}


@extend_schema_view(list=extend_schema(operation_id="api_brands_list"))
class BrandViewSet(ListMixin, ApiViewSet):
    queryset = selectors.brand_rows()
    output_serializer = s.BrandOutput
    id_kind = "brand"
    policy = permissions.BRANDS
    sort_fields = {"createdAt": "created_at", "name": "name", "slug": "slug", "updatedAt": "updated_at"}
    default_sort = ("created_at", "desc")
    filterset_class = filters.BrandFilter
    #: the nested lists hold profiles and media, not brands: their own sort and search fields
    profile_sort_fields = {"createdAt": "created_at", "username": "username", "platform": "platform"}
    media_sort_fields = {"createdAt": "created_at", "size": "size"}
    #: what the OpenAPI schema lists as each nested list's `sort` values
    action_sort_fields = {"profiles": profile_sort_fields, "reference_images": media_sort_fields}

    def _brands(self):
        return self.get_queryset()

    def _brand(self, pk):
        return self.lookup(self._brands(), pk)

    @extend_schema(responses=s.BrandOutput, operation_id="api_brands_retrieve")
    def retrieve(self, request, pk=None):
        return self.respond(s.present_brand(self._brand(pk), request))

    @extend_schema(request=s.BrandInput, responses={201: s.BrandOutput}, operation_id="api_brands_create")
    def create(self, request):
        ser = self.valid_serializer(s.BrandInput)
        brand = services.brand_create(organization=self.actor.organization, **ser.to_fields())
        return self.respond(s.present_brand(brand, request), status=201)

    @extend_schema(request=s.BrandUpdateInput, responses=s.BrandOutput, operation_id="api_brands_update")
    def update(self, request, pk=None):
        brand = self._brand(pk)
        ser = self.valid_serializer(s.BrandUpdateInput)
        return self.respond(s.present_brand(services.brand_update(brand=brand, **ser.to_fields()), request))

    @extend_schema(responses={204: None}, operation_id="api_brands_destroy")
    def destroy(self, request, pk=None):
        services.brand_delete(brand=self._brand(pk))
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
        brand = self._brand(pk)
        if request.method == "PUT":
            data = self.validated(s.GenerationSettingsInput)
            permissions.require_settings_change(self.actor, brand, data)
            brand = services.brand_settings_update(brand=brand, settings=data)
        return self.respond(services.brand_settings_full(brand))

    # --- logo --------------------------------------------------------------------------
    @extend_schema(methods=["GET"], responses=MediaOutput, operation_id="api_brands_logo_get")
    @extend_schema(
        methods=["POST"], request=_UPLOAD, responses={201: MediaOutput}, operation_id="api_brands_logo_post"
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
            services.brand_update(brand=brand, logo=asset)
            return self.respond(present_media(asset, request), status=201)
        if request.method == "DELETE":
            services.brand_update(brand=brand, logo=None)
            return self.respond(None, status=204)
        if not brand.logo_id:
            from apps.core.errors import NotFound

            raise NotFound("This brand has no logo.", {"brandId": str(brand.pk)})
        return self.respond(present_media(brand.logo, request))

    # --- profiles ------------------------------------------------------------------------
    @extend_schema(
        methods=["GET"], responses=ProfileOutput(many=True), operation_id="api_brands_profiles_list"
    )
    @extend_schema(
        methods=["POST"],
        request=s.ProfileIdsInput,
        responses=ProfileOutput(many=True),
        operation_id="api_brands_profiles_add",
    )
    @action(detail=True, methods=["get", "post"], url_path="profiles")
    def profiles(self, request, pk=None):
        brand = self._brand(pk)
        if request.method == "POST":
            data = self.validated(s.ProfileIdsInput)
            org_profiles = SocialProfile.objects.for_organization(self.actor.organization)
            found = [self.lookup(org_profiles, raw, "profile") for raw in data["profileIds"]]
            for profile in found:
                profile_update_settings(profile=profile, brand=brand)
        qs = SocialProfile.objects.for_organization(self.actor.organization).filter(brand=brand)
        self.sort_fields, self.filterset_class = self.profile_sort_fields, filters.BrandProfileFilter
        return self.respond_list(qs, present_profile)

    # --- reference images ------------------------------------------------------------
    @extend_schema(methods=["GET"], responses=MediaOutput(many=True), operation_id="api_brands_refs_list")
    @extend_schema(
        methods=["POST"], request=_UPLOAD, responses={201: MediaOutput}, operation_id="api_brands_refs_create"
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
        self.sort_fields, self.filterset_class = self.media_sort_fields, filters.BrandMediaFilter
        return self.respond_list(qs, lambda a: present_media(a, request))

    @extend_schema(responses={204: None}, operation_id="api_brands_refs_delete")
    @action(detail=True, methods=["delete"], url_path=r"reference-images/(?P<image_id>[^/]+)")
    def reference_image_delete(self, request, pk=None, image_id=None):
        brand = self._brand(pk)
        qs = MediaAsset.objects.for_organization(self.actor.organization).references_for_brand(brand)
        media_delete(asset=self.lookup(qs, image_id, "media"))
        return self.respond(None, status=204)
