"""Family A: POST /v1/profiles/connect."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from apps.core.serializers import StrictSerializer
from apps.core.views import V1ViewSet

from .. import oauth
from ..selectors import brand_for_connect


class ConnectInput(StrictSerializer):
    platform = serializers.CharField(max_length=40)
    redirectUri = serializers.CharField(max_length=2000)
    brandId = serializers.CharField(required=False, allow_null=True, max_length=64)


class ConnectOutput(serializers.Serializer):
    authUrl = serializers.CharField()
    state = serializers.CharField()


class ProfileConnectViewSet(V1ViewSet):
    scope = "profiles"
    action_roles = {"connect": "admin"}

    @extend_schema(request=ConnectInput, responses=ConnectOutput, operation_id="v1_profiles_connect")
    def connect(self, request):
        data = self.validated(ConnectInput)
        auth_url, state = oauth.oauth_begin(
            organization=self.actor.organization,
            actor_user=self.actor.user,
            credential_id=self.actor.credential_id,
            platform=data["platform"],
            redirect_uri=data["redirectUri"],
            brand=brand_for_connect(organization=self.actor.organization, brand_id=data.get("brandId")),
            family="v1",
        )
        return self.respond({"authUrl": auth_url, "state": state})
