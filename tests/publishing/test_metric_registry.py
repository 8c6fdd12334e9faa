"""The metric registry against the wire-format fakes: a metric the platform refuses fails
the whole Graph request; the client retries without it and records the gap."""

from __future__ import annotations

from apps.analytics import registry
from apps.platforms import metrics
from tests.publishing.test_platform_clients import main_request, make_client


def test_instagram_retries_without_a_refused_metric_and_names_the_gap(instagram_fake):
    result = make_client(instagram_fake).publish(main_request("instagram"))
    instagram_fake.set_metrics(result.external_id, views=800, likes=50, comments=7, shares=4)
    instagram_fake.refused_metrics = {"saved"}

    metrics = make_client(instagram_fake).fetch_metrics(result.external_id)

    assert (metrics.views, metrics.likes, metrics.comments, metrics.shares) == (800, 50, 7, 4)
    assert metrics.saves is None
    assert list(metrics.unavailable) == ["saves"] and "must be one of" in metrics.unavailable["saves"]


def test_facebook_survives_a_retired_insight(facebook_fake):
    result = make_client(facebook_fake).publish(main_request("facebook"))
    facebook_fake.set_metrics(result.external_id, views=900, likes=30, comments=3, shares=2)
    facebook_fake.refused_metrics = {"post_clicks"}

    metrics = make_client(facebook_fake).fetch_metrics(result.external_id)

    assert (metrics.views, metrics.likes) == (900, 30)
    assert metrics.clicks is None and "clicks" in metrics.unavailable


def test_retired_names_map_to_their_replacements():
    assert metrics.current_name("instagram", "impressions") == "views"
    assert metrics.current_name("instagram", "plays") == "views"
    assert metrics.current_name("facebook", "post_impressions_unique") == "post_total_media_view_unique"
    assert metrics.current_name("facebook", "page_impressions") == "page_media_view"
    assert "impressions" not in metrics.for_platform("instagram").metrics
    assert metrics.for_platform("pinterest").window.days == 90
    assert metrics.for_platform("x").recent_only[1].days == 30
    assert metrics.for_platform("tiktok").resolve_id_first


def test_engagement_rate_says_its_denominator():
    assert registry.engagement_rate({"likes": 8, "comments": 2, "reach": 100}) == (10.0, "reach")
    assert registry.engagement_rate({"likes": 8, "impressions": 200}) == (4.0, "impressions")
    assert registry.engagement_rate({"likes": 5, "views": 50}) == (10.0, "views")
    assert registry.engagement_rate({"likes": 5}, followers=500) == (1.0, "followers")
    assert registry.engagement_rate({"likes": 5}) == (None, None)
