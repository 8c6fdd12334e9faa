"""Issue 22: LinkedIn company Pages. Brands post as their organization, not as a member.

A connect with ``accountType: organization`` (or a ``pageId``) asks for the Community Management
API's permissions (w_organization_social, r_organization_social, rw_organization_admin), lists the
pages the member administers (``organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED``)
and keeps the one named, or the only one; several and none named: ``page_required`` naming them,
as for Facebook Pages. The profile's account is ``urn:li:organization:<id>`` and says
``accountType: organization`` in both families; it publishes as the organization (Posts API with
LinkedIn-Version), is reconciled from the organization's posts and reads the organization's share
statistics. The fakes (``oauth_fakes`` for the connect, ``fakes.LinkedInFake`` for the API) model
the ACL listing, organization posts and statistics, and refuse a post by a member who is not one
of the page's admins.
"""

from __future__ import annotations

import copy
import datetime

import pytest
from django.utils import timezone

from apps.core import ids
from apps.events.models import Event
from apps.profiles.models import SocialProfile
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.oauth_backends import callback_url
from apps.publishing.services import reconciliation
from tests.publishing.fakes import FAKES
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_dead_tokens import generated
from tests.publishing.test_oauth_platforms import REDIRECT, callback, connect, profile_from, query_of
from tests.publishing.test_processing_and_unknown import run_due

pytestmark = pytest.mark.django_db(transaction=True)

ORG_SCOPES = {"w_organization_social", "r_organization_social", "rw_organization_admin"}
ACME = "urn:li:organization:2414183"


@pytest.fixture
def linkedin(settings):
    """The OAuth fake of a LinkedIn app with the Community Management API product."""
    fake = FakeProvider(
        "linkedin",
        copy.deepcopy(ACCOUNTS["linkedin"]),
        redirect_uri=callback_url("linkedin"),
        app_key="linkedin_pages",
    )
    fake.refresh_tokens_enabled = False  # not a programmatic-refresh partner: 60 days, then reconnect
    settings.LINKEDIN_CLIENT_ID, settings.LINKEDIN_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "linkedin": fake.overrides()}
    yield fake
    fake.close()


def org_connect(owner, provider, *, family="v1", **extra):
    body = connect(owner, "linkedin", family=family, accountType="organization", **extra)
    return callback("linkedin", provider.consent(body["authUrl"]))


def test_an_organization_page_connects_as_its_own_profile_and_says_so_in_both_families(owner, linkedin):
    body = connect(owner, "linkedin", accountType="organization")
    asked = set(query_of(body["authUrl"])["scope"].split(" "))
    assert asked >= ORG_SCOPES and "w_member_social" not in asked
    profile = profile_from(callback("linkedin", linkedin.consent(body["authUrl"])))

    assert profile.external_id == ACME
    assert (profile.username, profile.display_name, profile.follower_count) == (
        "acme-corp",
        "Acme Corp",
        12500,
    )
    assert profile.platform_user_id == "urn:li:person:782bbtaQ"  # the admin who connected it
    assert set(profile.token_scopes.split(",")) >= ORG_SCOPES
    assert profile.token_expires_at - timezone.now() > datetime.timedelta(days=59)  # 60 days, then reconnect

    shown = owner.token_client().get(f"/api/profiles/{profile.pk}").json()["data"]
    v1 = owner.client().get(f"/v1/profiles/{ids.render(profile.pk, 'profile')}").json()
    for body in (shown, v1):
        assert body["accountType"] == "organization" and body["platform"] == "linkedin"
        assert body["pages"] == [{"id": "2414183", "name": "Acme Corp"}]
        features = {f["feature"]: f["allowed"] for f in body["features"]}
        assert features == {"publish": True, "metrics": True, "reconciliation": True}
    listed = owner.token_client().get("/api/profiles").json()["data"]
    assert [p["accountType"] for p in listed] == ["organization"]

    # the member connects too: a second profile, their own
    member = profile_from(callback("linkedin", linkedin.consent(connect(owner, "linkedin")["authUrl"])))
    assert member.external_id == "urn:li:person:782bbtaQ" and member.pk != profile.pk
    body = owner.client().get(f"/v1/profiles/{ids.render(member.pk, 'profile')}").json()
    assert body["accountType"] == "member" and "pages" not in body
    assert owner.token_client().get(f"/api/profiles/{member.pk}").json()["data"]["accountType"] == "member"


