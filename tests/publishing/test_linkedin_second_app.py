"""Issue 28: LinkedIn grants the Community Management API (organization pages) to an app of its
own. With LINKEDIN_PAGES_CLIENT_ID/SECRET set, an organization connect, its code exchange and its
token refreshes use that second app; a member connect keeps LINKEDIN_CLIENT_ID. The OAuth fake
accepts only the app that has the product (tests/publishing/oauth_fakes.py's CLIENT_ID)."""

from __future__ import annotations

import copy

import pytest

from apps.publishing import crypto
from apps.publishing.oauth_backends import callback_url
from apps.publishing.tasks import refresh_expiring_tokens
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_oauth_platforms import callback, connect, make_due, profile_from, query_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def linkedin(settings):
    fake = FakeProvider(
        "linkedin",
        copy.deepcopy(ACCOUNTS["linkedin"]),
        redirect_uri=callback_url("linkedin"),
        app_key="linkedin_pages",
    )
    fake.refresh_tokens_enabled = True
    # the member app (Share on LinkedIn) is another app; the organization app is the fake's
    settings.LINKEDIN_CLIENT_ID, settings.LINKEDIN_CLIENT_SECRET = "member-app-id", "member-app-secret"
    settings.LINKEDIN_PAGES_CLIENT_ID, settings.LINKEDIN_PAGES_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "linkedin": fake.overrides()}
    yield fake
    fake.close()


def test_organization_connects_and_refreshes_use_the_second_app_and_members_the_first(owner, linkedin):
    member = connect(owner, "linkedin")
    assert query_of(member["authUrl"])["client_id"] == "member-app-id"
    body = connect(owner, "linkedin", accountType="organization")
    assert query_of(body["authUrl"])["client_id"] == CLIENT_ID
    profile = profile_from(callback("linkedin", linkedin.consent(body["authUrl"])))
    assert profile.external_id == "urn:li:organization:2414183"
    assert linkedin.token_requests[-1]["client_id"] == CLIENT_ID  # the code went to the second app
    before = crypto.decrypt(profile.access_token_enc)
    make_due(profile)
    assert refresh_expiring_tokens.delay().get() == 1
    profile.refresh_from_db()
    assert profile.token_status == "valid" and crypto.decrypt(profile.access_token_enc) != before
    assert linkedin.token_requests[-1]["grant_type"] == "refresh_token"
    assert linkedin.token_requests[-1]["client_id"] == CLIENT_ID


def test_without_a_second_app_organization_connects_use_the_one_app(owner, linkedin, settings):
    settings.LINKEDIN_CLIENT_ID, settings.LINKEDIN_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.LINKEDIN_PAGES_CLIENT_ID = settings.LINKEDIN_PAGES_CLIENT_SECRET = ""
    body = connect(owner, "linkedin", accountType="organization")
    assert query_of(body["authUrl"])["client_id"] == CLIENT_ID
    assert profile_from(callback("linkedin", linkedin.consent(body["authUrl"]))).external_id.startswith(
        "urn:li:organization:"
    )
