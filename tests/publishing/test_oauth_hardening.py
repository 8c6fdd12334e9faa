"""Issue 9: OAuth connect is no open redirector and a connect attempt lives no longer than the
credential that began it.

- redirectUri: https on an allowed origin (OAUTH_ALLOWED_REDIRECT_ORIGINS, PUBLIC_BASE_URL,
  the organization's own origins managed through both families and the admin); http only for
  loopback in development; anything else a 400 in the family's format, no attempt recorded.
- the callback: a replayed, cross-platform or tampered state, an origin removed meanwhile, a
  revoked key, an expired token or a demoted user is a 4xx that redirects nowhere and
  exchanges no code (the fake provider sees no token request).
- PKCE (S256) on every platform whose web login supports it (platforms.yaml).

Real flows run against the local fake providers of tests/publishing/oauth_fakes.py.
"""

from __future__ import annotations

import copy
import re
import time

import jwt
import pytest
from django.test import Client
from social_core.backends.oauth import BaseOAuth2PKCE

from apps.accounts.auth import dev_token_issue
from apps.accounts.models import Membership
from apps.accounts.services import api_key_create, api_key_revoke
from apps.platforms.rules import load_platforms_yaml
from apps.profiles.models import SocialProfile
from apps.publishing.models import OAuthRedirectOrigin, OAuthState
from apps.publishing.oauth_backends import BACKENDS, SANDBOX_ONLY
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_oauth import REDIRECT, connect, path_of, query_of, sandbox_consent

pytestmark = pytest.mark.django_db


def v1_connect(persona, redirect: str, platform: str = "x"):
    return persona.client().post(
        "/v1/profiles/connect", {"platform": platform, "redirectUri": redirect}, format="json"
    )


def api_connect(client, redirect: str, platform: str = "x"):
    return client.post(f"/api/oauth/{platform}/authorize", {"redirectUri": redirect}, format="json")


@pytest.fixture
def youtube(settings):
    fake = FakeProvider("youtube", copy.deepcopy(ACCOUNTS["youtube"]))
    settings.YOUTUBE_CLIENT_ID, settings.YOUTUBE_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "youtube": fake.overrides()}
    yield fake
    fake.close()


@pytest.fixture
def x_fake(settings):
    fake = FakeProvider("x", copy.deepcopy(ACCOUNTS["x"]))
    settings.X_CLIENT_ID, settings.X_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "x": fake.overrides()}
    yield fake
    fake.close()


# --- the redirect URI -------------------------------------------------------------------------


REFUSED = [
    ("http://app.example.com/connected", "https"),  # allowed origin, but not over TLS
    ("https://evil.example.net/steal", "not an allowed redirect origin"),
    ("https://app.example.com.evil.net/connected", "not an allowed redirect origin"),
    (
        "https://app.example.com:8443/connected",
        "not an allowed redirect origin",
    ),  # another origin: another port
    ("https://user:pw@app.example.com/connected", "credentials"),
    ("https://app.example.com/connected#token", "fragment"),
    ("http://localhost:3000/callback", "https"),  # loopback http: development only
    ("https://app.example.com:99999/connected", "absolute http(s) URL"),
    ("https://app example.com/connected", "absolute http(s) URL"),
    ("https://app..example.com/connected", "absolute http(s) URL"),
]


@pytest.mark.parametrize("redirect, reason", REFUSED)
def test_connect_refuses_a_redirect_uri_that_is_not_https_on_an_allowed_origin(
    owner, settings, redirect, reason
):
    assert settings.OAUTH_ALLOWED_REDIRECT_ORIGINS == ["https://app.example.com"]  # the test run's deployment
    # a deployment (the embedded default, a development run, takes loopback http)
    settings.DEBUG, settings.DEVELOPMENT = False, False
    a = v1_connect(owner, redirect)
    assert a.status_code == 400, a.content
    error = a.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and reason in error["message"]
    assert reason in error["details"]["redirectUri"][0]
    b = api_connect(owner.token_client(), redirect, platform="tiktok")
    assert b.status_code == 400
    assert reason in b.json()["error"] and b.json()["details"]["redirectUri"]
    assert not OAuthState.objects.exists()
    # the allowed origin itself, on https, is accepted
    assert v1_connect(owner, REDIRECT).status_code == 200