def test_several_pages_and_none_named_asks_which_as_for_facebook_pages(owner, linkedin):
    linkedin.account["organizations"] += [
        {"id": "5550001", "name": "Acme Coffee", "vanityName": "acme-coffee", "followers": 300},
        # an analyst cannot post as the page: not listed
        {"id": "5550002", "name": "Acme Labs", "vanityName": "acme-labs", "followers": 1, "role": "ANALYST"},
    ]
    params = query_of(org_connect(owner, linkedin))
    assert params["error"] == "page_required"
    assert params["error_description"] == (
        "This LinkedIn member administers several organization pages: connect again with pageId set to one "
        "of Acme Corp (2414183), Acme Coffee (5550001)."
    )
    assert not SocialProfile.objects.exists()

    # pageId names the page (Family B; pageId alone means an organization page)
    answer = owner.token_client().post(
        "/api/oauth/linkedin/authorize", {"redirectUri": REDIRECT, "pageId": "5550001"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    coffee = profile_from(callback("linkedin", linkedin.consent(answer.json()["data"]["authUrl"])))
    assert coffee.external_id == "urn:li:organization:5550001" and coffee.username == "acme-coffee"
    shown = owner.token_client().get(f"/api/profiles/{coffee.pk}").json()["data"]
    assert shown["pages"] == [
        {"id": "2414183", "name": "Acme Corp"},
        {"id": "5550001", "name": "Acme Coffee"},
    ]

    # a page the member does not administer: an error redirect naming the ones it does
    params = query_of(org_connect(owner, linkedin, pageId="5550002"))
    assert params["error"] == "token_exchange_failed"
    assert (
        "5550002 is not among the pages this member administers (it administers 2414183, 5550001)"
        in (params["error_description"])
    )
    assert SocialProfile.objects.count() == 1


def test_a_member_who_administers_no_page_gets_a_clear_error(owner, linkedin):
    linkedin.account["organizations"] = []
    params = query_of(org_connect(owner, linkedin, family="api"))
    assert params["error"] == "token_exchange_failed"
    assert "administers no organization page" in params["error_description"]
    assert not SocialProfile.objects.exists()


def test_an_app_without_the_community_management_api_is_refused_by_linkedin(owner, settings):
    fake = FakeProvider(
        "linkedin", copy.deepcopy(ACCOUNTS["linkedin"]), redirect_uri=callback_url("linkedin")
    )
    settings.LINKEDIN_CLIENT_ID, settings.LINKEDIN_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "linkedin": fake.overrides()}
    try:
        params = query_of(org_connect(owner, fake))
    finally:
        fake.close()
    assert params["error"] == "unauthorized_scope_error" and "organization_" in params["error_description"]


def test_account_type_and_page_id_are_checked_in_both_families(owner):
    v1 = owner.client()
    for body, field in (
        ({"platform": "x", "accountType": "organization"}, "accountType"),
        ({"platform": "linkedin", "accountType": "member", "pageId": "123"}, "pageId"),
        ({"platform": "linkedin", "pageId": "acme"}, "pageId"),
        ({"platform": "linkedin", "accountType": "company"}, "accountType"),
    ):
        answer = v1.post("/v1/profiles/connect", {"redirectUri": REDIRECT, **body}, format="json")
        assert answer.status_code == 400, (body, answer.content)
        assert field in answer.json()["error"]["details"], answer.json()
    answer = owner.token_client().post(
        "/api/oauth/facebook/authorize",
        {"redirectUri": REDIRECT, "accountType": "organization"},
        format="json",
    )
    assert answer.status_code == 400 and "accountType" in str(answer.json()), answer.content


# --- publishing as the organization ------------------------------------------------------------


@pytest.fixture
def page(owner, linkedin, settings):
    """An organization page connected through the OAuth fake, publishing to the API fake, which
    accepts only the tokens the OAuth fake issued, with their scopes."""
    profile = profile_from(org_connect(owner, linkedin))
    fake = FAKES["linkedin"]()
    fake.token_source = linkedin
    fake.person_id = ACCOUNTS["linkedin"]["sub"]
    fake.add_organization("2414183", "Acme Corp", followers=12500)
    fake.account.external_id = profile.external_id
    fake.processing_polls = 0
    settings.OAUTH_ENDPOINT_OVERRIDES = {
        **settings.OAUTH_ENDPOINT_OVERRIDES,
        "linkedin": {**linkedin.overrides(), "api": fake.base_url},
    }
    yield fake, profile
    fake.close()


def schedule(owner, profile, **options):
    content = generated(owner, "linkedin")
    services.publications_schedule(
        content=content, profiles=[profile], scheduled_for=timezone.now() + datetime.timedelta(minutes=30)
    )
    pub = Publication.objects.get(content=content)
    if options:
        Publication.objects.filter(pk=pub.pk).update(options={**pub.options, **options})
        pub.refresh_from_db()
    return pub


def test_a_page_publishes_as_the_organization_and_reads_its_share_statistics(owner, page):
    fake, profile = page
    pub = run_due(schedule(owner, profile, firstComment="Menu in the comments"))
    assert pub.status == "published", pub.last_error
    (post,) = fake.posts
    assert post["author"] == ACME and pub.external_id == post["id"]
    assert pub.url == f"https://www.linkedin.com/feed/update/{post['id']}/"
    created = fake.calls("create_post")[-1]
    assert created.header("linkedin-version") and created.header("x-restli-protocol-version") == "2.0.0"
    (upload,) = fake.calls("images_action")
    assert upload.json["initializeUploadRequest"]["owner"] == ACME  # the image belongs to the page
    assert [c["actor"] for c in fake.comments] == [ACME]

    fake.set_metrics(post["id"], views=900, likes=31, comments=4, shares=2)
    from apps.publishing.services.clients import client_for

    metrics = client_for(profile).fetch_metrics(pub.external_id)
    assert (metrics.views, metrics.likes, metrics.comments, metrics.shares) == (900, 31, 4, 2)
    stats = fake.calls("share_statistics")[-1]
    assert stats.query["organizationalEntity"] == ACME and post["id"] in stats.query["shares"]
    assert not fake.calls("analytics")  # the member analytics are not the page's


def test_a_dropped_create_is_reconciled_from_the_organizations_posts(owner, page):
    fake, profile = page
    assert reconciliation.can_reconcile(profile)  # r_organization_social: the page's posts can be read
    fake.drop_after_create()
    pub = run_due(schedule(owner, profile))
    assert pub.status in ("unknown", "scheduled", "failed") and len(fake.posts) == 1, (
        pub.status,
        pub.last_error,
    )
    if pub.status != "published":
        pub = run_due(Publication.objects.get(pk=pub.pk))
    assert pub.status == "published", pub.last_error
    assert pub.external_id == fake.posts[0]["id"] and len(fake.posts) == 1  # found, not posted again
    finder = fake.calls("find_posts")[-1]
    assert finder.query["author"] == ACME and finder.header("x-restli-method") == "FINDER"


def test_a_member_no_longer_admin_is_refused_and_told_why_without_expiring_the_page(owner, page):
    fake, profile = page
    fake.set_role(ACME, "ANALYST")  # an admin of the page took the member's admin role away
    pub = run_due(schedule(owner, profile))
    assert not fake.posts
    assert pub.status == "failed", (pub.status, pub.last_error)
    assert "must hold an approved ADMINISTRATOR role on the page" in pub.last_error
    assert "has no approved ADMINISTRATOR" in pub.last_error  # LinkedIn's own words follow
    profile.refresh_from_db()
    assert profile.token_status == "valid"
    assert not Event.objects.filter(type="profile.token_expired").exists()
