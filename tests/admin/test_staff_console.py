"""The staff console says Postforge, measures each variant in its platform's own unit, and a
"Reviewer" staff user may act on content but sees nothing of keys, organizations or members."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from playwright.sync_api import expect

from apps.accounts.models import Membership
from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from apps.content.models import Variant
from tests.content.factories import make_content

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def org():
    return organization_get_or_create(name="Acme")


@pytest.fixture
def brand(org):
    return Brand.objects.get(organization=org, is_default=True)


def _reviewer_migration():
    return importlib.import_module("apps.core.migrations.0002_reviewer_group")


@pytest.fixture
def reviewer_page(browser, live_server, db, org):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    if not Group.objects.filter(name="Reviewer").exists():  # an earlier transactional test flushed it
        _reviewer_migration().create_reviewer_group(django_apps, None)
    user = get_user_model().objects.create_user("rita", "rita@example.com", "r3view-pass", is_staff=True)
    user.groups.add(Group.objects.get(name="Reviewer"))  # created by a data migration
    Membership.objects.create(organization=org, user=user, role="editor")  # reviews Acme's content
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", "r3view-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    yield page
    context.close()


def test_the_console_says_postforge(admin_page):
    expect(admin_page.locator("#site-name")).to_have_text("Postforge")
    assert admin_page.title().endswith("Postforge")
    assert "Django administration" not in admin_page.content()


def test_each_variant_shows_its_length_in_the_platforms_unit_red_past_the_limit(
    admin_page, live_server, org, brand
):
    content = make_content(
        org, brand=brand, platforms=("x", "bluesky", "threads"), caption="Short and sweet."
    )
    # X weighs CJK as 2: 150 ideographs are 300 weighted characters (309 with the hashtag), over 280
    Variant.objects.filter(content=content, platform="x").update(caption="咖" * 150)
    # Bluesky counts graphemes: 100 family emoji (7 code points each) are 100 graphemes
    Variant.objects.filter(content=content, platform="bluesky").update(caption="👨‍👩‍👧" * 100)
    admin_page.goto(f"{live_server.url}/admin/content/content/{content.pk}/change/")
    x = admin_page.locator("[data-platform=x] .pf-length")
    sky = admin_page.locator("[data-platform=bluesky] .pf-length")
    threads = admin_page.locator("[data-platform=threads] .pf-length")
    assert x.inner_text().startswith("309 / 280 "), x.inner_text()  # caption, blank line, #coffee
    assert "pf-over" in x.get_attribute("class")
    assert x.evaluate("e => getComputedStyle(e).color") == "rgb(186, 33, 33)"  # red
    text = "👨‍👩‍👧" * 100 + "\n\n#coffee"
    assert sky.inner_text().startswith(f"{100 + 2 + 7} / 300 "), (
        sky.inner_text()
    )  # graphemes: emoji, two newlines, #coffee
    assert "pf-over" not in sky.get_attribute("class") and len(text) > 300  # code points would be over
    assert threads.inner_text().startswith(f"{len('Short and sweet.') + 2 + 7} / 500 "), threads.inner_text()
    assert threads.evaluate("e => getComputedStyle(e).color") != "rgb(186, 33, 33)"


def test_a_reviewer_acts_on_content_but_never_sees_keys_organizations_or_members(
    reviewer_page, live_server, org, brand
):
    page = reviewer_page
    index = page.locator("#content-main").inner_text()
    assert "Content" in index
    for hidden in ("API keys", "Api keys", "Organizations", "Memberships", "Webhook"):
        assert hidden not in index, hidden
    for url in (
        "/admin/accounts/apikey/",
        "/admin/accounts/organization/",
        "/admin/webhooks/webhookendpoint/",
    ):
        response = page.goto(f"{live_server.url}{url}")
        assert response.status == 403, url
    content = make_content(org, brand=brand, status="review", caption="Autumn roast, ready for review")
    page.goto(f"{live_server.url}/admin/content/content/{content.pk}/change/")
    page.click("#pf-approve")
    expect(page.locator("#pf-status")).to_have_text("approved")
    content.refresh_from_db()
    assert content.status == "approved" and content.approved_by == "rita"
