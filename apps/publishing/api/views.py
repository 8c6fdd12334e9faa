"""Family B: /api/oauth/platforms, /api/oauth/<platform>/authorize, /api/oauth/redirect-origins."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.response import Response

from apps.core.views import ApiViewSet, ListMixin
from apps.profiles.api.serializers import ProfileOutput as ApiProfileOutput
from apps.profiles.api.serializers import present_profile
from apps.profiles.models import PLATFORMS, Platform
from apps.profiles.permissions import PROFILES
from apps.profiles.selectors import profile_rows

from .. import oauth, permissions
from ..bluesky import bluesky_connect
from ..models import OAuthRedirectOrigin
from ..oauth_backends import scopes_for
from ..sandbox import scopes as sandbox_scopes
from ..selectors import brand_for_connect
from ..serializers import (
    BlueskyConnectInput,
    ConnectTargetFields,
    CreatorInfoOutput,
    RedirectOriginInput,
    RedirectOriginOutput,
    present_creator_info,
    present_redirect_origin,
)
from ..services.tiktok import tiktok_creator_info


class AuthorizeInput(ConnectTargetFields):
    """Where the connect flow returns, the brand, and (Facebook, LinkedIn) the Page."""


class AuthorizeOutput(serializers.Serializer):
    authUrl = serializers.CharField()
    state = serializers.CharField()


class PlatformOutput(serializers.Serializer):
    platform = serializers.ChoiceField(choices=PLATFORMS)
    mode = serializers.ChoiceField(
        choices=["real", "sandbox", "app_password", "unavailable"],
        help_text="real: app credentials set; sandbox: the local test sandbox (development, or listed "
        "in SANDBOX_PLATFORMS); unavailable: not offered here (see requires)",
    )
    scopes = serializers.ListField(child=serializers.CharField())
    requires = serializers.ListField(
        child=serializers.CharField(), help_text="unavailable: the settings the operator must set"
    )


class OAuthViewSet(ApiViewSet):
    policy = PROFILES
    unpaged_actions = ("platforms",)  # every supported platform in one answer

    @extend_schema(responses=PlatformOutput(many=True), operation_id="api_oauth_platforms")
    def platforms(self, request):
        rows = [
            {
                **row,
                "scopes": scopes_for(row["platform"])
                if row["mode"] == "real"
                else sandbox_scopes(row["platform"]),
            }
            for row in oauth.supported_platforms()
        ]
        pagination = {"limit": len(rows), "offset": 0, "total": len(rows), "hasNext": False, "hasPrev": False}
        return Response({"data": rows, "pagination": pagination})

    @extend_schema(
        request=AuthorizeInput,
        responses=AuthorizeOutput,
        operation_id="api_oauth_authorize",
        parameters=[OpenApiParameter("platform", str, OpenApiParameter.PATH, enum=Platform.values)],
    )
    def authorize(self, request, platform=None):
        data = self.validated(AuthorizeInput)
        auth_url, state = oauth.oauth_begin(
            organization=self.actor.organization,
            actor_user=self.actor.user,
            credential_id=self.actor.credential_id,
            credential_expires_at=self.actor.expires_at,
            platform=platform or "",
            redirect_uri=data["redirectUri"],
            brand=brand_for_connect(organization=self.actor.organization, brand_id=data.get("brandId")),
            family="api",
            page_id=data.get("pageId") or "",
            account_type=data.get("accountType") or "",
        )
        return self.respond({"authUrl": auth_url, "state": state})

    @extend_schema(
        request=BlueskyConnectInput,
        responses={201: ApiProfileOutput},
        operation_id="api_oauth_bluesky_app_password",
        description="Connect a Bluesky account with its handle and an app password (no redirect).",
    )
    def bluesky(self, request):
        data = self.validated(BlueskyConnectInput)
        profile = bluesky_connect(
            organization=self.actor.organization,
            handle=data["handle"],
            app_password=data["appPassword"],
            brand=brand_for_connect(organization=self.actor.organization, brand_id=data.get("brandId")),
        )
        return self.respond(present_profile(profile, request), status=201)


@extend_schema_view(list=extend_schema(operation_id="api_oauth_redirect_origins_list"))
class RedirectOriginViewSet(ListMixin, ApiViewSet):
    """The origins this organization's connect flows may return to (besides the deployment's)."""

    policy = permissions.REDIRECT_ORIGINS
    id_kind = "redirect_origin"
    sort_fields = {"createdAt": "created_at", "origin": "origin"}
    search_fields = ("origin",)
    output_serializer = RedirectOriginOutput

    queryset = OAuthRedirectOrigin.objects.all()

    @extend_schema(
        request=RedirectOriginInput,
        responses={201: RedirectOriginOutput},
        operation_id="api_oauth_redirect_origins_create",
    )
    def create(self, request):
        data = self.validated(RedirectOriginInput)
        row = oauth.redirect_origin_add(organization=self.actor.organization, origin=data["origin"])
        return self.respond(present_redirect_origin(row, "api"), status=201)

    @extend_schema(responses={204: None}, operation_id="api_oauth_redirect_origins_destroy")
    def destroy(self, request, pk=None):
        oauth.redirect_origin_remove(row=self.get_object())
        return self.respond(None, status=204)


class TikTokCreatorInfoViewSet(ApiViewSet):
    """TikTok's creator_info for a client's composer."""

    policy = PROFILES
    id_kind = "profile"
    queryset = profile_rows()

    @extend_schema(
        responses=CreatorInfoOutput,
        operation_id="api_profiles_tiktok_creator_info",
        description="What TikTok lets this creator choose now (creator_info/query): nickname, avatar, "
        "privacy levels (show them with none preselected), the longest video, and the interactions the "
        "creator disabled. A TikTok schedule or publish sends the chosen level and the creator's "
        "consent in `tiktok`. A profile on another platform is a 400.",
    )
    def creator_info(self, request, pk=None):
        profile = self.get_object()
        info = tiktok_creator_info(profile=profile)
        return self.respond(present_creator_info(profile, info, family="api"))
