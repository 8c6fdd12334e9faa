"""Query counts of the publishing lists: the same for 3 and 30 rows (no N+1).

A token costs three queries (organization, user, membership; written only when they change).
"""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import BrandFactory, ProfileFactory

pytestmark = pytest.mark.django_db


def _scheduled(org, brand, n):
    for i in range(n):
        profile = ProfileFactory(
            organization=org,
            brand=brand,
            platform="instagram",
            settings={"postingTimes": ["09:00", "17:30"], "timezone": "Europe/Paris"},
        )
        content = make_content(org, brand=brand, status="scheduled", image=False)
        when = timezone.now() + datetime.timedelta(days=1, minutes=i)
        Publication.objects.create(
            organization=org,
            content=content,
            profile=profile,
            platform="instagram",
            scheduled_for=when,
            due_at=when,
        )


@pytest.mark.parametrize(("path", "pinned"), [("/api/posts/scheduled?limit=100", 5), ("/api/posts/queue", 6)])
def test_publishing_lists_cost_the_same_for_3_and_30_profiles(
    path, pinned, owner, django_assert_max_num_queries
):
    brand = BrandFactory(organization=owner.org)
    client = owner.token_client()
    assert client.get(path).status_code == 200  # warm up
    counts = []
    for rows in (3, 27):
        _scheduled(owner.org, brand, rows)
        with django_assert_max_num_queries(pinned) as captured:
            response = client.get(path)
        assert response.status_code == 200, response.content
        data = response.json()["data"]
        if "nextSlots" in data:  # the queue: every profile gets its next free slot
            assert len(data["publications"]) >= rows and len(data["nextSlots"]) >= rows
            assert all(slot and slot.endswith("Z") for slot in data["nextSlots"].values())
        else:
            assert len(data) >= rows
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1], counts
