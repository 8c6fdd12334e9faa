from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema

from apps.core.errors import ValidationFailed
from apps.core.views import V1ViewSet
from apps.platforms.features import features_allowed

from .. import permissions, selectors, services
from ..api.serializers import pages_of
from ..models import Platform, normalize_platform
from . import serializers as s


class ProfileViewSet(V1ViewSet):
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

    def _profiles(self):
        params = self.request.query_params
        platform = None
        if params.get("platform"):
            platform = normalize_platform(params["platform"])
            if platform is None:
                raise ValidationFailed(
                    "Unknown platform.", {"platform": [f"Unknown platform '{params['platform']}'."]}
                )
        return selectors.profile_list(organization=self.actor.organization, platform=platform)

    @extend_schema(
        responses=s.ProfileOutput(many=True),
        operation_id="v1_profiles_list",
        parameters=[
            OpenApiParameter("platform", str, enum=Platform.values),
            OpenApiParameter("page", int),
            OpenApiParameter("limit", int),
        ],
    )
    def list(self, request):
        return self.respond_list(self._profiles(), s.present_profile)

    @extend_schema(responses=s.ProfileOutput, operation_id="v1_profiles_retrieve")
    def retrieve(self, request, pk=None):
        profile = self.lookup(self._profiles(), pk)
        return self.respond(
            {
                **s.present_profile(profile),
                "features": features_allowed(profile.platform, profile.token_scopes),
                **pages_of(profile),
            }
        )

    @extend_schema(responses={204: None}, operation_id="v1_profiles_destroy")
    def destroy(self, request, pk=None):
        services.profile_disconnect(profile=self.lookup(self._profiles(), pk))
        return self.respond(None, status=204)

    @extend_schema(
        request=s.ProfileSettingsInput, responses=s.ProfileOutput, operation_id="v1_profiles_settings"
    )
    def update_settings(self, request, pk=None):
        profile = self.lookup(self._profiles(), pk)
        data = self.validated(s.ProfileSettingsInput)
        profile = services.profile_update_settings(
            profile=profile, display_name=data.get("displayName"), settings=data.get("settings")
        )
        return self.respond(s.present_profile(profile))
