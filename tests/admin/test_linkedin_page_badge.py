"""Issue 22: the admin tells a LinkedIn organization page from the member's own profile (an
ORGANIZATION PAGE badge), and judges its grant by the page's permissions."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.accounts.services import organization_get_or_create
from apps.brands.models import Brand
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db(transaction=True)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def test_the_profiles_list_badges_an_organization_page(admin_page, live_server):
    org = organization_get_or_create(name="Acme")
    brand = Brand.objects.get(organization=org, is_default=True)
    page = ProfileFactory(
        organization=org,
        brand=brand,
        platform="linkedin",
        username="acme-corp",
        display_name="Acme Corp",
        external_id="urn:li:organization:2414183",
        sandbox=False,
        token_scopes="openid,profile,r_organization_social,rw_organization_admin,w_organization_social",
    )
    ProfileFactory(
        organization=org,
        brand=brand,
        platform="linkedin",
        username="ada@acme.example",
        external_id="urn:li:person:782bbtaQ",
        sandbox=False,
        token_scopes="openid,profile,email,w_member_social",
    )
    admin_page.set_viewport_size({"width": 1700, "height": 700})  # the badges column in view
    admin_page.goto(f"{live_server.url}/admin/profiles/socialprofile/")
    rows = {
        admin_page.inner_text(f"#result_list tbody tr:nth-child({i}) th"): admin_page.inner_text(
            f"#result_list tbody tr:nth-child({i}) td.field-badges"
        )
        for i in (1, 2)
    }
    assert rows == {"acme-corp": "ORGANIZATION PAGE", "ada@acme.example": "-"}  # Django shows "-" for none
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-linkedin-page.png"), full_page=True)

    admin_page.goto(f"{live_server.url}/admin/profiles/socialprofile/{page.pk}/change/")
    features = admin_page.inner_text(".field-features_allowed")
    assert "publish: allowed" in features and "metrics: allowed" in features  # the page's permissions
    admin_page.screenshot(path=str(SCREENSHOTS / "admin-linkedin-page-change.png"), full_page=True)
