"""The admin's analytics and failures pages in headless Chromium (issue 13): charts drawn on
the server from metrics the sandbox reported through the real collection, nothing loaded
from another host, and the failures feed grouped by cause with links to the objects."""

from __future__ import annotations

import datetime
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.db.models import Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.services import organization_get_or_create
from apps.analytics.models import PostSnapshot, ProfileSnapshot
from apps.analytics.tasks import collect_due_metrics, collect_followers
from apps.brands.models import Brand
from apps.content.models import Content
from apps.profiles.models import SocialProfile
from apps.publishing.models import Publication, SandboxPost
from tests.content.factories import make_content

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
DAY = datetime.timedelta(days=1)


def _published(org, profile, days_ago: float):
    when = timezone.now() - days_ago * DAY
    content = make_content(
        org, brand=profile.brand, status="published", image=False, platforms=(profile.platform,)
    )
    post = SandboxPost.objects.create(
        organization=org,
        profile=profile,
        platform=profile.platform,
        reference=str(content.pk),
        external_id=f"sbx-{content.pk.hex[:16]}",
    )
    SandboxPost.objects.filter(pk=post.pk).update(created_at=when)
    return Publication.objects.create(
        organization=org,
        content=content,
        profile=profile,
        platform=profile.platform,
        scheduled_for=when,
        due_at=when,
        status="published",
        published_at=when,
        external_id=post.external_id,
    )


