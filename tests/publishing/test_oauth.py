"""Connecting profiles over OAuth: the sandbox flow over HTTP, and real flows against a
local fake provider speaking X's and TikTok's token-endpoint wire formats."""

from __future__ import annotations

import base64
import datetime
import hashlib
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from apps.events.models import Event
from apps.profiles.models import SocialProfile
from apps.publishing import crypto, oauth
from apps.publishing.models import OAuthState
from apps.publishing.oauth_backends import TokenSet
from apps.publishing.tasks import refresh_expiring_tokens
from tests.factories import BrandFactory, ProfileFactory
from tests.publishing.oauth_fakes import CLIENT_ID, CLIENT_SECRET, TIKTOK_ACCOUNT, X_ACCOUNT, FakeProvider

pytestmark = pytest.mark.django_db

REDIRECT = "https://app.example.com/connected?from=postforge"


# --- helpers ------------------------------------------------------------------------------


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def connect(persona, platform: str, *, family: str = "v1", redirect: str = REDIRECT, **extra) -> dict:
    if family == "v1":
        response = persona.client().post(
            "/v1/profiles/connect", {"platform": platform, "redirectUri": redirect, **extra}, format="json"
        )
        assert response.status_code == 200, response.content
        return response.json()
    response = persona.token_client().post(
        f"/api/oauth/{platform}/authorize", {"redirectUri": redirect, **extra}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()["data"]


def sandbox_consent(auth_url: str, *, username: str = "acme_social", action: str = "authorize") -> str:
    """Play the user on the sandbox consent page; return where the browser lands last."""
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(path_of(auth_url))
    assert page.status_code == 200
    html = page.content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    state = query_of(auth_url)["state"]
    decision = browser.post(
        path_of(auth_url),
        {"csrfmiddlewaretoken": token, "state": state, "username": username, "action": action},
    )
    assert decision.status_code == 302
    callback = browser.get(path_of(decision["Location"]))
    assert callback.status_code == 302, callback.content[:300]
    return callback["Location"]


@pytest.fixture
def x_provider(settings):
    fake = FakeProvider("x", dict(X_ACCOUNT))
    settings.X_CLIENT_ID, settings.X_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "x": fake.overrides()}
    yield fake
    fake.close()


@pytest.fixture
def tiktok_provider(settings):
    fake = FakeProvider("tiktok", dict(TIKTOK_ACCOUNT))
    settings.TIKTOK_CLIENT_ID, settings.TIKTOK_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "tiktok": fake.overrides()}
    yield fake
    fake.close()


def provider_connect(persona, fake: FakeProvider, **extra) -> tuple[dict, str]:
    body = connect(persona, fake.platform, **extra)
    callback = Client().get(f"/oauth/{fake.platform}/callback", fake.consent(body["authUrl"]))
    assert callback.status_code == 302, callback.content[:300]
    return body, callback["Location"]


def profile_from(location: str) -> SocialProfile:
    from apps.core import ids

    return SocialProfile.objects.get(pk=ids.parse(query_of(location)["profileId"], "profile"))


# --- the sandbox, end to end over HTTP ---------------------------------------------------------------