def test_loopback_http_is_accepted_only_in_development(owner, settings):
    settings.DEVELOPMENT = True
    for redirect in (
        "http://localhost:3000/callback",
        "http://127.0.0.1:5173/cb?x=1",
        "http://[::1]:8080/cb",
    ):
        response = v1_connect(owner, redirect)
        assert response.status_code == 200, (redirect, response.content)
    # development does not open other hosts or plain http elsewhere
    assert v1_connect(owner, "http://app.example.com/connected").status_code == 400
    assert v1_connect(owner, "https://evil.example.net/").status_code == 400
    settings.DEVELOPMENT = settings.DEBUG = False
    assert v1_connect(owner, "http://localhost:3000/callback").status_code == 400


def test_the_public_base_url_is_always_an_allowed_origin(owner, settings):
    settings.PUBLIC_BASE_URL = "https://posts.example.com"
    assert v1_connect(owner, "https://posts.example.com/done").status_code == 200


def test_an_organization_manages_its_own_redirect_origins_in_both_families(owner, editor, outsider):
    studio = "https://studio.example.org/oauth/done"
    assert v1_connect(owner, studio).status_code == 400

    added = owner.client().post(
        "/v1/oauth/redirect-origins", {"origin": "HTTPS://Studio.Example.org:443/"}, format="json"
    )
    assert added.status_code == 201, added.content
    body = added.json()
    assert (
        body["origin"] == "https://studio.example.org" and body["id"].startswith("rdo_") and body["createdAt"]
    )
    again = owner.client().post(
        "/v1/oauth/redirect-origins", {"origin": "https://studio.example.org"}, format="json"
    )
    assert again.status_code == 201 and again.json()["id"] == body["id"]  # adding it twice keeps one
    assert v1_connect(owner, studio).status_code == 200
    assert api_connect(owner.token_client(), studio).status_code == 200

    # one organization's origin is not another's
    refused = v1_connect(outsider, studio)
    assert (
        refused.status_code == 400 and "not an allowed redirect origin" in refused.json()["error"]["message"]
    )

    listed = owner.token_client().get("/api/oauth/redirect-origins")
    assert listed.status_code == 200
    assert [row["origin"] for row in listed.json()["data"]] == ["https://studio.example.org"]
    assert listed.json()["pagination"]["total"] == 1
    assert listed.json()["data"][0]["id"].replace("-", "") == body["id"].removeprefix(
        "rdo_"
    )  # a UUID in Family B
    assert outsider.client().get("/v1/oauth/redirect-origins").json()["data"] == []

    # admin-only writes; an editor reads
    denied = editor.client().post(
        "/v1/oauth/redirect-origins", {"origin": "https://x.example.org"}, format="json"
    )
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "AUTHORIZATION_ERROR"
    assert editor.client().get("/v1/oauth/redirect-origins").status_code == 200

    idn = owner.client().post("/v1/oauth/redirect-origins", {"origin": "https://пример.рф"}, format="json")
    assert (
        idn.status_code == 201 and idn.json()["origin"] == "https://xn--e1afmkfd.xn--p1ai"
    )  # as browsers send it
    for bad in (
        "http://studio.example.org",
        "https://studio.example.org/path",
        "ftp://x.example.org",
        "studio.example.org",
        "https://u:p@x.example.org",
        "https://stu dio.example.org",
        "https://-x.example.org",
    ):
        response = owner.token_client().post("/api/oauth/redirect-origins", {"origin": bad}, format="json")
        assert response.status_code == 400 and "origin" in response.json()["details"], bad

    # another organization cannot delete it (404), its owner can
    assert outsider.client().delete(f"/v1/oauth/redirect-origins/{body['id']}").status_code == 404
    assert owner.client().delete(f"/v1/oauth/redirect-origins/{body['id']}").status_code == 204
    assert list(OAuthRedirectOrigin.objects.values_list("origin", flat=True)) == [
        "https://xn--e1afmkfd.xn--p1ai"
    ]
    assert v1_connect(owner, studio).status_code == 400


