"""What both families' publishing endpoints share: the connect flow's redirect URI and the
redirect origins (ids prefixed in A, UUIDs in B)."""

from __future__ import annotations

from rest_framework import serializers

from apps.core import ids
from apps.core.serializers import OutputSerializer, StrictSerializer

#: where a connect flow may send the browser back: a service checks the origin is allowed
REDIRECT_URI = {
    "format": "uri",
    "pattern": "^https://",
    "description": "An https URL on an allowed redirect origin (the organization's own, "
    "OAUTH_ALLOWED_REDIRECT_ORIGINS or PUBLIC_BASE_URL)",
}
#: a Facebook Page's or LinkedIn organization page's numeric id, or empty (the only Page; several: page_required)
PAGE_ID = {"pattern": "^[0-9]*$"}
#: `https://host[:port]` with nothing after it (apps.publishing.oauth.normalize_redirect_origin)
ORIGIN = {
    "pattern": r"^https://(?:[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?\.){0,4}[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?"
    r"(?::[1-9][0-9]{0,3})?$"
}


class RedirectOriginInput(StrictSerializer):
    origin = serializers.CharField(max_length=300)
    openapi_fields = {"origin": ORIGIN}


class RedirectOriginOutput(OutputSerializer):
    def present(self, instance) -> dict:
        return present_redirect_origin(instance, self.view.family)

    id = serializers.CharField()
    origin = serializers.CharField()
    createdAt = serializers.DateTimeField()


def present_redirect_origin(row, family: str) -> dict:
    return {
        "id": ids.render(row.pk, "redirect_origin") if family == "v1" else str(row.pk),
        "origin": row.origin,
        "createdAt": row.created_at.isoformat().replace("+00:00", "Z"),
    }


class BlueskyConnectInput(StrictSerializer):
    """A Bluesky account: its handle (or DID) and an app password made for Postforge."""

    handle = serializers.CharField(max_length=253, help_text="e.g. acme.bsky.social")
    appPassword = serializers.CharField(
        max_length=64,
        trim_whitespace=False,
        help_text="An app password (bsky.app: Settings > Privacy and security > App passwords); "
        "stored encrypted, revocable at Bluesky",
    )
    brandId = serializers.CharField(required=False, allow_null=True, max_length=64)
