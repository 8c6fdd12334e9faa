"""The real OAuth connect flow of Instagram, Facebook, Threads, YouTube, LinkedIn and Pinterest,
end to end against a local fake provider speaking each platform's documented wire format
(``tests/publishing/oauth_fakes.py``): the API and the callback over HTTP, the real social-core
backends and platform clients, the beat task for refreshes. Nothing in the project is mocked.
"""

from __future__ import annotations

import base64
import copy
import datetime
import hashlib
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from apps.core import ids
from apps.events.models import Event
from apps.profiles.models import SocialProfile
from apps.publishing import crypto, oauth
from apps.publishing.models import OAuthState
from apps.publishing.oauth_backends import callback_url, platform_client, scopes_for
from apps.publishing.platforms.base import PlatformError
from apps.publishing.tasks import refresh_expiring_tokens
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider

pytestmark = pytest.mark.django_db

REDIRECT = "https://app.example.com/connected?from=postforge"
PLATFORMS = ["instagram", "facebook", "threads", "youtube", "linkedin", "pinterest"]
#: platforms whose stored token is refreshed (a Facebook Page token never expires)
REFRESHING = [p for p in PLATFORMS if p != "facebook"]
DAY = datetime.timedelta(days=1)


@dataclass(frozen=True)
class Expected:
    external_id: str
    username: str
    display_name: str
    picture_url: str
    followers: int
    #: the kind of token the profile keeps (the fake's bookkeeping: short, long, page, access)
    token_kind: str
    #: how long the stored token lives (None: it does not expire)
    ttl: datetime.timedelta | None
    #: "none" (no refresh token), "kept" (the same one stays), "rotating" (a new one each refresh)
    refresh_token: str
    #: grant_type of the refresh request ("" when nothing is refreshed)
    refresh_grant: str
    #: grant_type of the long-lived exchange after the code exchange ("" when there is none)
    exchange_grant: str
    #: a permission the stored scopes must name
    scope: str


EXPECTED = {
    "instagram": Expected(
        "17841405793187218",
        "acme.gram",
        "Acme on Instagram",
        ACCOUNTS["instagram"]["profile_picture_url"],
        5120,
        "long",
        60 * DAY,
        "none",
        "ig_refresh_token",
        "ig_exchange_token",
        "instagram_business_content_publish",
    ),
    "facebook": Expected(
        "112233445566778",
        "acmebakery",
        "Acme Bakery",
        ACCOUNTS["facebook"]["pages"][0]["picture_url"],
        8800,
        "page",
        None,
        "none",
        "",
        "fb_exchange_token",
        "pages_manage_posts",
    ),
    "threads": Expected(
        "25812345678901234",
        "acme.threads",
        "Acme on Threads",
        ACCOUNTS["threads"]["threads_profile_picture_url"],
        2750,
        "long",
        60 * DAY,
        "none",
        "th_refresh_token",
        "th_exchange_token",
        "threads_content_publish",
    ),
    "youtube": Expected(
        "UCuAXFkgsw1L7xaCfnd5JJOw",
        "@acmestudio",
        "Acme Studio",
        "https://yt3.ggpht.com/acme=s88-c-k",
        15300,
        "access",
        datetime.timedelta(seconds=3599),
        "kept",
        "refresh_token",
        "",
        "https://www.googleapis.com/auth/youtube.upload",
    ),
    # A member app without the Community Management API cannot read its follower count
    # (r_member_profileAnalytics): the profile connects with 0 followers.
    "linkedin": Expected(
        "urn:li:person:782bbtaQ",
        "ada@acme.example",
        "Ada Lovelace",
        ACCOUNTS["linkedin"]["picture"],
        0,
        "access",
        60 * DAY,
        "kept",
        "refresh_token",
        "",
        "w_member_social",
    ),
    "pinterest": Expected(
        "549755885175",
        "acmepins",
        "Acme Pins",
        ACCOUNTS["pinterest"]["profile_image"],
        3100,
        "access",
        30 * DAY,
        "rotating",
        "refresh_token",
        "",
        "pins:write",
    ),
}


# --- helpers ------------------------------------------------------------------------------


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def profile_from(location: str) -> SocialProfile:
    from apps.core import ids

    params = query_of(location)
    assert "profileId" in params, params
    return SocialProfile.objects.get(pk=ids.parse(params["profileId"], "profile"))


