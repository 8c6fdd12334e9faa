"""Issue 32: the content page shows the pre-flight check; staff scheduling what would fail is
refused with its problems unless they force it."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from apps.content.models import Variant
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_content_page_shows_the_preflight_check_and_scheduling_needs_force(admin_page, live_server):
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(
        organization=org,
        brand=brand,
        platform="instagram",
        sandbox=False,
        username="acme_ig",
        token_scopes="instagram_business_basic,instagram_business_content_publish",
        token_expires_at=timezone.now() + datetime.timedelta(days=40),
    )
    content = make_content(org, profile=profile, platforms=("instagram",), status="approved")
    Variant.objects.filter(content=content).update(caption="x" * 2300, first_comment="Link in bio")

    admin_page.goto(f"{live_server.url}/admin/content/content/{content.pk}/change/")
    panel = admin_page.locator("#pf-preflight")
    assert "a platform would refuse this post" in panel.inner_text()
    codes = admin_page.locator("#pf-preflight-table tr[data-code]").evaluate_all(
        "rows => rows.map(r => r.dataset.code)"
    )
    assert set(codes) == {"text_rule", "feature_not_granted", "media_type"}, codes
    assert "instagram_business_manage_comments" in panel.inner_text()
    panel.scroll_into_view_if_needed()
    admin_page.screenshot(path="/tmp/team_preflight_admin.png", full_page=True)

    when = (timezone.now() + datetime.timedelta(days=2)).replace(second=0, microsecond=0)
    admin_page.click("#pf-schedule")
    admin_page.fill("#id_scheduled_for", when.strftime("%Y-%m-%dT%H:%M"))
    admin_page.fill("#id_timezone", "UTC")
    admin_page.get_by_label(re.compile("instagram: acme_ig")).check()
    admin_page.click("#pf-publish-submit")
    admin_page.wait_for_selector(".messagelist")
    assert "pre-flight check failed" in admin_page.locator(".messagelist").inner_text()
    assert not Publication.objects.filter(content=content).exists()

    admin_page.check("#id_force")
    admin_page.click("#pf-publish-submit")
    admin_page.wait_for_selector(".messagelist")
    assert "Scheduled." in admin_page.locator(".messagelist").inner_text()
    assert Publication.objects.get(content=content).status == "scheduled"


def test_staff_import_a_csv_see_its_report_and_download_the_template(admin_page, live_server, tmp_path):
    from apps.content.models import Content

    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    ProfileFactory(organization=org, brand=brand, platform="x", sandbox=True, username="acme_x")
    day = (timezone.now() + datetime.timedelta(days=3)).date().isoformat()
    bad = tmp_path / "posts.csv"
    bad.write_text(f"text,platforms,date,time\nHello,x,{day},09:00\nLate,x,2020-01-01,09:00\n")

    admin_page.goto(f"{live_server.url}/admin/content/content/")
    admin_page.click("#pf-import-tool")
    template = admin_page.locator("#pf-import-template").get_attribute("href")
    assert admin_page.request.get(f"{live_server.url}{template}").text().startswith("text,prompt,platforms")
    admin_page.select_option("#id_organization", label="Acme")
    admin_page.set_input_files("#id_file", str(bad))
    admin_page.click("#pf-import-submit")
    report = admin_page.locator("#pf-import-report")
    assert "This date and time is in the past." in report.inner_text() and "3" in report.inner_text()
    admin_page.screenshot(path="/tmp/team_import_admin.png", full_page=True)
    assert not Content.objects.filter(organization=org).exists()

    good = tmp_path / "fixed.csv"
    good.write_text(f"text,platforms,date,time\nHello,x,{day},09:00\nLater,x,{day},10:00\n")
    admin_page.select_option("#id_organization", label="Acme")
    admin_page.set_input_files("#id_file", str(good))
    admin_page.click("#pf-import-submit")
    admin_page.wait_for_selector(".messagelist")
    assert "2 items (2 scheduled" in admin_page.locator(".messagelist").inner_text()
    assert Content.objects.filter(organization=org, status="scheduled").count() == 2
