"""Family A analytics against the hand-computed fixture (tests/analytics/fixtures.py)."""

from __future__ import annotations

import pytest

from apps.analytics import selectors
from apps.core import ids
from tests.analytics.fixtures import build

pytestmark = pytest.mark.django_db

PERIOD = "startDate=2026-03-01&endDate=2026-04-30"


@pytest.fixture(params=[pytest.param("sql", marks=pytest.mark.services), "orm"])
def posts(request, owner, outsider, monkeypatch):
    """Each test with PostgreSQL's statement (on PostgreSQL: `services`) and with the ORM form
    other databases (SQLite, the embedded default) run; on SQLite the ORM form is the only one,
    so it runs once there."""
    from django.db import connection

    if request.param == "sql":
        assert connection.vendor == "postgresql", "the SQL variant runs on PostgreSQL"
    elif connection.vendor == "postgresql":  # PostgreSQL takes the SQL path: the ORM one chosen
        monkeypatch.setattr(selectors, "_content_rows", selectors._content_rows_orm)
    return build(owner.org, outsider.org)


def get(client, query):
    response = client.get(f"/v1/analytics/content?{PERIOD}&{query}")
    assert response.status_code == 200, response.content
    return response.json()


def rows(body, *keys):
    return [tuple(r[k] for k in ("date", *keys)) for r in body["breakdown"]]


def test_totals_and_daily_buckets_in_utc(owner, posts):
    body = get(owner.client(), "groupBy=day")
    assert body["metrics"] == {
        "totalPosts": 4,
        "totalReach": 1600,
        "totalEngagement": 110,
        "avgEngagementRate": pytest.approx(8.3333, abs=1e-4),
    }
    assert rows(body, "posts", "reach", "engagement") == [
        ("2026-03-28", 1, 200, 20),
        ("2026-03-29", 1, 400, 40),
        ("2026-03-30", 1, 1000, 50),
        ("2026-04-01", 1, 0, 0),
    ]
    basis = body["engagementRateBasis"]
    assert basis["denominator"] == "mixed"
    assert basis["postsByDenominator"] == {"reach": 1, "views": 1, "impressions": 1}


def test_days_follow_the_time_zone_across_the_dst_change(owner, posts):
    body = get(owner.client(), "groupBy=day&timezone=Europe/Paris")
    assert rows(body, "posts", "reach", "engagement") == [
        ("2026-03-29", 2, 600, 60),
        ("2026-03-31", 1, 1000, 50),
        ("2026-04-01", 1, 0, 0),
    ]


def test_weeks_start_on_monday_and_months_split_at_the_local_boundary(owner, posts):
    weeks = get(owner.client(), "groupBy=week")
    assert rows(weeks, "posts", "reach", "engagement") == [
        ("2026-03-23", 2, 600, 60),
        ("2026-03-30", 2, 1000, 50),
    ]
    months = get(owner.client(), "groupBy=month&timezone=Europe/Paris")
    assert rows(months, "posts", "reach", "engagement") == [
        ("2026-03-01", 3, 1600, 110),
        ("2026-04-01", 1, 0, 0),
    ]
    # C (Paris 00:30 on Tuesday 31 March) stays in the week of Monday 30 March in Paris too
    paris_weeks = get(owner.client(), "groupBy=week&timezone=Europe/Paris")
    assert rows(paris_weeks, "posts") == [("2026-03-23", 2), ("2026-03-30", 2)]


def test_a_metric_is_carried_and_a_post_without_snapshot_is_null_not_zero(owner, posts):
    body = get(owner.client(), "groupBy=day&metric=likes")
    assert rows(body, "likes") == [
        ("2026-03-28", 10),
        ("2026-03-29", 30),
        ("2026-03-30", 40),
        ("2026-04-01", None),
    ]


def test_filters_by_platform_and_content(owner, posts):
    body = get(owner.client(), "groupBy=month&platform=x")
    assert body["metrics"]["totalPosts"] == 2 and body["metrics"]["totalEngagement"] == 50
    cid = ids.render(posts["A"].content_id, "content")
    body = get(owner.client(), f"groupBy=month&contentId={cid}")
    assert body["metrics"] == {
        "totalPosts": 1,
        "totalReach": 200,
        "totalEngagement": 20,
        "avgEngagementRate": 10.0,
    }
    assert body["engagementRateBasis"]["denominator"] == "reach"


@pytest.mark.parametrize(
    ("query", "field", "listed"),
    [
        ("groupBy=year", "groupBy", "day, week, month"),
        ("metric=virality", "metric", "views"),
        ("startDate=yesterday", "startDate", "ISO 8601"),
        ("startDate=2026-04-02&endDate=2026-04-01", "endDate", "after"),
        ("timezone=Mars/Olympus", "timezone", "IANA"),
    ],
)
def test_bad_parameters_are_a_400_listing_the_valid_values(owner, query, field, listed):
    response = owner.client().get(f"/v1/analytics/content?{query}")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert listed in " ".join(error["details"][field])


def test_another_organizations_content_and_profile_are_404(owner, posts):
    client = owner.client()
    other_content = ids.render(posts["E"].content_id, "content")
    assert client.get(f"/v1/analytics/content?contentId={other_content}").status_code == 404
    assert client.get(f"/v1/analytics/profiles/{ids.render(posts['other'].pk, 'profile')}").status_code == 404


def test_the_aggregate_is_one_query(owner, posts, django_assert_max_num_queries):
    client = owner.client()
    get(client, "groupBy=day")
    with django_assert_max_num_queries(10) as captured:
        get(client, "groupBy=week&timezone=Europe/Paris&metric=views")
    sqls = [q["sql"] for q in captured.captured_queries]
    # the posts' aggregate is one query; the short-link clicks (issue 32) are one more of their own
    clicks = [q for q in sqls if "publishing_linkclickday" in q]
    touching = [q for q in sqls if "publishing_publication" in q and q not in clicks]
    assert len(touching) == 1, touching
    assert len(clicks) == 1, clicks


def test_content_carries_its_latest_analytics(owner, posts):
    body = owner.client().get(f"/v1/content/{ids.render(posts['A'].content_id, 'content')}").json()
    analytics = body["analytics"]
    assert {k: analytics[k] for k in ("views", "likes", "comments", "shares")} == {
        "views": 300,
        "likes": 10,
        "comments": 5,
        "shares": 3,
    }
    assert analytics["metricsUpdatedAt"] == "2026-03-29T04:30:00Z"
    assert analytics["engagementRate"] == 10.0 and analytics["engagementRateBasis"] == "reach"
    fresh = (
        owner.client().get(f"/v1/content/{ids.render(posts['D'].content_id, 'content')}").json()["analytics"]
    )
    assert fresh["views"] == 0 and fresh["metricsUpdatedAt"] is None


def test_a_period_before_standard_time_is_written_in_rfc_3339(owner):
    # Salta kept local mean time (-04:21:40) until 1894: an offset with seconds, which RFC 3339
    # cannot write; the period is then given in UTC, the same instant (the fuzzer found it)
    response = owner.client().get(
        "/v1/analytics/content?startDate=1890-05-07&endDate=1890-06-01&timezone=America/Argentina/Salta"
    )
    assert response.status_code == 200, response.content
    period = response.json()["period"]
    assert period["start"] == "1890-05-07T04:21:40Z"
    paris = owner.client().get(
        "/v1/analytics/content?startDate=2026-03-01&endDate=2026-03-02&timezone=Europe/Paris"
    )
    assert paris.json()["period"]["start"] == "2026-03-01T00:00:00+01:00"  # a whole-minute offset is kept
