"""Family B: /api/oauth/platforms and /api/oauth/<platform>/authorize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from apps.core.serializers import StrictSerializer
from apps.core.views import ApiViewSet

from .. import oauth
from ..oauth_backends import scopes_for
from ..sandbox import scopes as sandbox_scopes
from ..selectors import brand_for_connect


class AuthorizeInput(StrictSerializer):
    redirectUri = serializers.CharField(max_length=2000)
    brandId = serializers.CharField(required=False, allow_null=True, max_length=64)


class AuthorizeOutput(serializers.Serializer):
    authUrl = serializers.CharField()
    state = serializers.CharField()


class PlatformOutput(serializers.Serializer):
    platform = serializers.CharField()
    mode = serializers.ChoiceField(choices=["real", "sandbox"])
    scopes = serializers.ListField(child=serializers.CharField())


class OAuthViewSet(ApiViewSet):
    scope = "profiles"
    action_roles = {"authorize": "admin"}

    @extend_schema(responses=PlatformOutput(many=True), operation_id="api_oauth_platforms")
    def platforms(self, request):
        rows = [
            {**row, "scopes": scopes_for(row["platform"]) if row["mode"] == "real" else sandbox_scopes(row["platform"])}
            for row in oauth.supported_platforms()
        ]
        pagination = {"limit": len(rows), "offset": 0, "total": len(rows), "hasNext": False, "hasPrev": False}
        return Response({"data": rows, "pagination": pagination})

    @extend_schema(request=AuthorizeInput, responses=AuthorizeOutput, operation_id="api_oauth_authorize")
    def authorize(self, request, platform=None):
        data = self.validated(AuthorizeInput)
        auth_url, state = oauth.oauth_begin(
            organization=self.actor.organization,
            actor_user=self.actor.user,
            credential_id=self.actor.credential_id,
            platform=platform or "",
            redirect_uri=data["redirectUri"],
            brand=brand_for_connect(organization=self.actor.organization, brand_id=data.get("brandId")),
            family="api",
        )
        return self.respond({"authUrl": auth_url, "state": state})