def connect(persona, platform: str, *, family: str = "v1", **extra) -> dict:
    if family == "v1":
        response = persona.client().post(
            "/v1/profiles/connect", {"platform": platform, "redirectUri": REDIRECT, **extra}, format="json"
        )
        assert response.status_code == 200, response.content
        return response.json()
    response = persona.token_client().post(
        f"/api/oauth/{platform}/authorize", {"redirectUri": REDIRECT, **extra}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()["data"]


def callback(platform: str, params: dict[str, str]) -> str:
    response = Client().get(f"/oauth/{platform}/callback", params)
    assert response.status_code == 302, response.content[:300]
    assert response["Location"].startswith("https://app.example.com/connected?from=postforge")
    return response["Location"]


def provider_connect(persona, fake: FakeProvider, **kwargs) -> SocialProfile:
    body = connect(persona, fake.platform, **kwargs)
    return profile_from(callback(fake.platform, fake.consent(body["authUrl"])))


def make_due(profile: SocialProfile, *, delta: datetime.timedelta = datetime.timedelta(minutes=20)) -> None:
    SocialProfile.objects.filter(pk=profile.pk).update(token_expires_at=timezone.now() + delta)


def rename(fake: FakeProvider, name: str) -> None:
    """The account's display name changes on the platform."""
    account = fake.account
    if fake.platform == "facebook":
        account["pages"][0]["name"] = name
    elif fake.platform == "youtube":
        account["snippet"]["title"] = name
    elif fake.platform == "pinterest":
        account["business_name"] = name
    else:
        account["name"] = name


@pytest.fixture(params=PLATFORMS)
def provider(request, settings):
    platform = request.param
    fake = FakeProvider(platform, copy.deepcopy(ACCOUNTS[platform]), redirect_uri=callback_url(platform))
    setattr(settings, f"{platform.upper()}_CLIENT_ID", CLIENT_ID)
    setattr(settings, f"{platform.upper()}_CLIENT_SECRET", CLIENT_SECRET)
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, platform: fake.overrides()}
    yield fake
    fake.close()


# --- connect --------------------------------------------------------------------------------


def test_connect_creates_the_profile_from_the_platform_account_with_encrypted_tokens(owner, provider):
    platform, expected = provider.platform, EXPECTED[provider.platform]
    body = connect(owner, platform)
    params = query_of(body["authUrl"])
    assert params["state"] == body["state"]
    assert params["redirect_uri"] == callback_url(platform)
    separator = " " if platform in ("youtube", "linkedin") else ","
    assert set(params["scope"].split(separator)) == set(scopes_for(platform))
    verifier = OAuthState.objects.get(state=body["state"]).code_verifier
    if platform == "youtube":  # Google supports PKCE for web-server clients: S256, checked by the fake
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        assert len(verifier) >= 43 and params["code_challenge"] == challenge
        assert params["code_challenge_method"] == "S256"
    else:  # the other web logins do not document PKCE
        assert "code_challenge" not in params and verifier == ""

    location = callback(platform, provider.consent(body["authUrl"]))
    profile = profile_from(location)
    assert query_of(location)["state"] == body["state"]
    assert (profile.platform, profile.external_id, profile.username, profile.display_name) == (
        platform,
        expected.external_id,
        expected.username,
        expected.display_name,
    )
    assert profile.picture_url == expected.picture_url and profile.follower_count == expected.followers
    assert profile.connected and not profile.sandbox and profile.token_status == "valid"

    # The token kept is the one the platform client needs, and it is live.
    access = crypto.decrypt(profile.access_token_enc)
    assert access in provider.access_tokens and provider.kind_of(access) == expected.token_kind
    refresh = crypto.decrypt(profile.refresh_token_enc)
    if expected.refresh_token == "none":
        assert profile.refresh_token_enc == ""
    else:
        assert refresh in provider.refresh_tokens
    # Encrypted at rest: the row holds Fernet tokens, never the plaintext.
    raw_access, raw_refresh = (
        SocialProfile.objects.filter(pk=profile.pk).values_list("access_token_enc", "refresh_token_enc").get()
    )
    assert raw_access.startswith("gAAAAA") and access not in raw_access
    if refresh:
        assert raw_refresh.startswith("gAAAAA") and refresh not in raw_refresh
    if expected.ttl is None:
        assert profile.token_expires_at is None
    else:
        remaining = profile.token_expires_at - timezone.now()
        assert expected.ttl - datetime.timedelta(minutes=5) < remaining <= expected.ttl
    assert expected.scope in profile.token_scopes

    # The token endpoint authenticated the client the platform's way.
    exchange = provider.token_requests[0]
    assert exchange["grant_type"] == "authorization_code" and exchange["code"]
    token_call = next(r for r in provider.requests if r.path == urlsplit(provider.overrides()["token"]).path)
    if platform == "pinterest":
        assert token_call.basic == (CLIENT_ID, CLIENT_SECRET) and "client_secret" not in exchange
    else:
        assert exchange["client_id"] == CLIENT_ID and exchange["client_secret"] == CLIENT_SECRET
    if token_call.method == "POST":
        assert "client_secret" not in token_call.query  # never in a URL that ends up in logs
    if expected.exchange_grant:
        assert [r for r in provider.token_requests if r.get("grant_type") == expected.exchange_grant]

    event = Event.objects.get(type="profile.connected")
    assert event.data["profileId"] == str(profile.pk) and event.data["reconnected"] is False


