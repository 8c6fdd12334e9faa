from __future__ import annotations

from django.db.models import Count

from .models import Brand


def brand_rows():
    """Brands of every organization as they are presented (with their logo): a list view
    declares it as its `queryset`, which the family base scopes to the caller's."""
    return Brand.objects.select_related("logo")


def brand_list(*, organization):
    return brand_rows().for_organization(organization)


def brand_list_with_counts(*, organization):
    return brand_list(organization=organization).annotate(profile_count=Count("profiles"))
