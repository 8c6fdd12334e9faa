"""GET /v1/analytics/profiles/{id}: followers growth from stored snapshots only."""

from __future__ import annotations

import pytest

from apps.analytics.models import ProfileSnapshot
from apps.core import ids
from tests.analytics.fixtures import at, build

pytestmark = pytest.mark.django_db


def snap(profile, when, followers):
    ProfileSnapshot.objects.create(
        organization=profile.organization, profile=profile, taken_at=when, followers=followers
    )


def test_growth_from_the_snapshot_before_the_period_to_the_last_in_it(owner, outsider):
    posts = build(owner.org, outsider.org)
    ig = posts["ig"]
    snap(ig, at(2026, 3, 1), 1000)
    snap(ig, at(2026, 3, 20), 1100)
    snap(ig, at(2026, 4, 10), 1210)
    snap(ig, at(2026, 5, 10), 5000)  # after the period: ignored
    body = (
        owner.client()
        .get(f"/v1/analytics/profiles/{ids.render(ig.pk, 'profile')}?startDate=2026-03-15&endDate=2026-04-30")
        .json()
    )
    assert body["profile"] == {
        "id": ids.render(ig.pk, "profile"),
        "platform": "instagram",
        "username": ig.username,
    }
    m = body["metrics"]
    assert m["followers"] == 1210
    assert m["followersGrowth"] == 21.0  # 1000 -> 1210
    assert m["avgEngagement"] == 30.0  # A 20, B 40
    assert m["postsPerWeek"] == pytest.approx(2 / (47 / 7), abs=0.01)
    assert [t["engagement"] for t in body["topContent"]] == [40, 20]
    assert [t["engagementRateBasis"] for t in body["topContent"]] == ["views", "reach"]


def test_growth_is_null_without_an_earlier_snapshot(owner, outsider):
    posts = build(owner.org, outsider.org)
    x = posts["x"]
    url = f"/v1/analytics/profiles/{ids.render(x.pk, 'profile')}?startDate=2026-03-15&endDate=2026-04-30"
    body = owner.client().get(url).json()
    assert body["metrics"]["followersGrowth"] is None and body["metrics"]["followers"] == 500
    snap(x, at(2026, 3, 20), 520)  # one snapshot only: still nothing to compare with
    assert owner.client().get(url).json()["metrics"]["followersGrowth"] is None
    # D has no snapshot: it counts as a post but not in the average engagement
    body = owner.client().get(url).json()
    assert body["metrics"]["avgEngagement"] == 50.0 and len(body["topContent"]) == 1


@pytest.mark.parametrize(
    "query",
    [
        "startDate=0108-08-21T09:03:03.9-18:41",  # an offset ISO 8601 allows and PostgreSQL does not (was a 500)
        "startDate=0001-01-01T00:00:00%2B05:00&endDate=9999-12-31",  # bounds beyond Python's first and last instant
        "endDate=0001-01-02",  # its default start would be before the first instant
    ],
)
def test_any_valid_date_or_date_time_bound_is_answered_not_a_500(owner, outsider, query):
    posts = build(owner.org, outsider.org)
    response = owner.client().get(f"/v1/analytics/profiles/{ids.render(posts['ig'].pk, 'profile')}?{query}")
    assert response.status_code == 200, response.content
    assert response.json()["profile"]["id"] == ids.render(posts["ig"].pk, "profile")


@pytest.mark.parametrize("zone", ["Asia/Karachi", "Pacific/Kiritimati", "America/Los_Angeles"])
def test_a_first_day_bound_in_a_zone_ahead_of_utc_is_answered_not_a_500(owner, outsider, zone):
    """0001-01-01 in a zone ahead of UTC is before Python's first instant in UTC: on SQLite (whose
    adapter converts bounds to UTC) it was an OverflowError, a 500 (issue 24)."""
    posts = build(owner.org, outsider.org)
    url = f"/v1/analytics/profiles/{ids.render(posts['ig'].pk, 'profile')}"
    for query in (
        {"startDate": "0001-01-01", "endDate": "9999-12-31", "timezone": zone},
        {"startDate": "0001-01-01T00:00:00+14:00", "timezone": zone},
    ):
        response = owner.client().get(url, query)
        assert response.status_code == 200, (query, response.content)
        assert response.json()["profile"]["id"] == ids.render(posts["ig"].pk, "profile")
