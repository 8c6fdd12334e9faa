"""Serializer helpers shared by both families."""

from __future__ import annotations

import datetime

from rest_framework import serializers

NUL_MESSAGE = "Null characters are not allowed."


def _has_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


def _refuse_nul(data: dict) -> None:
    """No NUL anywhere in a body, free-form objects (settings, metadata) included: PostgreSQL
    text and jsonb cannot store it, so it is refused here as a field error, not a 500."""
    bad = [str(k).replace("\x00", "") for k, v in data.items() if _has_nul(k) or _has_nul(v)]
    if bad:
        raise serializers.ValidationError({name or "nonFieldErrors": [NUL_MESSAGE] for name in bad})


class StrictSerializer(serializers.Serializer):
    """Refuses unknown fields at every nesting level, reported together with the other
    field errors, so a typo is an error rather than silently ignored."""

    def to_internal_value(self, data):
        if self.parent is None and isinstance(data, dict):
            _refuse_nul(data)
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                exc.detail.update({name: ["Unknown field."] for name in unknown})
            raise
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return value


class HexColorField(serializers.RegexField):
    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"invalid": "Must be a hex colour #RRGGBB."})
        super().__init__(r"^#[0-9A-Fa-f]{6}$", **kwargs)


def iso(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
