"""The profile lists' filters (apps.core.filters): each family's query names, one filter each."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.core.errors import ValidationFailed
from apps.core.filters import FamilyFilterSet, ListFilterSet, query_filter

from .models import Platform, normalize_platform

PLATFORM_SCHEMA = {"type": "string", "enum": list(Platform.values)}


class ProfileFilterA(ListFilterSet):
    """GET /v1/profiles (and the profile a path names: a `platform` narrows it too)"""

    platform = query_filter("filter_platform", schema=PLATFORM_SCHEMA)

    def filter_platform(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        platform = normalize_platform(value)
        if platform is None:
            raise ValidationFailed("Unknown platform.", {"platform": [f"Unknown platform '{value}'."]})
        return queryset.filter(platform=platform)


class ProfileLookupFilter(ProfileFilterA):
    """Family B's profile parameters, which narrow a path's profile as they do the list:
    `platform`, `brandId` and `connected` (`true`/`false`; any other value is a 400)."""

    brandId = query_filter("filter_brand", schema={"type": "string", "format": "uuid"})
    connected = query_filter("filter_connected", schema={"type": "string", "enum": ["true", "false"]})

    def filter_brand(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(brand_id=self.id_of(value, kind="brand", field=name, detail="Not an id."))

    def filter_connected(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value not in ("true", "false"):  # the schema's enum: anything else is refused
            raise ValidationFailed("Invalid connected.", {name: ["Use true or false."]})
        return queryset.filter(connected=value == "true")


class ProfileFilter(ProfileLookupFilter, FamilyFilterSet):
    """GET /api/profiles: its parameters, then `q`/`search` over the names, `date_from`/`date_to`"""

    search_fields = ("username", "display_name")
