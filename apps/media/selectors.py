from __future__ import annotations

from .models import MediaAsset


def media_rows():
    """Media of every organization (a list view's `queryset`; the family base scopes it)."""
    return MediaAsset.objects.all()
