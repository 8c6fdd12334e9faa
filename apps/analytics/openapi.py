"""OpenAPI shapes of the analytics answers (issue 10): what the views really return."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiResponse

from apps.content.states import STATUS_WORDS_B

from .models import POST_METRICS
from .reports import EXPORT_COLUMNS

_NINT = {"type": "integer", "nullable": True}
_NSTR = {"type": "string", "nullable": True}

_CLICKS_SOURCE = {
    "type": "string",
    "enum": ["postforge_short_link"],
    "description": "Where `clicks` come from: Postforge's own short links (`/l/<code>`); links not "
    "shortened are not counted",
}

#: one exported post (a CSV line has the same columns in this order)
EXPORT_ROW = {
    "type": "object",
    "additionalProperties": False,
    "required": list(EXPORT_COLUMNS),
    "properties": {
        "publicationId": {"type": "string"},
        "contentId": {"type": "string"},
        "platform": {"type": "string"},
        "profileId": {"type": "string"},
        "publishedAt": {"type": "string", "format": "date-time"},
        "metricsUpdatedAt": {"type": "string", "format": "date-time", "nullable": True},
        **{m: _NINT for m in POST_METRICS},
        "engagement": _NINT,
        "engagementRate": {"type": "number", "nullable": True},
        "engagementRateBasis": _NSTR,
        "unavailable": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "{metric: reason} for every counter the platform did not give; "
            '`{"all": "no snapshot yet"}` before the first measurement',
        },
        "shortLinkClicks": {
            "type": "integer",
            "description": "Clicks on the post's Postforge short links to date (`clicks` is the platform's own count)",
        },
        "shortLinkClicksSource": _CLICKS_SOURCE,
    },
}

#: `x-postforge-raw` tells the schema postprocessor not to wrap this body in the family envelope
EXPORT_JSON = {
    "type": "object",
    "additionalProperties": False,
    "required": ["data"],
    "properties": {"data": {"type": "array", "items": EXPORT_ROW}},
    "x-postforge-raw": True,
}

_DISPOSITION = {
    "Content-Disposition": {
        "schema": {"type": "string"},
        "description": 'attachment; filename="postforge-analytics.<format>"',
    }
}

EXPORT_RESPONSES = {
    (200, "text/csv"): OpenApiResponse(
        response={"type": "string"},
        description="`format=csv` (the default): a header line, then one line per published post; "
        "`unavailable` is a JSON object in its cell",
    ),
    (200, "application/json"): OpenApiResponse(response=EXPORT_JSON, description="`format=json`"),
}
EXPORT_HEADERS = _DISPOSITION

#: one row of `GET /api/analytics/content` (reports.present_content_metrics)
CONTENT_METRICS_ROW = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "contentId",
        "status",
        "platforms",
        "publishedAt",
        "views",
        "reach",
        "likes",
        "comments",
        "shares",
        "engagement",
        "engagementRate",
        "engagementRateBasis",
        "clicks",
        "clicksSource",
    ],
    "properties": {
        "contentId": {"type": "string", "format": "uuid"},
        "status": {"type": "string", "enum": list(STATUS_WORDS_B)},
        "platforms": {"type": "array", "items": {"type": "string"}},
        "publishedAt": {"type": "string", "format": "date-time", "nullable": True},
        **{m: _NINT for m in ("views", "reach", "likes", "comments", "shares")},
        "engagement": {"type": "integer"},
        "engagementRate": {"type": "number", "nullable": True},
        "engagementRateBasis": _NSTR,
        "clicks": {"type": "integer", "description": "Short-link clicks on the content's posts to date"},
        "clicksSource": _CLICKS_SOURCE,
    },
}


class QueryParamExtension(OpenApiSerializerFieldExtension):
    """A report's query parameter (apps.analytics.parameters.QueryParam) as its `openapi` says."""

    target_class = "apps.analytics.parameters.QueryParam"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        return dict(self.target.openapi)
