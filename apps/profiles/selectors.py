from __future__ import annotations

import uuid

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


def organization_timezone(*, organization_id: uuid.UUID) -> str:
    """The time zone an organization works in, as far as the service knows it: the zone most of
    its profiles post in (the default brand's profiles first), else UTC. Organizations and
    brands carry no zone of their own; profiles do (``settings.timezone``)."""
    from collections import Counter

    from apps.core.timezones import is_timezone

    rows = SocialProfile.objects.filter(organization_id=organization_id).values_list(
        "settings", "brand__is_default"
    )
    default_brand: Counter[str] = Counter()
    every: Counter[str] = Counter()
    for settings, is_default in rows:
        name = settings.get("timezone") if isinstance(settings, dict) else None
        if not isinstance(name, str) or not is_timezone(name):
            continue
        every[name] += 1
        if is_default:
            default_brand[name] += 1
    chosen = default_brand or every
    return chosen.most_common(1)[0][0] if chosen else "UTC"