def test_a_profile_connects_through_the_sandbox_consent_page(owner, settings):
    body = connect(owner, "instagram")
    assert set(body) == {"authUrl", "state"}
    assert (
        body["authUrl"]
        == f"{settings.OAUTH_CALLBACK_BASE_URL}/oauth/sandbox/instagram/authorize?state={body['state']}"
    )

    browser = Client(enforce_csrf_checks=True)
    page = browser.get(path_of(body["authUrl"]))
    html = page.content.decode()
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert "Postforge" in html and "Instagram" in html and "Acme" in html
    assert "instagram_business_content_publish" in html
    assert re.search(r'<input type="text" id="username" name="username" value="acme_instagram"', html)
    assert 'value="authorize"' in html and 'value="deny"' in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)

    # Without the CSRF token the form is refused.
    forged = browser.post(
        path_of(body["authUrl"]), {"state": body["state"], "username": "x", "action": "authorize"}
    )
    assert forged.status_code == 403

    decision = browser.post(
        path_of(body["authUrl"]),
        {
            "csrfmiddlewaretoken": token,
            "state": body["state"],
            "username": "acme_insta",
            "action": "authorize",
        },
    )
    assert decision.status_code == 302
    assert decision["Location"].startswith(
        f"{settings.OAUTH_CALLBACK_BASE_URL}/oauth/instagram/callback?code="
    )
    assert query_of(decision["Location"])["state"] == body["state"]

    callback = browser.get(path_of(decision["Location"]))
    assert callback.status_code == 302
    assert callback["Cache-Control"] == "no-store"
    location = callback["Location"]
    assert location.startswith("https://app.example.com/connected?")
    params = query_of(location)
    assert params["from"] == "postforge" and params["state"] == body["state"]
    assert re.fullmatch(r"prf_[0-9a-f]{32}", params["profileId"])

    listed = owner.client().get("/v1/profiles").json()["data"]
    assert [p["id"] for p in listed] == [params["profileId"]]
    shown = listed[0]
    assert shown["platform"] == "instagram" and shown["username"] == "acme_insta"
    assert shown["displayName"] == "Acme Insta" and shown["connected"] is True and shown["connectedAt"]
    assert shown["followerCount"] >= 100
    assert shown["profilePicture"].startswith(f"{settings.OAUTH_CALLBACK_BASE_URL}/oauth/sandbox/avatar/sbx_")

    avatar = Client().get(path_of(shown["profilePicture"]))
    assert avatar.status_code == 200 and avatar["Content-Type"] == "image/png"
    assert avatar.content.startswith(b"\x89PNG\r\n\x1a\n")

    profile = profile_from(location)
    assert profile.sandbox is True and profile.token_status == "valid"
    assert crypto.decrypt(profile.access_token_enc).startswith("sbx_at_")
    assert profile.brand.is_default
    event = Event.objects.get(type="profile.connected")
    assert event.data == {
        "profileId": str(profile.pk),
        "platform": "instagram",
        "username": "acme_insta",
        "sandbox": True,
        "reconnected": False,
    }


def test_reconnecting_the_same_account_updates_the_profile_instead_of_duplicating(owner):
    first = profile_from(sandbox_consent(connect(owner, "tiktok")["authUrl"], username="acme_tok"))
    body = connect(owner, "tiktok", family="api")
    location = sandbox_consent(body["authUrl"], username="acme_tok")
    # Begun in Family B: the profile id comes back as a UUID.
    assert query_of(location)["profileId"] == str(first.pk)
    assert SocialProfile.objects.filter(organization=owner.org, platform="tiktok").count() == 1
    assert [
        e.data["reconnected"] for e in Event.objects.filter(type="profile.connected").order_by("created_at")
    ] == [
        False,
        True,
    ]
    other = profile_from(sandbox_consent(connect(owner, "tiktok")["authUrl"], username="someone_else"))
    assert other.pk != first.pk


def test_a_flow_begun_with_a_brand_puts_the_profile_in_that_brand(owner):
    brand = BrandFactory(organization=owner.org)
    profile = profile_from(sandbox_consent(connect(owner, "x", brandId=f"brd_{brand.pk.hex}")["authUrl"]))
    assert profile.brand_id == brand.pk


def test_denying_on_the_consent_page_redirects_with_access_denied(owner):
    location = sandbox_consent(connect(owner, "youtube")["authUrl"], action="deny")
    params = query_of(location)
    assert params["error"] == "access_denied" and params["error_description"]
    assert "profileId" not in params
    assert not SocialProfile.objects.exists()


def test_a_used_state_is_refused_and_so_is_its_consent_page(owner):
    body = connect(owner, "linkedin")
    sandbox_consent(body["authUrl"])
    assert Client().get(path_of(body["authUrl"])).status_code == 400
    # A replayed callback is not redirected anywhere: a 409 page (the family's JSON on request).
    again = Client().get("/oauth/linkedin/callback", {"code": "whatever", "state": body["state"]})
    assert again.status_code == 409 and b"already completed" in again.content
    assert "Location" not in again
    as_json = Client().get(
        "/oauth/linkedin/callback",
        {"code": "whatever", "state": body["state"]},
        HTTP_ACCEPT="application/json",
    )
    assert as_json.status_code == 409
    assert (
        as_json.json()["error"]["code"] == "CONFLICT"
        and as_json.json()["error"]["details"]["reason"] == "state_already_used"
    )
    assert SocialProfile.objects.count() == 1


def test_an_expired_state_is_refused_with_a_redirect_carrying_the_error(owner):
    body = connect(owner, "pinterest")
    browser = Client()
    page = browser.get(path_of(body["authUrl"]))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    decision = browser.post(
        path_of(body["authUrl"]),
        {"csrfmiddlewaretoken": token, "state": body["state"], "username": "a", "action": "authorize"},
    )
    OAuthState.objects.filter(state=body["state"]).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )
    callback = browser.get(path_of(decision["Location"]))
    assert callback.status_code == 302
    params = query_of(callback["Location"])
    assert params["error"] == "expired_state" and callback["Location"].startswith(
        "https://app.example.com/connected"
    )
    assert not SocialProfile.objects.exists()


