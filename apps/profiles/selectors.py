from __future__ import annotations

from .models import SocialProfile


def profile_rows():
    """Profiles of every organization: a list view declares it as its `queryset` (the family
    base scopes it to the caller's, the app's FilterSets narrow it)."""
    return SocialProfile.objects.all()


def profile_list(*, organization, platform: str | None = None, brand_id=None, connected: bool | None = None):
    qs = SocialProfile.objects.for_organization(organization)
    if platform:
        qs = qs.filter(platform=platform)
    if brand_id:
        qs = qs.filter(brand_id=brand_id)
    if connected is not None:
        qs = qs.filter(connected=connected)
    return qs
