"""Family B's list filters of the brand pages (apps.core.filters.FamilyFilterSet)."""

from __future__ import annotations

from apps.core.filters import FamilyFilterSet


class BrandFilter(FamilyFilterSet):
    search_fields = ("name", "slug", "description")


class BrandProfileFilter(FamilyFilterSet):
    """GET /api/brands/{id}/profiles"""

    search_fields = ("username", "display_name")
