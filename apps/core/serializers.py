"""Serializer helpers shared by both families."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any, cast

from rest_framework import serializers

NUL_MESSAGE = "Null characters are not allowed."


def _has_nul(value: object) -> bool:
    """Iterative (a value nested 900 deep must not raise RecursionError)."""
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return False


def _refuse_nul(data: dict) -> None:
    """No NUL anywhere in a body, free-form objects (settings, metadata) included: PostgreSQL
    text and jsonb cannot store it, so it is refused here as a field error, not a 500."""
    bad = [str(k).replace("\x00", "") for k, v in data.items() if _has_nul(k) or _has_nul(v)]
    if bad:
        raise serializers.ValidationError({name or "nonFieldErrors": [NUL_MESSAGE] for name in bad})


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


NUMBER_FIELDS = (serializers.IntegerField, serializers.FloatField, serializers.DecimalField)


def _numbers_for_text(fields: Mapping[str, serializers.Field], data: dict) -> dict:
    """Fields declared as strings or booleans that were given a JSON number, and numbers given
    a boolean: DRF would turn `0` into `"0"` or `false` and `false` into `0`, but the schema
    says `type: string`/`boolean`/`number`, so it is refused."""
    found = {}
    for name, field in fields.items():
        value = data.get(name)
        if field.read_only or value is None:
            continue
        if isinstance(field, serializers.CharField) and _is_number(value):
            found[name] = ["Not a valid string."]
        elif isinstance(field, serializers.BooleanField) and _is_number(value):  # DRF reads 0/1 as false/true
            found[name] = ["Must be true or false."]
        elif isinstance(field, NUMBER_FIELDS) and isinstance(value, bool):  # DRF reads false/true as 0/1
            found[name] = ["A valid number is required."]
        elif (
            isinstance(field, serializers.ListField)
            and isinstance(field.child, serializers.CharField)
            and isinstance(value, list)
            and any(_is_number(v) for v in value)
        ):
            found[name] = ["Every item must be a string."]
        elif too_long := _too_long(field, value):
            found[name] = too_long
    return found


def _too_long(field: serializers.Field, value: Any) -> Any:
    """A string longer than its `maxLength` as sent: DRF measures it after trimming the
    whitespace around it, the schema (and a client validating against it) before."""

    def over(f: serializers.Field, v: Any) -> bool:
        limit = getattr(f, "max_length", None)
        return (
            isinstance(f, serializers.CharField)
            and limit is not None
            and isinstance(v, str)
            and len(v) > limit
        )

    if over(field, value):
        return [f"Ensure this field has no more than {field.max_length} characters."]  # type: ignore[attr-defined]
    if isinstance(field, serializers.ListField) and isinstance(value, list):
        child = field.child
        items = {
            i: [f"Ensure this field has no more than {child.max_length} characters."]  # type: ignore[attr-defined]
            for i, v in enumerate(value)
            if over(child, v)
        }
        return items or None
    return None


class StrictSerializer(serializers.Serializer):
    """Refuses unknown fields at every nesting level, and numbers where a string is
    declared, reported together with the other field errors, so a typo is an error rather
    than silently ignored."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if self.parent is None and isinstance(data, dict):
            _refuse_nul(data)
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        refused = {name: ["Unknown field."] for name in unknown}
        if isinstance(data, dict):
            refused.update(_numbers_for_text(self.fields, data))
        try:
            value: dict[str, Any] = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if refused and isinstance(exc.detail, dict):
                exc.detail.update(refused)
            raise
        if refused:
            raise serializers.ValidationError(refused)
        return value


FREE_FORM_MAX_BYTES = 64 * 1024
FREE_FORM_MAX_DEPTH = 10


class FreeFormField(serializers.DictField):
    """A free-form JSON object (metadata, settings, default_platform_settings): at most
    64 KB once encoded and 10 levels deep, valid Unicode, finite numbers."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        from .parsers import check_tree

        value = super().to_internal_value(data)
        problem = check_tree(value, max_depth=FREE_FORM_MAX_DEPTH)
        if problem:
            raise serializers.ValidationError(f"Invalid: {problem}.")
        try:  # the standard encoder: integers beyond 64 bits are valid JSON too
            size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
        except (TypeError, ValueError):
            raise serializers.ValidationError("Must be plain JSON.") from None
        if size > FREE_FORM_MAX_BYTES:
            raise serializers.ValidationError(
                f"At most {FREE_FORM_MAX_BYTES // 1024} KB of JSON ({size} bytes given)."
            )
        return value


class NamedChoiceField(serializers.CharField):
    """A name from a fixed set that the service itself normalizes (case, aliases such as
    `twitter`) and checks with its own error message: the OpenAPI schema lists the canonical
    values as an enum (see apps.core.schema.NamedChoiceFieldExtension)."""

    def __init__(self, *, choices: Iterable[str], **kwargs: Any) -> None:
        self.schema_choices = tuple(choices)
        kwargs.setdefault("max_length", 40)
        super().__init__(**kwargs)


class OfferedChoiceField(serializers.ChoiceField):
    """A choice among `choices`, of which the OpenAPI schema offers only `offered`: the others
    are read so that a service can refuse them with its own message (carousel media, not
    implemented), and a schema must not offer what is always refused."""

    def __init__(self, *, choices: Iterable[str], offered: Iterable[str], **kwargs: Any) -> None:
        self.offered = tuple(offered)
        super().__init__(choices=tuple(choices), **kwargs)


class HexColorField(serializers.RegexField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("error_messages", {"invalid": "Must be a hex colour #RRGGBB."})
        super().__init__(r"^#[0-9A-Fa-f]{6}$", **kwargs)


def iso(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


class PresentedList(serializers.ListSerializer):
    # A page of a list: what its items present read once for the page (`load`), then each
    # item through the hand-written presenter.
    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        items = list(data)
        child = cast(OutputSerializer, self.child)
        child.load(items)
        present = child.present
        return [present(item) for item in items]


class OutputSerializer(serializers.Serializer):
    # A resource as the API answers it: the declared fields document it (OpenAPI, Family A's
    # `fields=`); the representation is the app's hand-written presenter (`present`), with no
    # walk over the fields, which is most of a list's cost in DRF. (No docstring: the OpenAPI
    # description of a subclass without one stays that of DRF's Serializer.)

    class Meta:
        list_serializer_class = PresentedList

    def present(self, instance: Any) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} names no presenter")

    def load(self, items: list[Any]) -> None:
        """Read what a page of `items` presents, once for the page (related rows, ...)."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return self.present(instance)

    @cached_property
    def request(self) -> Any:
        # read once per serializer, not per item: `context` walks up to the root serializer
        return self.context.get("request")

    @cached_property
    def view(self) -> Any:
        return self.context.get("view")
