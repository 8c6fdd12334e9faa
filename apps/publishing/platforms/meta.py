"""What Instagram, Facebook and Threads share: the Graph API error codes and shapes."""

from __future__ import annotations

from typing import Any, ClassVar

from apps.publishing.platforms.base import PlatformClient, Quota

# https://developers.facebook.com/docs/graph-api/guides/error-handling
GRAPH_RATE_LIMIT_CODES = frozenset({4, 17, 32, 341, 613, *range(80001, 80015)})
GRAPH_TOKEN_EXPIRED_CODES = frozenset({190, 102})
GRAPH_TRANSIENT_CODES = frozenset({1, 2})


class GraphClient(PlatformClient):
    error_style = "graph"
    rate_limit_codes = GRAPH_RATE_LIMIT_CODES
    token_expired_codes = GRAPH_TOKEN_EXPIRED_CODES
    transient_codes = GRAPH_TRANSIENT_CODES
    # Threads documents the token as the access_token parameter; Instagram and Facebook
    # also take it as a Bearer header, which keeps it out of URLs and logs.
    token_as_param: ClassVar[bool] = False

    def auth_headers(self) -> dict[str, str]:
        return {} if self.token_as_param else super().auth_headers()

    def graph_get(self, path: str, **params: Any) -> dict[str, Any]:
        if self.token_as_param:
            params["access_token"] = self.access_token
        return self.get_json("GET", path, params=params)

    def graph_post(self, path: str, *, create: bool = False, **data: Any) -> dict[str, Any]:
        form = {k: v for k, v in data.items() if v is not None and v != ""}
        if self.token_as_param:
            form["access_token"] = self.access_token
        return self.get_json("POST", path, data=form, create=create)

    @staticmethod
    def insight_values(body: dict[str, Any]) -> dict[str, int]:
        """``{data: [{name, values: [{value}]} | {name, total_value: {value}}]}`` -> name: value."""
        out: dict[str, int] = {}
        for row in body.get("data") or []:
            if "total_value" in row:
                value = (row.get("total_value") or {}).get("value", 0)
            else:
                values = row.get("values") or [{}]
                value = values[-1].get("value", 0)
            out[row.get("name", "")] = int(value or 0)
        return out

    @staticmethod
    def quota_from(body: dict[str, Any]) -> Quota | None:
        rows = body.get("data") or []
        if not rows:
            return None
        row = rows[0]
        return Quota(
            used=int(row.get("quota_usage") or 0),
            limit=int((row.get("config") or {}).get("quota_total") or 0),
        )
