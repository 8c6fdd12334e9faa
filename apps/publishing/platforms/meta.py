"""What Instagram, Facebook and Threads share: the Graph API error codes and shapes."""

from __future__ import annotations

import contextlib
import json
from typing import Any, ClassVar

import requests

from apps.publishing.platforms.base import PlatformClient, PlatformError, Quota

# https://developers.facebook.com/docs/graph-api/guides/error-handling
GRAPH_RATE_LIMIT_CODES = frozenset({4, 17, 32, 341, 613, *range(80001, 80015)})
#: (#4) Application request limit reached: the app's limit, shared by every profile
GRAPH_APP_LIMIT_CODE = 4
GRAPH_TOKEN_EXPIRED_CODES = frozenset({190, 102})
GRAPH_TRANSIENT_CODES = frozenset({1, 2})
# (#10) and (#200-#299): the permission is missing from the grant
GRAPH_SCOPE_CODES = frozenset({10, *range(200, 300)})
#: (#368) "Temporarily blocked for policies violations": Meta says wait and retry; such blocks
#: last hours to days, so the next try waits this long (a publication's six attempts span 30 h)
GRAPH_BLOCKED_CODE = 368
GRAPH_BLOCKED_RETRY_SECONDS = 6 * 3600.0
#: (#506) "Duplicate Post": the same text was just posted; never retried as it is
GRAPH_DUPLICATE_CODE = 506
#: past this share (percent) of the call budget, status reads wait at least a minute
USAGE_SLOW_PERCENT = 75
USAGE_SLOW_SECONDS = 60.0


def usage_hold_off(headers: Any) -> float:
    """Seconds to wait before the next call, from Meta's usage headers.

    ``X-App-Usage`` ``{"call_count", "total_cputime", "total_time"}`` and
    ``X-Business-Use-Case-Usage`` ``{id: [{..., "estimated_time_to_regain_access"}]}`` give
    the share of the budget used in percent (https://developers.facebook.com/docs/graph-api/
    overview/rate-limiting). A regain time is waited out; above ``USAGE_SLOW_PERCENT`` reads
    slow to once a minute; at 100 % Meta throttles.
    """
    shares: list[float] = []
    regain = 0.0
    for name in ("X-App-Usage", "X-Business-Use-Case-Usage", "X-Ad-Account-Usage"):
        value = headers.get(name)
        if not value:
            continue
        try:
            usage = json.loads(value)
        except ValueError:
            continue
        entries: list[Any] = (
            [usage]
            if name == "X-App-Usage"
            else [
                e
                for v in (usage.values() if isinstance(usage, dict) else [])
                for e in (v if isinstance(v, list) else [v])
            ]
        )
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            for key in ("call_count", "total_cputime", "total_time", "acc_id_util_pct"):
                try:
                    shares.append(float(entry.get(key) or 0))
                except (TypeError, ValueError):
                    continue
            with contextlib.suppress(TypeError, ValueError):
                regain = max(regain, float(entry.get("estimated_time_to_regain_access") or 0) * 60)
    if regain:
        return regain
    if shares and max(shares) >= 100:
        return 300.0
    if shares and max(shares) >= USAGE_SLOW_PERCENT:
        return USAGE_SLOW_SECONDS
    return 0.0


class GraphClient(PlatformClient):
    error_style = "graph"
    rate_limit_codes = GRAPH_RATE_LIMIT_CODES
    token_expired_codes = GRAPH_TOKEN_EXPIRED_CODES
    transient_codes = GRAPH_TRANSIENT_CODES
    scope_error_codes = GRAPH_SCOPE_CODES
    # Threads documents the token as the access_token parameter; Instagram and Facebook
    # also take it as a Bearer header, which keeps it out of URLs and logs.
    token_as_param: ClassVar[bool] = False

    def auth_headers(self) -> dict[str, str]:
        return {} if self.token_as_param else super().auth_headers()

    def limit_is_app_wide(self, error: PlatformError, resp: requests.Response) -> bool:
        """(#4) "Application request limit reached", or ``X-App-Usage`` (the app's platform
        rate limit) at 100 %: every profile waits. (#17) user, (#32) Page, (#613) and the
        business use case codes (80001-80014, ``X-Business-Use-Case-Usage``) limit one
        account's token: that profile waits alone."""
        if error.code == GRAPH_APP_LIMIT_CODE:
            return True
        try:
            usage = json.loads(resp.headers.get("X-App-Usage") or "{}")
        except ValueError:
            return False
        if not isinstance(usage, dict):
            return False
        shares = []
        for key in ("call_count", "total_cputime", "total_time"):
            with contextlib.suppress(TypeError, ValueError):
                shares.append(float(usage.get(key) or 0))
        return max(shares, default=0) >= 100

    def adjust_error(
        self, error: PlatformError, resp: requests.Response, extra: dict[str, Any]
    ) -> PlatformError:
        """Meta's error-handling guide: 368 (temporarily blocked) is waited out and tried again
        much later; 506 (duplicate post) is said plainly and never retried."""
        if error.code == GRAPH_BLOCKED_CODE:
            error.retryable = True
            error.retry_after = max(error.retry_after or 0, GRAPH_BLOCKED_RETRY_SECONDS)
            error.message = (
                f"{error.message} (#368: Meta has temporarily blocked this account from the action "
                f"after a policy flag; Postforge tries again in "
                f"{GRAPH_BLOCKED_RETRY_SECONDS / 3600:.0f} h)"
            )
        elif error.code == GRAPH_DUPLICATE_CODE:
            error.retryable, error.retry_after = False, None
            error.message = (
                f"{error.message} (#506: {self.platform.capitalize()} refuses a post identical to "
                f"the one just before it; change the text to post it again)"
            )
        return error

    def note_usage(self, resp: requests.Response) -> None:
        """Meta reports the share of its call budget on every answer: the next status read
        waits as long as it asks (``poll`` honours ``hold_off``)."""
        self.hold_off = max(self.hold_off, usage_hold_off(resp.headers))

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