@pytest.fixture
def acme():
    """Ten posts over the last 30 days on two sandbox profiles, measured by the real
    collection; three follower snapshots per profile; three failures."""
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    ig = SocialProfile.objects.create(
        organization=org,
        brand=brand,
        platform="instagram",
        external_id="sb-ig",
        username="acme.coffee",
        sandbox=True,
        follower_count=4000,
    )
    x = SocialProfile.objects.create(
        organization=org,
        brand=brand,
        platform="x",
        external_id="sb-x",
        username="acmecoffee",
        sandbox=True,
        follower_count=1500,
    )
    for days_ago in (1.2, 3, 5, 9, 15, 26):
        _published(org, ig, days_ago)
    for days_ago in (2, 5, 12, 20):
        _published(org, x, days_ago)
    assert collect_due_metrics() == 10  # the sandbox's own metrics, through the real pull
    # followers: three daily pulls, moved back in time as if taken 20 and 10 days ago
    for days_ago, bump in ((20, 0), (10, 500), (0, 1000)):
        SocialProfile.objects.filter(pk=ig.pk).update(follower_count=4000 + bump)
        SocialProfile.objects.filter(pk=x.pk).update(follower_count=1500 + bump // 5)
        assert collect_followers() == 2
        ProfileSnapshot.objects.filter(organization=org, taken_at__gt=timezone.now() - DAY / 2).update(
            taken_at=timezone.now() - days_ago * DAY - datetime.timedelta(minutes=5)
        )
    # failures: the same publishing error twice, one failed generation
    for _ in range(2):
        pub = _published(org, ig, 0.5)
        Publication.objects.filter(pk=pub.pk).update(
            status="failed",
            error_code="media_refused",
            last_error="Sandbox: this post was refused (media not accepted).",
        )
    failed = make_content(org, brand=brand, status="failed", image=False)
    Content.objects.filter(pk=failed.pk).update(status_reason="The image provider timed out three times.")
    other = organization_get_or_create(name="Globex")
    return {"org": org, "ig": ig, "x": x, "other": other}


def _values(page, chart: str, series: int) -> list[float]:
    texts = page.locator(f"#{chart} svg .serie-{series} desc.value").all_text_contents()
    return [float(v.replace(",", "")) for v in texts]


def _legend(page, chart: str) -> list[str]:
    return page.locator(f"#{chart} svg .legends .legend text").all_text_contents()


def test_the_analytics_page_charts_the_sandboxs_metrics_from_the_api_selectors(admin_page, live_server, acme):
    org = acme["org"]
    requested_hosts = set()
    admin_page.on("request", lambda r: requested_hosts.add(urlparse(r.url).netloc))
    admin_page.goto(f"{live_server.url}/admin/")
    admin_page.click("#pf-analytics-links a:text('Charts')")
    admin_page.select_option("#pf-org", str(org.pk))
    admin_page.click("#pf-filters input[type=submit]")
    admin_page.wait_for_selector("#chart-posts svg")

    # posts per platform: 6 on Instagram and 4 on X, one bar each per day that had posts
    assert _legend(admin_page, "chart-posts") == ["instagram", "x"]
    assert sum(_values(admin_page, "chart-posts", 0)) == 6 and sum(_values(admin_page, "chart-posts", 1)) == 4
    assert len(_values(admin_page, "chart-posts", 0)) == 31  # one bucket per day of the 30-day window
    # reach and engagement per platform equal the stored latest snapshots (reach, else impressions, else views)
    snaps = PostSnapshot.objects.filter(organization=org, latest=True)
    for i, platform in enumerate(("instagram", "x")):
        reach = snaps.filter(platform=platform).aggregate(v=Sum(Coalesce("reach", "impressions", "views")))[
            "v"
        ]
        assert reach > 0 and sum(_values(admin_page, "chart-reach", i)) == reach
        engagement = snaps.filter(platform=platform).aggregate(
            v=Sum(
                Coalesce("likes", 0) + Coalesce("comments", 0) + Coalesce("shares", 0) + Coalesce("saves", 0)
            )
        )["v"]
        assert engagement > 0 and sum(_values(admin_page, "chart-engagement", i)) == engagement
    # the cards: ten posts, two failures, the rate's denominator said
    assert admin_page.inner_text("[data-figure=posts] .pf-figure") == "10"
    assert admin_page.inner_text("[data-figure=failures] .pf-figure") == "2"
    assert "denominator: reach" in admin_page.inner_text("[data-figure=rate]")
    # top posts: five rows, best first, linking to the content's admin page
    rows = admin_page.locator("#pf-top-posts tbody tr")
    assert rows.count() == 5
    engagements = [int(rows.nth(i).locator("td").nth(2).inner_text()) for i in range(5)]
    assert engagements == sorted(engagements, reverse=True)
    best = max(snaps, key=lambda s: sum(getattr(s, m) or 0 for m in ("likes", "comments", "shares", "saves")))
    assert engagements[0] == sum(getattr(best, m) or 0 for m in ("likes", "comments", "shares", "saves"))
    # each named by its caption (issue 28: not a raw id), the id kept in the link's title
    names = rows.locator("td:first-child a").all_inner_texts()
    assert names == ["Fresh autumn roast, out today."] * 5, names
    # followers: one line per profile, the three snapshots in their day buckets, gaps elsewhere
    assert _legend(admin_page, "chart-followers") == ["instagram @acme.coffee", "x @acmecoffee"]
    assert _values(admin_page, "chart-followers", 0) == [4000, 4500, 5000]
    assert _values(admin_page, "chart-followers", 1) == [1500, 1600, 1700]
    box = admin_page.locator("#chart-reach svg").bounding_box()
    assert box["width"] > 600 and box["height"] > 150  # drawn, not an empty box
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-analytics.png"), full_page=True)
    assert requested_hosts == {urlparse(live_server.url).netloc}  # nothing from a CDN

    admin_page.click("#pf-top-posts tbody tr >> nth=0 >> a")
    admin_page.wait_for_selector("#content_form")


def test_the_failures_page_groups_by_cause_and_links_the_objects(admin_page, live_server, acme):
    org = acme["org"]
    admin_page.goto(f"{live_server.url}/admin/analytics/failures/?org={org.pk}")
    publishing = admin_page.locator("#pf-failures tr[data-kind=publishing]")
    assert publishing.count() == 1  # two failures, one cause
    assert publishing.locator(".pf-count").inner_text() == "2"
    assert "media not accepted" in publishing.inner_text() and "instagram" in publishing.inner_text()
    generation = admin_page.locator("#pf-failures tr[data-kind=generation]")
    assert "timed out three times" in generation.inner_text()
    assert admin_page.inner_text("#pf-failures-summary").startswith("3 failures in 2 groups")
    admin_page.select_option("#pf-kind", "generation")
    admin_page.click("input[value=Filter]")
    admin_page.wait_for_url("**kind=generation**")
    assert admin_page.locator("#pf-failures tbody tr").count() == 1
    admin_page.click("#pf-failures tr[data-kind=generation] a")
    admin_page.wait_for_selector("#content_form")
    assert "timed out three times" in admin_page.content()
    admin_page.goto(f"{live_server.url}/admin/analytics/failures/?org={org.pk}")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-failures.png"), full_page=True)
    # another organization has no failures; an unknown kind is said, not a 500
    admin_page.goto(f"{live_server.url}/admin/analytics/failures/?org={acme['other'].pk}&kind=nope")
    assert "Unknown kind 'nope'" in admin_page.inner_text(".errornote")
    assert admin_page.inner_text("#pf-failures tbody") == "No failures."


def test_the_failures_page_lists_unknown_outcomes_and_links_the_publication(admin_page, live_server, acme):
    org = acme["org"]
    pub = _published(org, acme["x"], 0.2)
    Publication.objects.filter(pk=pub.pk).update(
        status="unknown",
        outcome_unknown=True,
        published_at=None,
        last_error="No answer after the create call.",
    )
    admin_page.goto(f"{live_server.url}/admin/analytics/failures/?org={org.pk}&kind=publishing_unknown")
    row = admin_page.locator("#pf-failures tr[data-kind=publishing_unknown]")
    assert row.count() == 1 and admin_page.locator("#pf-failures tbody tr").count() == 1
    assert "1 publication on x may have been posted" in row.inner_text()
    assert row.get_attribute("data-cause") == "outcome_unknown"
    row.locator("a").click()
    admin_page.wait_for_selector("#publication_form")
    assert f"/admin/publishing/publication/{pub.pk}/change/" in admin_page.url


def test_staff_without_the_publication_permission_are_refused(browser, live_server, db):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("clerk", "clerk@example.com", "cl3rk-pass", is_staff=True)
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", "clerk")
        page.fill("#id_password", "cl3rk-pass")
        page.click("input[type=submit]")
        page.wait_for_selector("#site-name")
        assert page.locator("#pf-analytics-links").count() == 0
        response = page.goto(f"{live_server.url}/admin/analytics/")
        assert response.status == 403
    finally:
        context.close()


@pytest.fixture
def many_profiles():
    """Eleven profiles with one follower snapshot each (100, 200, ... 1100 followers)."""
    from tests.factories import ProfileFactory

    org = organization_get_or_create(name="Initech")
    brand = Brand.objects.get(organization=org, is_default=True)
    for i in range(1, 12):
        profile = ProfileFactory(
            organization=org, brand=brand, platform="x", username=f"initech{i:02d}", sandbox=True
        )
        ProfileSnapshot.objects.create(
            organization=org,
            profile=profile,
            followers=100 * i,
            taken_at=timezone.now() - datetime.timedelta(hours=i),
        )
    return org


def test_the_followers_chart_draws_the_8_largest_profiles_and_all_on_request(
    admin_page, live_server, many_profiles
):
    admin_page.goto(f"{live_server.url}/admin/analytics/?org={many_profiles.pk}")
    # no posts yet: the charts say so (the posts chart once failed on its whole-number axis)
    assert "No published posts in this period" in admin_page.inner_text("#chart-posts")
    assert admin_page.locator("#chart-posts svg .axis text").count() == 0  # and draw no axis of their own
    # the largest eight: 400 to 1100 followers, listed by platform and name
    assert _legend(admin_page, "chart-followers") == [f"x @initech{i:02d}" for i in range(4, 12)]
    assert [_values(admin_page, "chart-followers", s) for s in range(8)] == [
        [100.0 * i] for i in range(4, 12)
    ]
    assert admin_page.inner_text("#pf-followers-count").startswith("The 8 largest of 11 profiles")
    admin_page.click("#pf-followers-count a")
    admin_page.wait_for_url("**followers=all**")
    assert _legend(admin_page, "chart-followers") == [f"x @initech{i:02d}" for i in range(1, 12)]
    assert [_values(admin_page, "chart-followers", s) for s in range(11)] == [
        [100.0 * i] for i in range(1, 12)
    ]
    assert admin_page.inner_text("#pf-followers-count").startswith("All 11 profiles")
    # another period keeps every line
    admin_page.select_option("#pf-period select[name=days]", "90")
    admin_page.click("#pf-period input[type=submit]")
    admin_page.wait_for_url("**days=90**")
    assert len(_legend(admin_page, "chart-followers")) == 11
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-analytics-all-followers.png"), full_page=True)
    admin_page.click("#pf-followers-count a")  # back to the largest eight
    admin_page.wait_for_url(lambda url: "followers=all" not in url)
    assert len(_legend(admin_page, "chart-followers")) == 8


def test_the_organization_selector_finds_organizations_by_name(admin_page, live_server, db, monkeypatch):
    from apps.analytics import admin as analytics_admin

    monkeypatch.setattr(analytics_admin, "ORG_CHOICES", 3)  # as if there were hundreds
    for name in ("Acme", "Acme Europe", "Globex", "Hooli", "Umbrella Acme"):
        organization_get_or_create(name=name)
    admin_page.goto(f"{live_server.url}/admin/analytics/")
    options = admin_page.locator("#pf-org option").all_text_contents()
    assert options == ["Acme", "Acme Europe", "Globex"]
    assert admin_page.inner_text("#pf-org-more") == "3 of 5 listed: find by name to narrow."
    admin_page.fill("#pf-orgq", "acme")
    admin_page.click("#pf-filters input[type=submit]")
    admin_page.wait_for_url("**orgq=acme**")
    assert admin_page.locator("#pf-org option").all_text_contents() == [
        "Acme",
        "Acme Europe",
        "Umbrella Acme",
    ]
    assert "(3 matches)" in admin_page.inner_text("#pf-filters")
    admin_page.select_option("#pf-org", label="Umbrella Acme")
    admin_page.click("#pf-filters input[type=submit]")
    admin_page.wait_for_load_state()
    assert admin_page.locator("#pf-org option:checked").inner_text() == "Umbrella Acme"
    umbrella = organization_get_or_create(name="Umbrella Acme")
    assert f"org={umbrella.pk}" in admin_page.url
    # a search that misses the chosen organization shows its first match; none at all is said
    admin_page.fill("#pf-orgq", "hoo")
    admin_page.click("#pf-filters input[type=submit]")
    admin_page.wait_for_url("**orgq=hoo**")
    assert admin_page.locator("#pf-org option:checked").inner_text() == "Hooli"
    admin_page.goto(f"{live_server.url}/admin/analytics/failures/?orgq=nothing-like-it")
    assert admin_page.locator("#pf-org option").all_text_contents() == [
        "no organization matches “nothing-like-it”"
    ]
