from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer


def _default(value: object) -> float | str:
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if hasattr(value, "__str__"):
        return str(value)
    raise TypeError


class FastJSONRenderer(JSONRenderer):
    """orjson: the stock renderer is a visible share of a list request's cost."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        try:
            return orjson.dumps(data, default=_default, option=orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS)
        except orjson.JSONEncodeError:
            # orjson refuses integers beyond 64 bits, which a client may have stored in a
            # free-form JSON field; DRF's own encoder writes them (slower, rare).
            return super().render(data, accepted_media_type, renderer_context)