def test_the_admin_adds_an_origin_normalized(owner, admin_client):
    page = admin_client.post(
        "/admin/publishing/oauthredirectorigin/add/",
        {"organization": str(owner.org.pk), "origin": "https://Desk.Example.com:443"},
    )
    assert page.status_code == 302, page.content[:500]
    assert OAuthRedirectOrigin.objects.get(organization=owner.org).origin == "https://desk.example.com"
    refused = admin_client.post(
        "/admin/publishing/oauthredirectorigin/add/",
        {"organization": str(owner.org.pk), "origin": "http://desk.example.com"},
    )
    assert refused.status_code == 200 and b"https" in refused.content
    assert OAuthRedirectOrigin.objects.count() == 1


def test_the_callback_does_not_redirect_to_an_origin_removed_meanwhile(owner):
    row = OAuthRedirectOrigin.objects.create(organization=owner.org, origin="https://studio.example.org")
    body = connect(owner, "instagram", redirect="https://studio.example.org/done")
    browser = Client()
    html = browser.get(path_of(body["authUrl"])).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    decision = browser.post(
        path_of(body["authUrl"]),
        {"csrfmiddlewaretoken": token, "state": body["state"], "username": "acme", "action": "authorize"},
    )
    row.delete()
    callback = browser.get(path_of(decision["Location"]))
    assert callback.status_code == 400 and "Location" not in callback
    assert b"no longer allowed" in callback.content
    assert not SocialProfile.objects.exists()


# --- the callback re-checks the credential ------------------------------------------------------


def test_a_flow_begun_with_a_key_revoked_meanwhile_does_not_complete(owner, x_fake):
    issued = api_key_create(organization=owner.org, role="admin")
    client = Client()
    body = client.post(
        "/v1/profiles/connect",
        {"platform": "x", "redirectUri": REDIRECT},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {issued.secret}",
    ).json()
    params = x_fake.consent(body["authUrl"])
    api_key_revoke(api_key=issued.api_key)

    refused = Client().get("/oauth/x/callback", params)
    assert refused.status_code == 403 and "Location" not in refused
    assert b"revoked" in refused.content and refused["Cache-Control"] == "no-store"
    assert x_fake.token_requests == []  # the code was never exchanged
    assert not SocialProfile.objects.exists()
    # the attempt is spent: the same callback again is a replay
    replay = Client().get("/oauth/x/callback", params, HTTP_ACCEPT="application/json")
    assert replay.status_code == 409 and replay.json()["error"]["code"] == "CONFLICT"


def test_a_revoked_key_is_refused_in_the_family_format_on_request(owner):
    issued = api_key_create(organization=owner.org, role="admin")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {issued.secret}")
    body = client.post(
        "/v1/profiles/connect",
        {"platform": "linkedin", "redirectUri": REDIRECT},
        content_type="application/json",
    ).json()
    from apps.publishing import sandbox

    code = sandbox.issue_code(platform="linkedin", state=body["state"], username="acme")
    api_key_revoke(api_key=issued.api_key)
    refused = Client().get(
        "/oauth/linkedin/callback", {"code": code, "state": body["state"]}, HTTP_ACCEPT="application/json"
    )
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "AUTHORIZATION_ERROR" and error["details"]["reason"] == "credential_revoked"
    assert "revoked" in error["message"] and refused.json()["requestId"]
    assert not SocialProfile.objects.exists()


def test_a_flow_begun_with_a_jwt_that_expired_meanwhile_does_not_complete(owner):
    token = dev_token_issue(organization=owner.org, role="admin", subject="short-admin", ttl=3)
    exp = jwt.decode(token, options={"verify_signature": False})["exp"]
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    begun = client.post(
        "/api/oauth/threads/authorize", {"redirectUri": REDIRECT}, content_type="application/json"
    )
    assert begun.status_code == 200, begun.content
    state = begun.json()["data"]["state"]
    assert OAuthState.objects.get(state=state).credential_expires_at.timestamp() == exp
    from apps.publishing import sandbox

    code = sandbox.issue_code(platform="threads", state=state, username="acme")
    time.sleep(max(0.0, exp - time.time()) + 0.2)
    refused = Client().get(
        "/oauth/threads/callback", {"code": code, "state": state}, HTTP_ACCEPT="application/json"
    )
    assert refused.status_code == 403
    assert refused.json() == {
        "error": "The token that started this connection expired; start again with a fresh one.",
        "details": {"code": "credential_expired"},
    }
    assert not SocialProfile.objects.exists()