@pytest.mark.parametrize(
    "provider, unticked",
    [
        ("instagram", "instagram_business_content_publish"),
        ("youtube", "https://www.googleapis.com/auth/youtube.upload"),
        ("facebook", "pages_manage_engagement"),
    ],
    indirect=["provider"],
)
def test_the_stored_scopes_are_what_the_user_granted(owner, provider, unticked):
    body = connect(owner, provider.platform)
    granted = frozenset(scopes_for(provider.platform)) - {unticked}
    profile = profile_from(callback(provider.platform, provider.consent(body["authUrl"], grant=granted)))
    stored = set(profile.token_scopes.replace(",", " ").split())
    assert stored == set(granted) and unticked not in stored


@pytest.mark.parametrize(
    "provider, feature, scope",
    [
        ("instagram", "first_comment", "instagram_business_manage_comments"),
        ("youtube", "first_comment", "https://www.googleapis.com/auth/youtube.force-ssl"),
        ("facebook", "first_comment", "pages_manage_engagement"),
    ],
    indirect=["provider"],
)
def test_each_feature_asks_for_its_permission_and_the_profile_shows_what_its_grant_allows(
    owner, provider, feature, scope
):
    body = connect(owner, provider.platform)
    asked = set(re.split(r"[,\s]+", query_of(body["authUrl"])["scope"]))
    assert scope in asked
    profile = profile_from(
        callback(
            provider.platform,
            provider.consent(body["authUrl"], grant=frozenset(scopes_for(provider.platform)) - {scope}),
        )
    )
    shown = owner.token_client().get(f"/api/profiles/{profile.pk}").json()["data"]["features"]
    by_name = {f["feature"]: f for f in shown}
    assert by_name[feature]["allowed"] is False and by_name[feature]["missingScopes"] == [scope]
    assert by_name["publish"]["allowed"] is True
    v1 = owner.client().get(f"/v1/profiles/{ids.render(profile.pk, 'profile')}").json()
    assert {f["feature"]: f["allowed"] for f in v1["features"]} == {f["feature"]: f["allowed"] for f in shown}


def test_a_restricted_linkedin_permission_is_asked_for_only_when_the_app_is_approved(settings):
    assert "r_member_postAnalytics" not in scopes_for("linkedin")
    settings.OAUTH_RESTRICTED_SCOPES = ["r_member_postAnalytics"]
    assert "r_member_postAnalytics" in scopes_for("linkedin")
    assert "video.list" in scopes_for("tiktok")


def test_reconnecting_updates_the_same_profile(owner, provider):
    first = provider_connect(owner, provider)
    old_access = crypto.decrypt(first.access_token_enc)
    rename(provider, "Acme, renamed")

    second = provider_connect(owner, provider, family="api")
    assert second.pk == first.pk and SocialProfile.objects.count() == 1
    assert second.display_name == "Acme, renamed"
    new_access = crypto.decrypt(second.access_token_enc)
    assert new_access != old_access and new_access in provider.access_tokens
    assert list(
        Event.objects.filter(type="profile.connected")
        .order_by("created_at")
        .values_list("data__reconnected", flat=True)
    ) == [False, True]


