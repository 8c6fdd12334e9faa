"""Serializer helpers shared by both families."""

from __future__ import annotations

import datetime

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses unknown fields at every nesting level, reported together with the other
    field errors, so a typo is an error rather than silently ignored."""

    def to_internal_value(self, data):
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
