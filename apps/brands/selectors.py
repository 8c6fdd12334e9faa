from __future__ import annotations

from django.db.models import Count

from .models import Brand


def brand_list(*, organization):
    return Brand.objects.for_organization(organization).select_related("logo")


def brand_list_with_counts(*, organization):
    return brand_list(organization=organization).annotate(profile_count=Count("profiles"))