def test_a_wrong_client_secret_fails_the_connect_with_an_error_redirect(owner, provider, settings):
    setattr(settings, f"{provider.platform.upper()}_CLIENT_SECRET", "not-the-secret")
    body = connect(owner, provider.platform)
    params = query_of(callback(provider.platform, provider.consent(body["authUrl"])))
    assert params["error"] == "token_exchange_failed" and params["error_description"]
    assert params["state"] == body["state"] and "profileId" not in params
    assert not SocialProfile.objects.exists()


def test_a_code_is_single_use_and_bound_to_its_attempt(owner, provider):
    first = connect(owner, provider.platform)
    code = provider.consent(first["authUrl"])["code"]
    profile_from(callback(provider.platform, {"code": code, "state": first["state"]}))

    second = connect(owner, provider.platform)
    provider.consent(second["authUrl"])  # the user consents again; the attacker replays the old code
    params = query_of(callback(provider.platform, {"code": code, "state": second["state"]}))
    assert params["error"] == "token_exchange_failed"
    assert SocialProfile.objects.count() == 1


# --- refresh ------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", REFRESHING, indirect=True)
def test_the_beat_refreshes_the_token_and_never_blanks_the_refresh_token(owner, provider):
    expected = EXPECTED[provider.platform]
    profile = provider_connect(owner, provider)
    before_access, before_refresh = (
        crypto.decrypt(profile.access_token_enc),
        crypto.decrypt(profile.refresh_token_enc),
    )
    make_due(profile)

    assert refresh_expiring_tokens.delay().get() == 1
    profile.refresh_from_db()
    access, refresh = crypto.decrypt(profile.access_token_enc), crypto.decrypt(profile.refresh_token_enc)
    assert access != before_access and access in provider.access_tokens
    assert provider.kind_of(access) == expected.token_kind
    assert provider.token_requests[-1]["grant_type"] == expected.refresh_grant
    assert profile.token_expires_at > timezone.now() + expected.ttl - datetime.timedelta(minutes=5)
    assert profile.token_status == "valid" and expected.scope in profile.token_scopes
    if expected.refresh_token == "none":
        assert profile.refresh_token_enc == ""  # Instagram and Threads refresh the token itself
        return
    if expected.refresh_token == "rotating":
        assert refresh != before_refresh and before_refresh not in provider.refresh_tokens
    else:
        assert refresh == before_refresh
    assert refresh in provider.refresh_tokens

    # An answer without a refresh token (Google always, the others when told to) keeps the stored one.
    provider.refresh_omits_new_token = True
    make_due(profile)
    assert refresh_expiring_tokens.delay().get() == 1
    profile.refresh_from_db()
    assert crypto.decrypt(profile.refresh_token_enc) == refresh
    assert crypto.decrypt(profile.access_token_enc) in provider.access_tokens


@pytest.mark.parametrize("provider", REFRESHING, indirect=True)
def test_a_revoked_grant_marks_the_profile_and_emits_token_expired(owner, provider):
    profile = provider_connect(owner, provider)
    provider.revoke_all()
    make_due(profile)

    assert refresh_expiring_tokens.delay().get() == 0
    profile.refresh_from_db()
    assert profile.token_status == "revoked"
    event = Event.objects.get(type="profile.token_expired")
    assert event.data["profileId"] == str(profile.pk) and event.data["platform"] == provider.platform
    assert event.data["status"] == "revoked" and event.data["reason"]
    # The beat leaves a revoked profile alone, and a forced refresh emits no second event.
    requests = len(provider.token_requests)
    assert refresh_expiring_tokens.delay().get() == 0
    assert len(provider.token_requests) == requests
    assert oauth.profile_refresh_token(profile=profile).token_status == "revoked"
    assert Event.objects.filter(type="profile.token_expired").count() == 1

    # Connecting again brings the same profile back.
    again = provider_connect(owner, provider)
    assert again.pk == profile.pk and again.token_status == "valid"


