"""The brand's API fields that carry a shape of their own (both families)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field

from apps.core.serializers import FreeFormField

from .link_tracking import PLACEHOLDERS, PLATFORMS

#: the settings' shape; the templates' rules (parameter names, placeholders, known platforms) are
#: the service's (`link_tracking_clean`), which names the field it refuses in a 400
LINK_TRACKING_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "enabled": {"type": "boolean"},
        "shortLinks": {"type": "boolean"},
        "utm": {
            "type": "object",
            "maxProperties": 20,
            "additionalProperties": {"type": "string", "maxLength": 200},
            "description": "query parameter name -> value; placeholders "
            + ", ".join("{" + p + "}" for p in PLACEHOLDERS),
        },
        "platforms": {
            "type": "object",
            "description": "per platform ("
            + ", ".join(PLATFORMS)
            + "): parameters that replace the brand-wide ones",
        },
    },
    "description": "Tracked links (README, Tracked links): merged over what is stored",
}


@extend_schema_field(LINK_TRACKING_SCHEMA)
class LinkTrackingField(FreeFormField):
    """A brand's tracked-link settings as written (`link_tracking_clean` checks them)."""
