from __future__ import annotations

from .models import MediaAsset


def media_list(
    *, organization, kind: str | None = None, brand_id=None, media_type: str | None = None, ids_in=None
):
    qs = MediaAsset.objects.for_organization(organization)
    if kind:
        qs = qs.filter(kind=kind)
    if brand_id:
        qs = qs.filter(brand_id=brand_id)
    if media_type:
        qs = qs.filter(media_type=media_type)
    if ids_in is not None:
        qs = qs.filter(pk__in=ids_in)
    return qs
