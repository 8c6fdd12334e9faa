"""Issue 22: staff scheduling a TikTok post in the console choose its privacy and give the
creator's consent (TikTok's content sharing guidelines: no default), as API clients do."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_choose_the_tiktok_privacy_and_consent_when_scheduling(admin_page, live_server):
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(
        organization=org, brand=brand, platform="tiktok", sandbox=True, username="acme_tt"
    )
    content = make_content(org, profile=profile, platforms=("tiktok",))
    when = (timezone.now() + datetime.timedelta(days=2)).replace(second=0, microsecond=0)

    admin_page.goto(f"{live_server.url}/admin/content/content/{content.pk}/change/")
    admin_page.click("#pf-schedule")
    admin_page.fill("#id_scheduled_for", when.strftime("%Y-%m-%dT%H:%M"))
    admin_page.fill("#id_timezone", "UTC")
    admin_page.get_by_label(re.compile("tiktok: acme_tt")).check()
    assert admin_page.locator("#id_tiktok_privacy_level").input_value() == ""  # nothing preselected
    admin_page.click("#pf-publish-submit")
    admin_page.wait_for_selector(".messagelist")
    refused = admin_page.locator(".messagelist").inner_text()
    assert "TikTok has no default" in refused and "consent" in refused
    assert not Publication.objects.filter(content=content).exists()

    admin_page.select_option("#id_tiktok_privacy_level", "SELF_ONLY")
    admin_page.check("#id_tiktok_consent")
    admin_page.screenshot(path="/tmp/gates_tiktok_admin_schedule.png", full_page=True)
    admin_page.click("#pf-publish-submit")
    admin_page.wait_for_selector(".messagelist")
    assert "Scheduled." in admin_page.locator(".messagelist").inner_text()
    pub = Publication.objects.get(content=content)
    assert pub.options["tiktok"] == {"privacyLevel": "SELF_ONLY", "consent": True}
