"""Family A: POST /v1/profiles/connect; /v1/oauth/redirect-origins."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers

from apps.core.serializers import NamedChoiceField
from apps.core.views import ListMixin, V1ViewSet
from apps.profiles.models import Platform
from apps.profiles.permissions import PROFILES
from apps.profiles.selectors import profile_rows
from apps.profiles.v1.serializers import ProfileOutput as V1ProfileOutput
from apps.profiles.v1.serializers import present_profile

from .. import oauth, permissions
from ..bluesky import bluesky_connect
from ..models import OAuthRedirectOrigin
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


class ConnectInput(ConnectTargetFields):
    platform = NamedChoiceField(choices=Platform.values, max_length=40)
    #: a Page id only with platform facebook or linkedin, `organization` only with linkedin, no Page
    #: id for a LinkedIn `member` (apps.publishing.linkedin_pages.connect_target), stated as the
    #: bodies refused: a top-level `not` leaves the body's type to the generators, where an `anyOf`
    #: of partial schemas made it `Any`/`unknown` (patterns, not enums: drf-spectacular would make
    #: components of enums here)
    openapi_rules = {
        "not": {
            "anyOf": [
                {
                    "required": ["pageId"],
                    "properties": {
                        "pageId": {"minLength": 1},
                        "platform": {"not": {"pattern": "^(facebook|linkedin)$"}},
                    },
                },
                {
                    "required": ["accountType"],
                    "properties": {
                        "accountType": {"pattern": "^organization$"},
                        "platform": {"not": {"pattern": "^linkedin$"}},
                    },
                },
                {
                    "required": ["pageId", "accountType"],
                    "properties": {"pageId": {"minLength": 1}, "accountType": {"pattern": "^member$"}},
                },
            ]
        }
    }


class ConnectOutput(serializers.Serializer):
    authUrl = serializers.CharField()
    state = serializers.CharField()


class ProfileConnectViewSet(V1ViewSet):
    policy = PROFILES

    @extend_schema(request=ConnectInput, responses=ConnectOutput, operation_id="v1_profiles_connect")
    def connect(self, request):
        data = self.validated(ConnectInput)
        auth_url, state = oauth.oauth_begin(
            organization=self.actor.organization,
            actor_user=self.actor.user,
            credential_id=self.actor.credential_id,
            credential_expires_at=self.actor.expires_at,
            platform=data["platform"],
            redirect_uri=data["redirectUri"],
            brand=brand_for_connect(organization=self.actor.organization, brand_id=data.get("brandId")),
            family="v1",
            page_id=data.get("pageId") or "",
            account_type=data.get("accountType") or "",
        )
        return self.respond({"authUrl": auth_url, "state": state})

    @extend_schema(
        request=BlueskyConnectInput,
        responses={201: V1ProfileOutput},
        operation_id="v1_profiles_connect_bluesky",
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


@extend_schema_view(list=extend_schema(operation_id="v1_oauth_redirect_origins_list"))
class RedirectOriginViewSet(ListMixin, V1ViewSet):
    """The origins this organization's connect flows may return to (besides the deployment's)."""

    policy = permissions.REDIRECT_ORIGINS
    id_kind = "redirect_origin"
    sort_fields = {"createdAt": "created_at", "origin": "origin"}
    output_serializer = RedirectOriginOutput

    queryset = OAuthRedirectOrigin.objects.all()

    @extend_schema(
        request=RedirectOriginInput,
        responses={201: RedirectOriginOutput},
        operation_id="v1_oauth_redirect_origins_create",
    )
    def create(self, request):
        data = self.validated(RedirectOriginInput)
        row = oauth.redirect_origin_add(organization=self.actor.organization, origin=data["origin"])
        return self.respond(present_redirect_origin(row, "v1"), status=201)

    @extend_schema(responses={204: None}, operation_id="v1_oauth_redirect_origins_destroy")
    def destroy(self, request, pk=None):
        oauth.redirect_origin_remove(row=self.get_object())
        return self.respond(None, status=204)


class TikTokCreatorInfoViewSet(V1ViewSet):
    """TikTok's creator_info for a client's composer."""

    policy = PROFILES
    id_kind = "profile"
    queryset = profile_rows()

    @extend_schema(
        responses=CreatorInfoOutput,
        operation_id="v1_profiles_tiktok_creator_info",
        description="What TikTok lets this creator choose now (creator_info/query): nickname, avatar, "
        "privacy levels (show them with none preselected), the longest video, and the interactions the "
        "creator disabled. A TikTok schedule or publish sends the chosen level and the creator's "
        "consent in `options.tiktok`. A profile on another platform is a 400.",
    )
    def creator_info(self, request, pk=None):
        profile = self.get_object()
        info = tiktok_creator_info(profile=profile)
        return self.respond(present_creator_info(profile, info, family="v1"))