def test_a_jwt_user_demoted_meanwhile_cannot_finish(owner):
    token = dev_token_issue(organization=owner.org, role="admin", subject="soon-editor", ttl=600)
    begun = Client(HTTP_AUTHORIZATION=f"Bearer {token}").post(
        "/api/oauth/pinterest/authorize", {"redirectUri": REDIRECT}, content_type="application/json"
    )
    assert begun.status_code == 200, begun.content
    Membership.objects.filter(organization=owner.org, user__username__contains="soon-editor").update(
        role="editor"
    )
    assert Membership.objects.filter(organization=owner.org, role="editor").exists()
    from apps.publishing import sandbox

    state = begun.json()["data"]["state"]
    code = sandbox.issue_code(platform="pinterest", state=state, username="acme")
    refused = Client().get("/oauth/pinterest/callback", {"code": code, "state": state})
    assert refused.status_code == 403 and b"no longer connect" in refused.content
    assert not SocialProfile.objects.exists()


def test_a_state_is_bound_to_the_organization_of_the_credential_that_began_it(owner, outsider):
    body = connect(owner, "youtube")
    theirs = api_key_create(organization=outsider.org, role="owner")
    # a row pointing at another organization's key (tampering, or a bug) never completes
    OAuthState.objects.filter(state=body["state"]).update(credential_id=f"key:{theirs.api_key.pk}")
    from apps.publishing import sandbox

    code = sandbox.issue_code(platform="youtube", state=body["state"], username="acme")
    refused = Client().get("/oauth/youtube/callback", {"code": code, "state": body["state"]})
    assert refused.status_code == 403
    assert not SocialProfile.objects.exists()


def test_a_valid_credential_still_completes(owner):
    """The checks above refuse only what they should: the owner's own key, unrevoked, connects."""
    location = sandbox_consent(connect(owner, "facebook")["authUrl"])
    assert query_of(location)["profileId"].startswith("prf_")


# --- PKCE ---------------------------------------------------------------------------------------


def _pkce_supported(value) -> bool:
    """platforms.yaml's `pkce` for a web-server client: 'required ...' or 'supported ...', unless
    only mobile and desktop apps take it (TikTok: 'not required for web apps', and its desktop
    challenge is hex, not S256's base64url)."""
    text = value if isinstance(value, str) else ""
    return text.startswith(("required", "supported")) and "mobile and desktop" not in text


def test_pkce_is_used_on_every_platform_whose_web_login_supports_it():
    platforms = load_platforms_yaml()["platforms"]
    expected = {}
    for name, cls in BACKENDS.items():
        oauth_block = platforms[name]["oauth"]
        pkce = oauth_block.get("pkce", oauth_block.get("instagram_login", {}).get("pkce"))
        if isinstance(pkce, dict):
            pkce = pkce.get("value")
        expected[name] = _pkce_supported(pkce)
        assert cls.uses_pkce is expected[name], (name, pkce)
        assert issubclass(cls, BaseOAuth2PKCE) is expected[name], name
    assert {name for name, used in expected.items() if used} == {"x", "youtube"}
    assert "bluesky" in SANDBOX_ONLY  # PKCE + PAR + DPoP there: sandbox only


def test_youtube_connects_with_pkce_and_a_wrong_verifier_is_refused(owner, youtube):
    body = connect(owner, "youtube")
    params = query_of(body["authUrl"])
    assert params["code_challenge_method"] == "S256" and params["code_challenge"]
    OAuthState.objects.filter(state=body["state"]).update(code_verifier="x" * 64)
    refused = Client().get("/oauth/youtube/callback", youtube.consent(body["authUrl"]))
    assert refused.status_code == 302
    assert query_of(refused["Location"])["error"] == "token_exchange_failed"
    assert youtube.token_requests[-1]["code_verifier"] == "x" * 64
    assert not SocialProfile.objects.exists()

    body = connect(owner, "youtube")
    done = Client().get("/oauth/youtube/callback", youtube.consent(body["authUrl"]))
    assert done.status_code == 302 and query_of(done["Location"])["profileId"].startswith("prf_")
    assert (
        youtube.token_requests[-1]["code_verifier"]
        == OAuthState.objects.get(state=body["state"]).code_verifier
    )
