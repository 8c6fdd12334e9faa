"""Query counts of every list endpoint of brands, profiles and media: no N+1.

Each list is read with 3 and with 30 rows; both must stay within the pinned number, and
the two counts must be equal. When a change moves a number, update QUERY_COUNTS on purpose.
"""

from __future__ import annotations

import pytest

from apps.media.models import Kind
from apps.media.services import media_create_from_bytes
from tests.conftest import png_bytes
from tests.factories import BrandFactory, ProfileFactory

pytestmark = pytest.mark.django_db


def _brands(org, brand, n):
    for _ in range(n):
        BrandFactory(organization=org)


def _profiles(org, brand, n):
    for _ in range(n):
        ProfileFactory(organization=org, brand=brand)


def _media(kind):
    def make(org, brand, n):
        data = png_bytes((4, 4))
        for i in range(n):
            media_create_from_bytes(
                organization=org,
                data=data,
                content_type="image/png",
                kind=kind,
                width=4,
                height=4,
                brand=brand,
                filename=f"{i}.png",
            )

    return make


def _logo_brands(org, brand, n):
    # brands that each have a logo: the logo URL must not cost a query per brand
    for _ in range(n):
        other = BrandFactory(organization=org)
        logo = media_create_from_bytes(
            organization=org, data=png_bytes((4, 4)), content_type="image/png", kind=Kind.LOGO
        )
        other.logo = logo
        other.save(update_fields=["logo"])


def _contents(org, brand, n):
    # each with two platform variants, an image and a tag: none of them may cost a query per row
    from apps.content.models import Tag
    from tests.content.factories import make_content

    tag = Tag.objects.get_or_create(organization=org, name="counted")[0]
    for _ in range(n):
        make_content(org, brand=brand, platforms=("instagram", "x")).tags.add(tag)


def _contents_of_brands_requiring_approval(org, brand, n):
    # content in review whose allowedActions depend on its own brand's require_approval: the
    # brand is joined to the page, not read once per row
    from tests.content.factories import make_content

    for _ in range(n):
        strict = BrandFactory(organization=org, generation_settings={"require_approval": True})
        make_content(org, brand=strict, status="review", image=False)


def _tags(org, brand, n):
    from apps.content.models import Tag

    start = Tag.objects.filter(organization=org).count()
    for i in range(n):
        Tag.objects.create(organization=org, name=f"tag {start + i}")


def _events(org, brand, n):
    from apps.content.models import Campaign

    for i in range(n):
        Campaign.objects.create(organization=org, name=f"event {i}")


def _schedules(org, brand, n):
    import datetime

    from apps.content.models import ContentSchedule
    from tests.content.factories import make_content

    profile = ProfileFactory(organization=org, brand=brand)
    for _ in range(n):
        ContentSchedule.objects.create(
            organization=org,
            profile=profile,
            scheduled_date=datetime.date(2099, 1, 1),
            task="t",
            platform="instagram",
            content=make_content(org, brand=brand, image=False),
        )


def _batches(org, brand, n):
    from apps.content.models import Batch
    from tests.content.factories import make_content

    for _ in range(n):
        batch = Batch.objects.create(organization=org, total=2)
        for _ in range(2):
            content = make_content(org, brand=brand, image=False)
            content.batch = batch
            content.save(update_fields=["batch"])


#: name -> (path, how to make n rows, pinned number of queries). Every request costs one
#: query for the API key; a list adds COUNT(*) and the page; nested lists also load the brand.
QUERY_COUNTS = {
    "v1 brands": ("/v1/brands?limit=100", _brands, 3),
    "v1 brands with logos": ("/v1/brands?limit=100", _logo_brands, 3),
    "v1 profiles": ("/v1/profiles?limit=100", _profiles, 3),
    "api brands": ("/api/brands?limit=100", _brands, 3),
    "api brands with logos": ("/api/brands?limit=100", _logo_brands, 3),
    "api brand profiles": ("/api/brands/{brand}/profiles?limit=100", _profiles, 4),
    "api brand reference images": (
        "/api/brands/{brand}/reference-images?limit=100",
        _media(Kind.REFERENCE),
        4,
    ),
    "api profiles": ("/api/profiles?limit=100", _profiles, 3),
    "api media": ("/api/media?limit=100", _media(Kind.UPLOAD), 3),
    "api media reference images": ("/api/media/reference-images?limit=100", _media(Kind.REFERENCE), 3),
    "api media thumbnails": ("/api/media/thumbnails?limit=100", _media(Kind.UPLOAD), 3),
    # content lists prefetch their variants, media and publications (Family B also the tags)
    "v1 content": ("/v1/content?limit=100", _contents, 6),
    "v1 content by cursor": ("/v1/content?limit=100&cursor=", _contents, 5),
    "api content": ("/api/content?limit=100", _contents, 7),
    "v1 content of brands requiring approval": (
        "/v1/content?limit=100",
        _contents_of_brands_requiring_approval,
        6,
    ),
    "api content of brands requiring approval": (
        "/api/content?limit=100",
        _contents_of_brands_requiring_approval,
        7,
    ),
    "api tags": ("/api/tags?limit=100", _tags, 3),
    "api events": ("/api/events?limit=100", _events, 3),
    "api content schedules": ("/api/content/schedules?limit=100", _schedules, 3),
    "api batches": ("/api/batch?limit=100", _batches, 4),
}


@pytest.mark.parametrize("name", list(QUERY_COUNTS))
def test_a_list_costs_the_same_number_of_queries_for_3_and_30_rows(
    name, owner, django_assert_max_num_queries
):
    path, make, pinned = QUERY_COUNTS[name]
    brand = BrandFactory(organization=owner.org)
    client = owner.client()
    url = path.format(brand=brand.pk)
    assert client.get(url).status_code == 200  # warm up: the key's last_used_at write happens here
    counts = []
    for rows in (3, 27):  # 3 rows, then 30
        make(owner.org, brand, rows)
        with django_assert_max_num_queries(pinned) as captured:
            response = client.get(url)
        assert response.status_code == 200
        assert len(response.json()["data"]) >= rows
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1], counts
    assert counts[0] == pinned, f"{name}: {counts[0]} queries; pinned {pinned}"
