from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view

from apps.core.views import ListMixin, V1ViewSet
from apps.platforms.features import feature_platform, features_allowed
from apps.platforms.gates import capabilities

from .. import filters, permissions, selectors, services
from ..api.serializers import pages_of
from . import serializers as s


@extend_schema_view(list=extend_schema(operation_id="v1_profiles_list"))
class ProfileViewSet(ListMixin, V1ViewSet):
    queryset = selectors.profile_rows()
    filterset_class = filters.ProfileFilterA
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

    def get_detail_queryset(self):
        """The caller's profiles, narrowed by the list's `platform` as the list is."""
        return self.filtered(self.get_queryset())

    @extend_schema(responses=s.ProfileOutput, operation_id="v1_profiles_retrieve")
    def retrieve(self, request, pk=None):
        profile = self.get_object()
        return self.respond(
            {
                **s.present_profile(profile),
                "features": features_allowed(
                    feature_platform(profile.platform, profile.external_id), profile.token_scopes
                ),
                "capabilities": capabilities(profile.platform, sandbox=profile.sandbox),
                **pages_of(profile),
            }
        )

    @extend_schema(responses={204: None}, operation_id="v1_profiles_destroy")
    def destroy(self, request, pk=None):
        services.profile_disconnect(profile=self.get_object())
        return self.respond(None, status=204)

    @extend_schema(
        request=s.ProfileSettingsInput, responses=s.ProfileOutput, operation_id="v1_profiles_settings"
    )
    def update_settings(self, request, pk=None):
        profile = self.get_object()
        data = self.validated(s.ProfileSettingsInput)
        profile = services.profile_update_settings(
            profile=profile, display_name=data.get("displayName"), settings=data.get("settings")
        )
        return self.respond(s.present_profile(profile))
