"""Organization-scoped reads for publishing."""

from __future__ import annotations

from apps.brands.models import Brand
from apps.core import ids
from apps.core.errors import ValidationFailed


def brand_for_connect(*, organization, brand_id: str | None) -> Brand | None:
    """The brand a new profile joins; another organization's brand is just unknown."""
    if not brand_id:
        return None
    pk = ids.parse(brand_id, "brand")
    brand = Brand.objects.for_organization(organization).filter(pk=pk).first() if pk else None
    if brand is None:
        raise ValidationFailed("Unknown brand.", {"brandId": ["Not found."]})
    return brand
