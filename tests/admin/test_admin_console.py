from __future__ import annotations

import pytest

from apps.accounts.models import ApiKey
from apps.accounts.services import organization_get_or_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_log_in_and_see_every_organizations_brands(admin_page, live_server):
    organization_get_or_create(name="Acme")
    organization_get_or_create(name="Globex")
    admin_page.goto(f"{live_server.url}/admin/brands/brand/")
    rows = admin_page.locator("#result_list tbody tr")
    assert rows.count() == 2
    text = admin_page.locator("#result_list").inner_text()
    assert "Acme" in text and "Globex" in text


def test_staff_issue_an_api_key_that_is_shown_once_and_works(admin_page, live_server):
    org = organization_get_or_create(name="Initech")
    admin_page.goto(f"{live_server.url}/admin/accounts/organization/")
    admin_page.check(f"input[name=_selected_action][value='{org.pk}']")
    admin_page.select_option("select[name=action]", "issue_admin_key")
    admin_page.click("button[name=index]")
    message = admin_page.locator(".messagelist").inner_text()
    secret = next(word for word in message.split() if word.startswith("pf_live_"))
    assert ApiKey.objects.get(organization=org).hashed == ApiKey.hash_secret(secret)
    import requests

    response = requests.get(
        f"{live_server.url}/v1/brands", headers={"Authorization": f"Bearer {secret}"}, timeout=10
    )
    assert response.status_code == 200
    assert response.json()["data"][0]["name"] == "Initech"


def test_the_admin_index_shows_whether_workers_are_alive(admin_page, live_server):
    from apps.core import workers

    admin_page.goto(f"{live_server.url}/admin/")
    assert "No worker is alive" in admin_page.inner_text(
        "#worker-status"
    ) or "alive:" in admin_page.inner_text("#worker-status")
    workers.beat_once("w-admin@host", ["generation", "publishing"])
    try:
        admin_page.goto(f"{live_server.url}/admin/")
        text = admin_page.inner_text("#worker-status")
        assert "w-admin@host" in text and "alive" in text
    finally:
        workers.forget("w-admin@host")
    admin_page.goto(f"{live_server.url}/admin/")
    assert "w-admin@host" not in admin_page.inner_text("#worker-status")
