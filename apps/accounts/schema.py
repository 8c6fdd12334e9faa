"""OpenAPI security schemes of the authentication classes this app provides (drf-spectacular
extensions, registered when `AccountsConfig.ready` imports this module)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.auth.ApiKeyAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "API key: `Authorization: Bearer pf_live_...`",
        }


class BearerOrJWTScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.auth.ApiKeyOrJWTAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "Identity-provider JWT (RS256/ES256) or API key: `Authorization: Bearer <token>`",
        }