@pytest.mark.parametrize("provider", ["youtube"], indirect=True)
def test_the_beat_refreshes_a_google_token_ahead_of_its_hour_and_a_publish_refreshes_one_about_to_expire(
    owner, provider, settings
):
    from apps.publishing import services

    # The beat runs more often than Google's tokens live (3,599 s), so one is never found dead.
    assert settings.CELERY_BEAT_SCHEDULE["refresh-expiring-tokens"]["schedule"] < 3599 / 2
    profile = provider_connect(owner, provider)
    assert refresh_expiring_tokens.delay().get() == 0  # 59 minutes left: not yet
    make_due(profile, delta=datetime.timedelta(minutes=25))
    assert refresh_expiring_tokens.delay().get() == 1
    profile.refresh_from_db()
    assert profile.token_expires_at > timezone.now() + datetime.timedelta(minutes=55)

    # Before a publish: 15 minutes left is used as is, 5 minutes left is refreshed first.
    make_due(profile, delta=datetime.timedelta(minutes=15))
    profile.refresh_from_db()
    requests = len(provider.token_requests)
    services.token_fresh_for_use(profile)
    assert len(provider.token_requests) == requests
    make_due(profile, delta=datetime.timedelta(minutes=5))
    profile.refresh_from_db()
    services.token_fresh_for_use(profile)
    assert provider.token_requests[-1]["grant_type"] == "refresh_token"
    assert crypto.decrypt(profile.access_token_enc) in provider.access_tokens
    stored = SocialProfile.objects.get(pk=profile.pk)
    assert stored.access_token_enc == profile.access_token_enc and stored.token_status == "valid"


@pytest.mark.parametrize("provider", ["youtube"], indirect=True)
def test_a_profile_marked_expired_with_a_refresh_token_is_brought_back_by_the_beat(owner, provider):
    profile = provider_connect(owner, provider)
    SocialProfile.objects.filter(pk=profile.pk).update(
        token_status="expired", token_expires_at=timezone.now() - datetime.timedelta(hours=2)
    )
    assert refresh_expiring_tokens.delay().get() == 1
    profile.refresh_from_db()
    assert (
        profile.token_status == "valid" and crypto.decrypt(profile.access_token_enc) in provider.access_tokens
    )


@pytest.mark.parametrize("provider", ["facebook"], indirect=True)
def test_a_facebook_page_token_is_never_refreshed_and_a_revoked_one_is_refused_on_use(owner, provider):
    profile = provider_connect(owner, provider)
    page_token = crypto.decrypt(profile.access_token_enc)
    calls = len(provider.requests)

    assert refresh_expiring_tokens.delay().get() == 0  # no expiry: never due
    assert oauth.profile_refresh_token(profile=profile).token_status == "valid"
    assert len(provider.requests) == calls
    profile.refresh_from_db()
    assert crypto.decrypt(profile.access_token_enc) == page_token

    # Revoking the app kills the Page token: the Graph API answers 190, which the client
    # reports as token_expired. The refresh above changes nothing (a Page token cannot be
    # refreshed), so publishing marks the profile expired at the first refusal instead of
    # retrying it: tests/publishing/test_dead_tokens.py.
    provider.revoke_all()
    with pytest.raises(PlatformError) as refused:
        platform_client("facebook", access_token=page_token, account_id=profile.external_id).fetch_account()
    assert refused.value.token_expired and refused.value.code == 190


@pytest.mark.parametrize("provider", ["facebook"], indirect=True)
def test_facebook_without_the_pages_permission_fails_with_an_error_redirect(owner, provider):
    body = connect(owner, "facebook")
    granted = frozenset(scopes_for("facebook")) - {"pages_show_list"}
    params = query_of(callback("facebook", provider.consent(body["authUrl"], grant=granted)))
    assert params["error"] == "token_exchange_failed" and "permission" in params["error_description"]
    assert not SocialProfile.objects.exists()


@pytest.mark.parametrize("provider", ["linkedin"], indirect=True)
def test_linkedin_without_programmatic_refresh_is_marked_expired_when_the_token_runs_out(owner, provider):
    provider.refresh_tokens_enabled = False  # only approved partners get refresh tokens
    profile = provider_connect(owner, provider)
    assert profile.refresh_token_enc == "" and profile.token_status == "valid"
    calls = len(provider.token_requests)

    make_due(profile)  # expires within the day: nothing can be done yet, nothing is sent
    assert oauth.profile_refresh_token(profile=profile).token_status == "valid"
    make_due(profile, delta=-datetime.timedelta(minutes=1))
    profile = oauth.profile_refresh_token(profile=profile)
    assert profile.token_status == "expired"
    event = Event.objects.get(type="profile.token_expired")
    assert event.data["status"] == "expired" and event.data["profileId"] == str(profile.pk)
    assert len(provider.token_requests) == calls


