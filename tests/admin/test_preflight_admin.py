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
