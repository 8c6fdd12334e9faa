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


# --- the reports (issue 28: they were untyped objects) --------------------------------------

_NNUM = {"type": "number", "nullable": True}
_DATETIME = {"type": "string", "format": "date-time"}


def _object(properties: dict, **more: object) -> dict:
    """An object whose every field is always present."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
        **more,
    }


#: how the engagement rates were computed (selectors.basis_summary)
RATE_BASIS_SUMMARY = _object(
    {
        "denominator": {
            "type": "string",
            "nullable": True,
            "description": "reach, impressions, views or followers; `mixed` when posts used several; "
            "null when no post had a rate",
        },
        "postsByDenominator": {
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "description": "{denominator: posts rated with it}",
        },
        "formula": {"type": "string"},
        "average": {"type": "string"},
    }
)

_PERIOD = _object({"start": _DATETIME, "end": _DATETIME})

#: `GET /v1/analytics/content` (selectors.content_analytics); Family A's `fields=` may leave
#: out any top-level field, so none is required there
CONTENT_ANALYTICS = _object(
    {
        "period": _PERIOD,
        "metrics": _object(
            {
                "totalPosts": {"type": "integer"},
                "totalReach": {"type": "integer"},
                "totalEngagement": {"type": "integer"},
                "avgEngagementRate": {"type": "number", "description": "percent"},
            }
        ),
        "engagementRateBasis": RATE_BASIS_SUMMARY,
        "clicks": _object(
            {
                "total": {"type": "integer"},
                "source": _CLICKS_SOURCE,
                "byReferrer": {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                    "description": "clicks by the referring platform (`direct` without a Referer)",
                },
                "byCountry": {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                    "description": "clicks by country, where the proxy's country header gave one",
                },
            }
        ),
        "breakdown": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["date", "posts", "reach", "engagement"],
                "properties": {
                    "date": {"type": "string", "format": "date", "description": "the bucket's first day"},
                    "posts": {"type": "integer"},
                    "reach": {"type": "integer"},
                    "engagement": {"type": "integer"},
                },
                "additionalProperties": {
                    "type": "integer",
                    "nullable": True,
                    "description": "with `metric=`: that metric's sum in the bucket, under its name",
                },
            },
        },
    }
)

#: `GET /v1/analytics/profiles/{id}` (selectors.profile_analytics; none required: `fields=`)
PROFILE_ANALYTICS = _object(
    {
        "profile": _object(
            {
                "id": {"type": "string", "pattern": "^prf_[0-9a-f]{32}$"},
                "platform": {"type": "string"},
                "username": {"type": "string"},
            }
        ),
        "metrics": _object(
            {
                "followers": {"type": "integer"},
                "followersGrowth": {**_NNUM, "description": "percent over the period"},
                "avgEngagement": {"type": "number"},
                "postsPerWeek": {"type": "number"},
                "avgEngagementRate": {**_NNUM, "description": "percent"},
            }
        ),
        "engagementRateBasis": RATE_BASIS_SUMMARY,
        "topContent": {
            "type": "array",
            "items": _object(
                {
                    "id": {"type": "string", "pattern": "^cnt_[0-9a-f]{32}$"},
                    "engagement": {"type": "integer"},
                    "type": {"type": "string", "description": "the content's media type"},
                    "engagementRate": _NNUM,
                    "engagementRateBasis": _NSTR,
                }
            ),
        },
    }
)


def _pair(description: str) -> dict:
    return _object(
        {
            "current": {"type": "integer"},
            "previous": {"type": "integer"},
            "changePercent": {**_NNUM, "description": "null when the previous period had none"},
        },
        description=description,
    )


#: `GET /api/analytics/overview` (reports.overview)
OVERVIEW = _object(
    {
        "period": _object(
            {"days": {"type": "integer"}, "start": _DATETIME, "end": _DATETIME, "previousStart": _DATETIME}
        ),
        "contentByStatus": {
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "description": "{status (Family B's words): content created in the period}",
        },
        "publications": {
            "type": "array",
            "items": _object(
                {"platform": {"type": "string"}, "status": {"type": "string"}, "count": {"type": "integer"}}
            ),
        },
        "posts": _pair("posts published"),
        "reach": _pair("their reach"),
        "engagement": _pair("their engagement"),
        "topPosts": {
            "type": "array",
            "items": _object(
                {
                    "contentId": {"type": "string", "format": "uuid"},
                    "platform": {"type": "string"},
                    "engagement": {"type": "integer"},
                    "engagementRate": _NNUM,
                    "engagementRateBasis": _NSTR,
                }
            ),
        },
        "failures": {"type": "integer", "description": "publications that failed in the period"},
    }
)

del CONTENT_ANALYTICS["required"], PROFILE_ANALYTICS["required"]  # (OpenAPI 3.0: no empty list)