def test_a_state_from_another_platform_is_refused(owner):
    body = connect(owner, "x")
    response = Client().get("/oauth/tiktok/callback", {"code": "c", "state": body["state"]})
    assert response.status_code == 400 and "Location" not in response
    assert b"another platform" in response.content
    # The attempt itself is still usable on its own platform.
    assert OAuthState.objects.get(state=body["state"]).used_at is None


def test_an_unknown_state_is_a_400_page_because_there_is_nowhere_to_redirect(db):
    for params in ({"code": "c", "state": "nope"}, {"code": "c"}):
        response = Client().get("/oauth/x/callback", params)
        assert response.status_code == 400
        assert b"unknown" in response.content


def test_a_sandbox_code_for_another_state_is_refused(owner):
    first, second = connect(owner, "threads"), connect(owner, "threads")
    location = sandbox_consent(first["authUrl"])  # completes the first one
    assert "profileId" in query_of(location)
    from apps.publishing import sandbox

    stolen = sandbox.issue_code(platform="threads", state=first["state"], username="mallory")
    response = Client().get("/oauth/threads/callback", {"code": stolen, "state": second["state"]})
    assert query_of(response["Location"])["error"] == "invalid_grant"
    assert SocialProfile.objects.count() == 1


# --- real flows against the fake provider --------------------------------------------------------------


def test_x_connects_with_pkce_and_stores_its_tokens_encrypted(owner, x_provider):
    body = connect(owner, "x")
    auth = urlsplit(body["authUrl"])
    assert f"{auth.scheme}://{auth.netloc}{auth.path}" == f"{x_provider.base_url}/i/oauth2/authorize"
    params = query_of(body["authUrl"])
    assert params["client_id"] == CLIENT_ID and params["state"] == body["state"]
    assert params["response_type"] == "code"
    assert params["redirect_uri"].endswith("/oauth/x/callback")
    assert set(params["scope"].split(" ")) >= {
        "tweet.read",
        "tweet.write",
        "users.read",
        "media.write",
        "offline.access",
    }
    stored = OAuthState.objects.get(state=body["state"])
    assert stored.sandbox is False and len(stored.code_verifier) >= 43
    expected = (
        base64.urlsafe_b64encode(hashlib.sha256(stored.code_verifier.encode()).digest()).decode().rstrip("=")
    )
    assert params["code_challenge"] == expected and params["code_challenge_method"] == "S256"

    callback = Client().get("/oauth/x/callback", x_provider.consent(body["authUrl"]))
    assert callback.status_code == 302
    profile = profile_from(callback["Location"])
    assert (profile.platform, profile.external_id, profile.username) == ("x", "2244994945", "acmedev")
    assert profile.display_name == "Acme Dev" and profile.follower_count == 4321 and profile.sandbox is False
    assert profile.picture_url == X_ACCOUNT["profile_image_url"]

    # The token request carried the verifier (the fake checked it against the challenge).
    exchange = x_provider.token_requests[-1]
    assert (
        exchange["grant_type"] == "authorization_code" and exchange["code_verifier"] == stored.code_verifier
    )
    assert "client_secret" not in exchange  # X authenticates the client with HTTP Basic

    access, refresh = crypto.decrypt(profile.access_token_enc), crypto.decrypt(profile.refresh_token_enc)
    assert access in x_provider.access_tokens and refresh in x_provider.refresh_tokens
    raw = (
        SocialProfile.objects.filter(pk=profile.pk).values_list("access_token_enc", "refresh_token_enc").get()
    )
    assert access not in raw[0] and refresh not in raw[1]
    assert raw[0].startswith("gAAAAA")  # a Fernet token
    assert profile.token_expires_at > timezone.now() + datetime.timedelta(minutes=110)
    assert "offline.access" in profile.token_scopes


def test_x_refuses_a_code_exchanged_with_the_wrong_pkce_verifier(owner, x_provider):
    body = connect(owner, "x")
    OAuthState.objects.filter(state=body["state"]).update(code_verifier="not-the-verifier-" + "a" * 40)
    callback = Client().get("/oauth/x/callback", x_provider.consent(body["authUrl"]))
    params = query_of(callback["Location"])
    assert params["error"] == "token_exchange_failed" and "code_verifier" in params["error_description"]
    assert not SocialProfile.objects.exists()


