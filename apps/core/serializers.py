"""Serializer helpers shared by both families."""

from __future__ import annotations

import datetime

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses unknown top-level fields, so a typo is an error rather than silently ignored."""

    def validate(self, attrs):
        initial = getattr(self, "initial_data", None)
        if isinstance(initial, dict):
            unknown = sorted(set(initial) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return attrs


class HexColorField(serializers.RegexField):
    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"invalid": "Must be a hex colour #RRGGBB."})
        super().__init__(r"^#[0-9A-Fa-f]{6}$", **kwargs)


def iso(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
