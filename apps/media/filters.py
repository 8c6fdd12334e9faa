"""The media lists' filters (apps.core.filters): Family B's query names, one filter each. A bad
value is a 400 naming the parameter."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.brands.models import Brand
from apps.core import ids
from apps.core.errors import ValidationFailed
from apps.core.filters import FamilyFilterSet, ListFilterSet, query_filter

from .models import Kind

MEDIA_TYPES = ("image", "video")

_ID = (
    "(?:med_)?(?:[0-9A-Fa-f]{32}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})"
)
#: what `ids` accepts: up to 100 media ids, commas between, blanks and empty items ignored
MEDIA_ID_LIST = rf"^\s*(?:{_ID}\s*)?(?:,\s*(?:{_ID}\s*)?){{0,99}}$"


class _MediaFilters(ListFilterSet):
    """What the media FilterSets read; each declares the parameters it names, in the order
    they are checked."""

    def filter_kind(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value not in Kind.values:
            raise ValidationFailed("Unknown kind.", {"kind": [f"Must be one of {', '.join(Kind.values)}."]})
        return queryset.filter(kind=value)

    def filter_type(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value not in MEDIA_TYPES:
            raise ValidationFailed("Unknown type.", {"type": ["Must be image or video."]})
        return queryset.filter(media_type=value)

    def filter_brand(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        brands = Brand.objects.for_organization(self.organization)
        try:
            brand = self.referenced(brands, value, kind="brand", field=name)
        except ValidationFailed:  # worded as an unknown brand in a body is
            raise ValidationFailed("Unknown brand.", {name: ["Not found."]}) from None
        return queryset.filter(brand_id=brand.pk)


class _TypeAndBrand(_MediaFilters):
    """`type` and `brandId`, as every media list reads them."""

    type = query_filter("filter_type", schema={"type": "string", "enum": list(MEDIA_TYPES)})
    brandId = query_filter("filter_brand")


class _Kind(_MediaFilters):
    kind = query_filter("filter_kind", schema={"type": "string", "enum": list(Kind.values)})


class MediaLookupFilter(_Kind, _TypeAndBrand):
    """The media parameters that narrow a path's media (GET/DELETE /api/media/{id}) as they
    do the list: `kind`, `type` and `brandId` (checked in this order: a base's filters come
    before a subclass's own)."""


class MediaFilter(MediaLookupFilter, FamilyFilterSet):
    """GET /api/media: its parameters, then `q`/`search` over the file names, `date_from`/`date_to`"""

    search_fields = ("original_filename",)


class ReferenceImageFilter(_TypeAndBrand, FamilyFilterSet):
    """GET /api/media/reference-images: the organization's reference images, narrowed by
    `type` and `brandId` as the media list is, then `q`/`search`, `date_from`/`date_to`. A
    `kind` is not read (they are all of kind reference)."""

    search_fields = ("original_filename",)

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        return super().filter_queryset(queryset.filter(kind=Kind.REFERENCE))


class _ThumbnailIds(ListFilterSet):
    ids = query_filter(
        "filter_ids",
        description="Comma-separated media ids (up to 100)",
        schema={"type": "string", "pattern": MEDIA_ID_LIST},
    )

    def filter_ids(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        wanted = [ids.parse(x.strip(), "media") for x in value.split(",") if x.strip()]
        if any(w is None for w in wanted) or len(wanted) > 100:
            raise ValidationFailed("ids must be up to 100 media ids.", {"ids": ["Invalid id list."]})
        return queryset.filter(pk__in=wanted)


class ThumbnailFilter(MediaLookupFilter, _ThumbnailIds, FamilyFilterSet):
    """GET /api/media/thumbnails: the media with a thumbnail, narrowed by `kind`, `type` and
    `brandId` as the media list is, then by `ids`, `q`/`search`, `date_from`/`date_to`"""

    search_fields = ("original_filename",)

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        return super().filter_queryset(queryset).exclude(thumbnail="")


class BrandMediaFilter(FamilyFilterSet):
    """GET /api/brands/{id}/reference-images"""

    search_fields = ("original_filename",)