def test_x_refresh_rotates_and_a_revoked_grant_marks_the_profile(owner, x_provider):
    _body, location = provider_connect(owner, x_provider)
    profile = profile_from(location)
    old_refresh = crypto.decrypt(profile.refresh_token_enc)
    profile = oauth.profile_refresh_token(profile=profile)
    assert crypto.decrypt(profile.refresh_token_enc) != old_refresh
    assert crypto.decrypt(profile.refresh_token_enc) in x_provider.refresh_tokens
    assert x_provider.token_requests[-1]["grant_type"] == "refresh_token"

    x_provider.revoke_all()
    profile = oauth.profile_refresh_token(profile=profile)
    assert profile.token_status == "revoked"
    event = Event.objects.get(type="profile.token_expired")
    assert event.data["profileId"] == str(profile.pk) and event.data["status"] == "revoked"
    # Refreshing again changes nothing and does not repeat the event.
    oauth.profile_refresh_token(profile=profile)
    assert Event.objects.filter(type="profile.token_expired").count() == 1


def test_tiktok_connects_with_client_key_and_its_rotating_refresh_token_is_always_saved(
    owner, tiktok_provider
):
    body, location = provider_connect(owner, tiktok_provider)
    params = query_of(body["authUrl"])
    assert params["client_key"] == CLIENT_ID and "client_id" not in params
    assert params["scope"].split(",") >= ["user.info.basic"] and "video.publish" in params["scope"].split(",")
    assert "code_challenge" not in params  # TikTok web apps do not use PKCE
    profile = profile_from(location)
    assert (profile.external_id, profile.username, profile.follower_count) == (
        TIKTOK_ACCOUNT["open_id"],
        "acme.tok",
        987,
    )
    first_refresh = crypto.decrypt(profile.refresh_token_enc)

    profile = oauth.profile_refresh_token(profile=profile)
    second_refresh = crypto.decrypt(profile.refresh_token_enc)
    assert second_refresh != first_refresh
    assert first_refresh not in tiktok_provider.refresh_tokens  # rotated: the old one is dead
    assert second_refresh in tiktok_provider.refresh_tokens
    assert tiktok_provider.token_requests[-1]["client_key"] == CLIENT_ID
    assert crypto.decrypt(profile.access_token_enc) in tiktok_provider.access_tokens

    # A response without a refresh token never blanks the stored one.
    tiktok_provider.refresh_omits_new_token = True
    profile = oauth.profile_refresh_token(profile=profile)
    assert crypto.decrypt(profile.refresh_token_enc) == second_refresh
    assert profile.token_status == "valid"


def test_a_revoked_tiktok_refresh_marks_the_profile_and_emits_token_expired(owner, tiktok_provider):
    _body, location = provider_connect(owner, tiktok_provider)
    tiktok_provider.revoke_all()
    profile = oauth.profile_refresh_token(profile=profile_from(location))
    assert profile.token_status == "revoked"
    assert crypto.decrypt(profile.refresh_token_enc)  # kept for the record; the status says it is dead
    assert Event.objects.filter(type="profile.token_expired", data__profileId=str(profile.pk)).count() == 1


def test_the_beat_task_refreshes_only_tokens_that_are_due(owner, tiktok_provider):
    _body, location = provider_connect(owner, tiktok_provider)
    due = profile_from(location)
    now = timezone.now()
    SocialProfile.objects.filter(pk=due.pk).update(token_expires_at=now + datetime.timedelta(minutes=20))
    # not due: expires after TOKEN_REFRESH_AHEAD_SECONDS (30 min)
    later = ProfileFactory(
        organization=owner.org,
        platform="linkedin",
        sandbox=True,
        token_expires_at=now + datetime.timedelta(days=3),
    )
    insta_due = ProfileFactory(
        organization=owner.org,
        platform="instagram",
        sandbox=True,
        token_expires_at=now + datetime.timedelta(days=5),
    )
    insta_fresh = ProfileFactory(
        organization=owner.org,
        platform="instagram",
        sandbox=True,
        token_expires_at=now + datetime.timedelta(days=30),
    )
    before = crypto.decrypt(SocialProfile.objects.get(pk=due.pk).refresh_token_enc)
    stale = connect(owner, "x")["state"]
    OAuthState.objects.filter(state=stale).update(expires_at=now - datetime.timedelta(days=2))

    assert refresh_expiring_tokens.delay().get() == 2
    assert not OAuthState.objects.filter(state=stale).exists()

    due.refresh_from_db()
    assert crypto.decrypt(due.refresh_token_enc) != before
    assert due.token_expires_at > now + datetime.timedelta(hours=23)
    insta_due.refresh_from_db()
    assert insta_due.token_expires_at > now + datetime.timedelta(days=59)
    for untouched, expiry in ((later, 3), (insta_fresh, 30)):
        untouched.refresh_from_db()
        assert untouched.token_expires_at < now + datetime.timedelta(days=expiry, minutes=1)
        assert untouched.access_token_enc == ""


