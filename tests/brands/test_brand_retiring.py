"""Deleting a brand: each app moves its own rows to the default brand (brands.signals.brand_retiring)."""

from __future__ import annotations

import pytest

from apps.brands.models import Brand
from apps.brands.services import brand_delete, brand_ensure_default
from apps.content.models import Content
from apps.media.models import Kind, MediaAsset
from apps.profiles.models import SocialProfile
from tests.factories import BrandFactory, ProfileFactory

pytestmark = pytest.mark.django_db


def _asset(brand, *, content=None, kind=Kind.GENERATED) -> MediaAsset:
    return MediaAsset.objects.create(
        organization=brand.organization,
        brand=brand,
        content=content,
        kind=kind,
        file="media/test.png",
        content_type="image/png",
    )


def test_deleting_a_brand_moves_its_profiles_content_and_content_media_to_the_default(owner):
    default = brand_ensure_default(organization=owner.org)
    brand = BrandFactory(organization=owner.org, name="Side line")
    profile = ProfileFactory(organization=owner.org, brand=brand)
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["x"], prompt="p", status="review"
    )
    shown = _asset(brand, content=content)
    logo = _asset(brand, kind=Kind.LOGO)

    brand_delete(brand=brand)

    assert not Brand.objects.filter(pk=brand.pk).exists()
    assert SocialProfile.objects.get(pk=profile.pk).brand_id == default.pk
    assert Content.objects.get(pk=content.pk).brand_id == default.pk
    assert MediaAsset.objects.get(pk=shown.pk).brand_id == default.pk  # the content's media go with it
    assert not MediaAsset.objects.filter(pk=logo.pk).exists()  # the brand's own images go with the brand


def test_each_moved_profile_and_content_item_is_announced(owner):
    from apps.events.models import Event

    default = brand_ensure_default(organization=owner.org)
    brand = BrandFactory(organization=owner.org, name="Side line")
    profile = ProfileFactory(organization=owner.org, brand=brand)
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["x"], prompt="p", status="review"
    )
    untouched = Content.objects.create(
        organization=owner.org, brand=default, platforms=["x"], prompt="q", status="review"
    )
    before = set(Event.objects.values_list("pk", flat=True))

    brand_delete(brand=brand)

    events = [(e.type, e.data) for e in Event.objects.exclude(pk__in=before).order_by("created_at")]
    assert ("profile.updated", {"profileId": str(profile.pk)}) in events
    assert (
        "content.updated",
        {"contentId": str(content.pk), "status": "review", "platforms": ["x"], "aiGenerated": "none"},
    ) in events
    assert not any(data.get("contentId") == str(untouched.pk) for _, data in events)
    assert len(events) == 2
