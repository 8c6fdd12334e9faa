"""Staff answer an `unknown` publication in headless Chromium: "I found the post" asks for each
post's link, refuses one off the platform's site, and stores the link and the post id it carries."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from apps.content.models import Content
from apps.events.models import Event
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def unknown_publication(org, profile, prompt: str) -> Publication:
    content = make_content(
        org, brand=profile.brand, status="publishing", image=False, platforms=(profile.platform,)
    )
    Content.objects.filter(pk=content.pk).update(prompt=prompt)
    when = timezone.now() - datetime.timedelta(hours=1)
    return Publication.objects.create(
        organization=org,
        content=content,
        profile=profile,
        platform=profile.platform,
        scheduled_for=when,
        due_at=when,
        status="unknown",
        outcome_unknown=True,
        attempts=6,
        last_error="No answer after the create call (outcome still unknown after 6 attempts: check the platform)",
    )


def test_i_found_the_post_asks_for_its_link_and_stores_it(admin_page, live_server):
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    x = ProfileFactory(organization=org, brand=brand, platform="x", sandbox=False, username="acmecoffee")
    tiktok = ProfileFactory(
        organization=org, brand=brand, platform="tiktok", sandbox=False, username="acme.coffee"
    )
    tweet = unknown_publication(org, x, "Autumn latte launch")
    clip = unknown_publication(org, tiktok, "Roastery tour clip")

    admin_page.goto(f"{live_server.url}/admin/publishing/publication/?status=unknown")
    expect(admin_page.locator("#result_list tbody tr")).to_have_count(2)
    for pub in (tweet, clip):
        admin_page.check(f"input[name=_selected_action][value='{pub.pk}']")
    admin_page.select_option("select[name=action]", "confirm_posted")
    admin_page.click("button[name=index]")

    # the intermediate page: one link per post, each with its platform's site
    admin_page.wait_for_selector("#pf-confirm-posted")
    expect(admin_page.locator("#pf-confirm-posted fieldset")).to_have_count(2)
    expect(admin_page.locator(f"fieldset[data-publication='{tweet.pk}']")).to_contain_text(
        "https on x.com or twitter.com"
    )
    expect(admin_page.locator(f"fieldset[data-publication='{clip.pk}']")).to_contain_text(
        "Roastery tour clip"
    )
    assert Publication.objects.filter(status="unknown").count() == 2  # nothing changed by asking
    admin_page.fill(
        f"#id_pub-{tweet.pk}-url", "https://www.tiktok.com/@acme.coffee/video/7301234567890123456"
    )
    admin_page.fill(f"#id_pub-{clip.pk}-url", "https://www.tiktok.com/@acme.coffee/video/7301234567890123456")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-found-the-post.png"), full_page=True)
    admin_page.click("#pf-confirm-posted-submit")

    # the TikTok link is right: published; the X one is another site's: asked again, with the reason
    expect(admin_page.locator(".messagelist")).to_contain_text("1 publication(s) marked published.")
    expect(admin_page.locator("#pf-confirm-posted fieldset")).to_have_count(1)
    expect(admin_page.locator(f"fieldset[data-publication='{tweet.pk}'] .errorlist")).to_have_text(
        "the host must be x.com or twitter.com (got www.tiktok.com)."
    )
    clip.refresh_from_db()
    assert (clip.status, clip.external_id, clip.url) == (
        "published",
        "7301234567890123456",
        "https://www.tiktok.com/@acme.coffee/video/7301234567890123456",
    )
    tweet.refresh_from_db()
    assert tweet.status == "unknown" and tweet.url == ""

    admin_page.fill(f"#id_pub-{tweet.pk}-url", "https://x.com/acmecoffee/status/1790000000000000001")
    admin_page.click("#pf-confirm-posted-submit")
    admin_page.wait_for_url("**/admin/publishing/publication/?status=unknown")
    expect(admin_page.locator(".messagelist")).to_contain_text("1 publication(s) marked published.")
    tweet.refresh_from_db()
    assert (tweet.status, tweet.external_id, tweet.url, tweet.outcome_unknown) == (
        "published",
        "1790000000000000001",
        "https://x.com/acmecoffee/status/1790000000000000001",
        False,
    )
    event = Event.objects.filter(type="publication.updated", data__publicationId=str(tweet.pk)).get()
    assert event.data["url"] == tweet.url and event.data["externalId"] == "1790000000000000001"

    # the list shows both posts' links now
    admin_page.goto(f"{live_server.url}/admin/publishing/publication/?status=published")
    links = admin_page.locator("#result_list a[target=_blank]")
    expect(links).to_have_count(2)
    assert {links.nth(i).get_attribute("href") for i in range(2)} == {tweet.url, clip.url}


def test_i_found_the_post_on_a_publication_that_is_not_unknown_says_so(admin_page, live_server):
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    x = ProfileFactory(organization=org, brand=brand, platform="x", sandbox=False, username="acmecoffee")
    pub = unknown_publication(org, x, "Autumn latte launch")
    Publication.objects.filter(pk=pub.pk).update(status="failed", outcome_unknown=False)
    admin_page.goto(f"{live_server.url}/admin/publishing/publication/")
    admin_page.check(f"input[name=_selected_action][value='{pub.pk}']")
    admin_page.select_option("select[name=action]", "confirm_posted")
    admin_page.click("button[name=index]")
    expect(admin_page.locator(".messagelist .error")).to_contain_text(
        "only a publication whose outcome is unknown can be confirmed; this one is failed."
    )
    assert admin_page.locator("#pf-confirm-posted").count() == 0
    pub.refresh_from_db()
    assert pub.status == "failed"
