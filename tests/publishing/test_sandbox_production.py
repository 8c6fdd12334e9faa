"""Issue 22: no sandbox in production.

Outside development a platform without app credentials is not offered: connect answers a 4xx
naming the variables to set, unless the operator lists the platform in SANDBOX_PLATFORMS. A
profile whose platform lost its credentials fails its posts with that reason instead of
"publishing" them to the sandbox. Sandbox profiles and their publications say so: both
families, the publication webhooks, the admin (a badge).
"""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from apps.brands.models import Brand
from apps.core import ids
from apps.events.models import Event
from apps.publishing import services
from apps.publishing.models import OAuthState, Publication, SandboxPost
from tests.factories import ProfileFactory
from tests.publishing.test_oauth import REDIRECT
from tests.publishing.test_scheduling import generated

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def production(settings):
    """A deployment outside development that lists no sandbox platform."""
    settings.DEBUG = False
    settings.DEVELOPMENT = False
    settings.SANDBOX_PLATFORMS = []
    for platform in ("X", "INSTAGRAM", "TIKTOK"):
        setattr(settings, f"{platform}_CLIENT_ID", "")
        setattr(settings, f"{platform}_CLIENT_SECRET", "")
    return settings


def test_production_refuses_to_connect_a_platform_without_credentials_in_both_families(owner, production):
    v1 = owner.client().post(
        "/v1/profiles/connect", {"platform": "x", "redirectUri": REDIRECT}, format="json"
    )
    assert v1.status_code == 400, v1.content
    error = v1.json()["error"]
    assert "X_CLIENT_ID and X_CLIENT_SECRET" in error["message"]
    assert "SANDBOX_PLATFORMS" in error["message"]

    api = owner.token_client().post("/api/oauth/tiktok/authorize", {"redirectUri": REDIRECT}, format="json")
    assert api.status_code == 422, api.content
    assert "TIKTOK_CLIENT_ID and TIKTOK_CLIENT_SECRET" in api.json()["error"]
    assert not OAuthState.objects.exists()  # no attempt recorded, no sandbox consent page

    rows = {r["platform"]: r for r in owner.token_client().get("/api/oauth/platforms").json()["data"]}
    assert rows["x"]["mode"] == "unavailable"
    assert rows["x"]["requires"] == ["X_CLIENT_ID", "X_CLIENT_SECRET"]


def test_an_operator_may_list_a_platform_to_offer_its_sandbox(owner, production):
    production.SANDBOX_PLATFORMS = ["x"]
    body = owner.client().post(
        "/v1/profiles/connect", {"platform": "x", "redirectUri": REDIRECT}, format="json"
    )
    assert body.status_code == 200, body.content
    assert "/oauth/sandbox/x/authorize" in body.json()["authUrl"]
    rows = {r["platform"]: r for r in owner.token_client().get("/api/oauth/platforms").json()["data"]}
    assert rows["x"]["mode"] == "sandbox" and rows["x"]["requires"] == []
    assert rows["instagram"]["mode"] == "unavailable"


def test_development_still_falls_back_to_the_sandbox(owner, settings):
    settings.DEVELOPMENT, settings.SANDBOX_PLATFORMS = True, []
    settings.X_CLIENT_ID = settings.X_CLIENT_SECRET = ""
    body = owner.client().post(
        "/v1/profiles/connect", {"platform": "x", "redirectUri": REDIRECT}, format="json"
    )
    assert body.status_code == 200 and "/oauth/sandbox/x/" in body.json()["authUrl"]


def _scheduled(owner, profile) -> Publication:
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = generated(owner, brand, platforms=("x",))
    services.publications_schedule(
        content=content, profiles=[profile], scheduled_for=timezone.now() + datetime.timedelta(minutes=5)
    )
    return Publication.objects.get(content=content)


def test_a_real_profile_whose_platform_has_no_credentials_fails_instead_of_posting_to_the_sandbox(
    owner, production
):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="x", sandbox=False)
    pub = _scheduled(owner, profile)
    Publication.objects.filter(pk=pub.pk).update(status=Publication.QUEUED)
    services.publications_run([pub.pk])
    pub.refresh_from_db()
    assert pub.status == "failed" and pub.error_code == "platform_not_configured"
    assert "X_CLIENT_ID and X_CLIENT_SECRET" in pub.last_error
    assert not SandboxPost.objects.exists()  # nothing "published" where nobody sees it


def test_a_sandbox_profile_outside_development_is_refused_unless_listed(owner, production):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="x", sandbox=True)
    pub = _scheduled(owner, profile)
    Publication.objects.filter(pk=pub.pk).update(status=Publication.QUEUED)
    services.publications_run([pub.pk])
    pub.refresh_from_db()
    assert pub.status == "failed" and pub.error_code == "sandbox_not_allowed"
    assert not SandboxPost.objects.exists()


def test_sandbox_profiles_and_publications_say_so_in_both_families_webhooks_and_admin(owner, settings):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="x", sandbox=True)
    pub = _scheduled(owner, profile)
    services.dispatch_due(now=timezone.now() + datetime.timedelta(minutes=6))
    pub.refresh_from_db()
    assert pub.status == "published"

    v1_profile = owner.client().get(f"/v1/profiles/{ids.render(profile.pk, 'profile')}").json()
    assert v1_profile["sandbox"] is True
    api_profile = owner.token_client().get(f"/api/profiles/{profile.pk}").json()["data"]
    assert api_profile["sandbox"] is True

    v1_content = owner.client().get(f"/v1/content/{ids.render(pub.content_id, 'content')}").json()
    assert [p["sandbox"] for p in v1_content["publications"]] == [True]
    api_content = owner.token_client().get(f"/api/content/{pub.content_id}").json()["data"]
    assert [p["sandbox"] for p in api_content["publications"]] == [True]

    event = Event.objects.get(type="publication.updated", data__publicationId=str(pub.pk))
    assert event.data["sandbox"] is True and event.data["status"] == "published"

    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "s3cret-pass")
    browser = Client()
    browser.force_login(staff)
    for url in ("/admin/profiles/socialprofile/", "/admin/publishing/publication/"):
        page = browser.get(url)
        assert page.status_code == 200
        assert 'class="pf-badge pf-badge-sandbox"' in page.content.decode(), url
