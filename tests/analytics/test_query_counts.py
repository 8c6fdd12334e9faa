"""Query counts of the analytics and monitoring reads, pinned: the same for the small fixture
and with 25 more measured posts, failures and profiles (no N+1).

A Family B token costs three queries (organization, user, membership); a Family A key one.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.core import ids
from apps.publishing.models import Publication
from tests.analytics.fixtures import at, build, publish
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db

PERIOD = "startDate=2026-03-01&endDate=2026-04-30"


def _grow(org, brand, n: int) -> None:
    """n more measured posts on n new profiles, a failed publication, a publication whose outcome
    is unknown and a failed generation each."""
    for i in range(n):
        profile = ProfileFactory(
            organization=org,
            brand=brand,
            platform=("instagram", "x", "linkedin")[i % 3],
            follower_count=100 + i,
            token_status="expired" if i % 5 == 0 else "active",
        )
        publish(org, profile, at(2026, 3, 2 + i % 27, 9, 0), views=100 + i, reach=50 + i, likes=i, comments=1)
        failed = publish(org, profile, at(2026, 3, 3, 10, 0))
        Publication.objects.filter(pk=failed.pk).update(
            status="failed", error_code=f"code_{i % 4}", last_error=f"Refused ({i % 4})."
        )
        unknown = publish(org, profile, at(2026, 3, 4, 10, 0))
        Publication.objects.filter(pk=unknown.pk).update(status="unknown", outcome_unknown=True)
        make_content(org, brand=brand, status="failed", image=False)


# (path, family, queries): a B token is 3 of them, an A key 1
PINNED = [
    ("/api/analytics/profiles?profileId={ig}&period=730d", "B", 5),  # + the profile, one aggregate
    ("/api/analytics/overview?period=730d", "B", 7),  # + content by status, publications by
    #   status, both periods' totals, top posts
    (f"/api/analytics/content?{PERIOD}&sort=engagement:desc&limit=100", "B", 5),  # + count, one page
    (f"/api/analytics/export?format=csv&{PERIOD}", "B", 4),  # + one server-side cursor
    (f"/api/analytics/export?format=json&{PERIOD}", "B", 4),
    ("/api/analytics/best-times?profileId={ig}", "B", 5),  # + the profile, one GROUP BY
    ("/api/monitoring/errors", "B", 9),  # + one GROUP BY per kind (five kinds), + tokens expiring soon
    ("/api/monitoring/errors?kind=publishing_unknown", "B", 4),
    ("/api/monitoring/errors?kind=publishing&platform=instagram", "B", 4),
    (
        f"/v1/analytics/content?{PERIOD}&groupBy=week&timezone=Europe/Paris&metric=views",
        "A",
        3,
    ),  # + one GROUP BY, + the short-link clicks (issue 32)
    ("/v1/analytics/profiles/{ig}", "A", 4),  # + the profile, followers, posts
]


@pytest.mark.parametrize(
    ("path", "family", "pinned"), PINNED, ids=[p[0].split("?")[0] + f"[{i}]" for i, p in enumerate(PINNED)]
)
def test_analytics_reads_cost_a_pinned_number_of_queries_whatever_the_rows(
    path, family, pinned, owner, outsider, django_assert_num_queries
):
    posts = build(owner.org, outsider.org)
    path = path.format(ig=ids.render(posts["ig"].pk, "profile"))
    client = owner.token_client() if family == "B" else owner.client()
    assert client.get(path).status_code == 200  # warm up (the token's user and membership are written once)
    sizes = []
    for grow in (0, 25):
        _grow(owner.org, posts["ig"].brand, grow)
        with django_assert_num_queries(pinned):
            response = client.get(path)
            body = b"".join(response.streaming_content) if response.streaming else response.content
        assert response.status_code == 200, body[:300]
        sizes.append(len(body))
    assert sizes[1] > sizes[0] or "profiles" in path or "best-times" in path  # the rows did grow


def test_the_aggregate_endpoints_read_publications_once(owner, outsider):
    """The aggregates over posts are one SQL statement each (GROUP BY in the database)."""
    posts = build(owner.org, outsider.org)
    client = owner.token_client()
    pid = ids.render(posts["ig"].pk, "profile")
    for path in (
        f"/api/analytics/profiles?profileId={pid}&period=730d",
        f"/api/analytics/best-times?profileId={pid}",
    ):
        client.get(path)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200
        touching = [q["sql"] for q in captured.captured_queries if "publishing_publication" in q["sql"]]
        assert len(touching) == 1, touching
        assert "GROUP BY" in touching[0] or "COUNT(" in touching[0]