@pytest.mark.parametrize("provider", ["facebook"], indirect=True)
def test_a_facebook_account_with_several_pages_connects_the_page_the_user_chooses(owner, provider):
    provider.account["pages"].append(
        {
            "id": "998877665544332",
            "name": "Acme Coffee",
            "username": "acmecoffee",
            "category": "Cafe",
            "picture_url": "https://scontent.xx.fbcdn.net/v/acme-coffee.jpg",
            "followers_count": 1200,
        }
    )
    # without a choice: no guess (issue 22), the redirect names the Pages to choose from
    params = query_of(callback("facebook", provider.consent(connect(owner, "facebook")["authUrl"])))
    assert params["error"] == "page_required"
    assert params["error_description"] == (
        "This account manages several Facebook Pages: connect again with pageId set to one of "
        "Acme Bakery (112233445566778), Acme Coffee (998877665544332)."
    )
    assert not SocialProfile.objects.filter(platform="facebook").exists()
    # the first Page named: the profile lists every Page the account manages
    first = provider_connect(owner, provider, pageId="112233445566778")
    assert first.external_id == "112233445566778"
    shown = owner.token_client().get(f"/api/profiles/{first.pk}").json()["data"]
    assert shown["pages"] == [
        {"id": "112233445566778", "name": "Acme Bakery"},
        {"id": "998877665544332", "name": "Acme Coffee"},
    ]
    v1 = owner.client().get(f"/v1/profiles/{ids.render(first.pk, 'profile')}").json()
    assert v1["pages"] == shown["pages"]

    # connect again choosing the second Page (Family B): its own profile, with its own Page token
    answer = owner.token_client().post(
        "/api/oauth/facebook/authorize", {"redirectUri": REDIRECT, "pageId": "998877665544332"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    second = profile_from(callback("facebook", provider.consent(answer.json()["data"]["authUrl"])))
    assert (
        second.pk != first.pk and second.external_id == "998877665544332" and second.username == "acmecoffee"
    )
    assert provider.kind_of(crypto.decrypt(second.access_token_enc)) == "page"
    assert SocialProfile.objects.filter(platform="facebook").count() == 2

    # a Page the account does not manage: an error redirect, no profile
    answer = owner.client().post(
        "/v1/profiles/connect",
        {"platform": "facebook", "redirectUri": REDIRECT, "pageId": "111"},
        format="json",
    )
    params = query_of(callback("facebook", provider.consent(answer.json()["authUrl"])))
    assert params["error"] == "token_exchange_failed" and "111" in params["error_description"]
    assert SocialProfile.objects.filter(platform="facebook").count() == 2


def test_page_id_is_refused_for_other_platforms(owner):
    answer = owner.client().post(
        "/v1/profiles/connect", {"platform": "x", "redirectUri": REDIRECT, "pageId": "123"}, format="json"
    )
    assert answer.status_code == 400 and "pageId" in answer.json()["error"]["details"]
    answer = owner.client().post(
        "/v1/profiles/connect",
        {"platform": "facebook", "redirectUri": REDIRECT, "pageId": "../me"},
        format="json",
    )
    assert answer.status_code == 400


@pytest.mark.parametrize("provider", ["tiktok"], indirect=True)
def test_an_unaudited_tiktok_app_says_at_connect_that_it_posts_only_privately(owner, provider, settings):
    settings.TIKTOK_APP_AUDITED = False
    location = callback("tiktok", provider.consent(connect(owner, "tiktok")["authUrl"]))
    assert "SELF_ONLY" in query_of(location)["notice"]
    profile = profile_from(location)
    shown = owner.token_client().get(f"/api/profiles/{profile.pk}").json()["data"]["features"]
    assert "SELF_ONLY" in next(f for f in shown if f["feature"] == "publish")["note"]
    settings.TIKTOK_APP_AUDITED = True
    assert "notice" not in query_of(callback("tiktok", provider.consent(connect(owner, "tiktok")["authUrl"])))