# --- key rotation ----------------------------------------------------------------------------------------


def test_rotate_token_keys_re_encrypts_every_token_with_the_newest_key(owner, settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.TOKEN_ENCRYPTION_KEYS = [old]
    profile = profile_from(sandbox_consent(connect(owner, "youtube")["authUrl"]))
    access, refresh = crypto.decrypt(profile.access_token_enc), crypto.decrypt(profile.refresh_token_enc)

    settings.TOKEN_ENCRYPTION_KEYS = [new, old]
    call_command("rotate_token_keys")

    settings.TOKEN_ENCRYPTION_KEYS = [new]  # the old key is gone
    profile.refresh_from_db()
    assert crypto.decrypt(profile.access_token_enc) == access
    assert crypto.decrypt(profile.refresh_token_enc) == refresh
    settings.TOKEN_ENCRYPTION_KEYS = [old]
    with pytest.raises(crypto.InvalidToken):
        crypto.decrypt(profile.access_token_enc)


def test_without_configured_keys_tokens_are_still_encrypted_with_a_key_derived_from_the_secret(settings):
    settings.TOKEN_ENCRYPTION_KEYS = []
    sealed = crypto.encrypt("very-secret-token")
    assert "very-secret-token" not in sealed and crypto.decrypt(sealed) == "very-secret-token"
    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789"
    with pytest.raises(crypto.InvalidToken):
        crypto.decrypt(sealed)
    assert "very-secret-token" not in repr(TokenSet(access_token="very-secret-token", refresh_token="r"))


# --- validation and permissions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"platform": "myspace", "redirectUri": REDIRECT}, "platform"),
        ({"platform": "x", "redirectUri": "ftp://app.example.com/cb"}, "redirectUri"),
        ({"platform": "x", "redirectUri": "javascript:alert(1)"}, "redirectUri"),
        ({"platform": "x", "redirectUri": "/relative/path"}, "redirectUri"),
        ({"platform": "x"}, "redirectUri"),
    ],
)
def test_connect_refuses_bad_input_with_a_validation_error(owner, payload, field):
    response = owner.client().post("/v1/profiles/connect", payload, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and field in error["details"]
    assert not OAuthState.objects.exists()


def test_family_b_refuses_an_unknown_platform_in_the_path(owner):
    response = owner.token_client().post(
        "/api/oauth/myspace/authorize", {"redirectUri": REDIRECT}, format="json"
    )
    assert response.status_code == 400
    assert "platform" in response.json()["details"]


def test_a_viewer_cannot_connect_a_profile(viewer):
    response = viewer.client().post(
        "/v1/profiles/connect", {"platform": "x", "redirectUri": REDIRECT}, format="json"
    )
    assert response.status_code == 403 and response.json()["error"]["code"] == "AUTHORIZATION_ERROR"


def test_another_organization_s_brand_is_refused(owner, outsider):
    theirs = BrandFactory(organization=outsider.org)
    for brand_id in (f"brd_{theirs.pk.hex}", str(theirs.pk), "not-an-id"):
        response = owner.client().post(
            "/v1/profiles/connect",
            {"platform": "x", "redirectUri": REDIRECT, "brandId": brand_id},
            format="json",
        )
        assert response.status_code == 400 and "brandId" in response.json()["error"]["details"]
    assert not OAuthState.objects.exists()


def test_the_platform_list_says_which_platforms_are_real(owner, x_provider):
    response = owner.token_client().get("/api/oauth/platforms")
    assert response.status_code == 200
    rows = {row["platform"]: row for row in response.json()["data"]}
    assert rows["x"]["mode"] == "real" and "offline.access" in rows["x"]["scopes"]
    assert rows["instagram"]["mode"] == "sandbox" and rows["bluesky"]["mode"] == "sandbox"
    assert response.json()["pagination"]["total"] == len(rows)
