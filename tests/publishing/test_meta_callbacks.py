"""Issue 22: Meta's deauthorize and data-deletion callbacks find the profiles they are about.

A Facebook profile is keyed by its Page id, but Meta's callback names the USER's app-scoped id:
it is read at connect (``GET /me``) and kept. Each Meta product is its own app: Facebook Login,
Instagram API with Instagram Login and Threads sign their callbacks with their own app secret,
so each has its own endpoint, verified with that secret (a callback signed with another
product's secret is refused). The data-deletion status page says what was deleted.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json

import pytest
from django.test import Client

from apps.profiles.models import SocialProfile
from apps.publishing.oauth_backends import callback_url
from tests.factories import ProfileFactory
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_oauth_platforms import provider_connect

pytestmark = pytest.mark.django_db

SECRETS = {
    "facebook": "facebook-app-secret",
    "instagram": "instagram-app-secret",
    "threads": "threads-app-secret",
}


def signed_request(payload: dict, secret: str) -> str:
    enc = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
    sig = hmac.new(secret.encode(), enc.encode(), hashlib.sha256).digest()
    return f"{base64.urlsafe_b64encode(sig).decode().rstrip('=')}.{enc}"


def call(path: str, user_id: str, secret: str, issued_at: int = 1_800_000_000):
    body = {"algorithm": "HMAC-SHA256", "user_id": user_id, "issued_at": issued_at}
    return Client().post(path, {"signed_request": signed_request(body, secret)})


@pytest.fixture
def facebook(owner, settings):
    provider = FakeProvider(
        "facebook", copy.deepcopy(ACCOUNTS["facebook"]), redirect_uri=callback_url("facebook")
    )
    settings.FACEBOOK_CLIENT_ID, settings.FACEBOOK_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.META_APP_SECRET = SECRETS["facebook"]
    settings.OAUTH_ENDPOINT_OVERRIDES = {
        **settings.OAUTH_ENDPOINT_OVERRIDES,
        "facebook": provider.overrides(),
    }
    yield provider_connect(owner, provider)
    provider.close()


def test_a_facebook_deletion_callback_matches_the_page_by_the_users_app_scoped_id(facebook):
    user_id = ACCOUNTS["facebook"]["user"]["id"]
    assert facebook.platform_user_id == user_id and facebook.external_id != user_id  # kept at connect

    refused = call("/webhook/meta/facebook/data-deletion", user_id, SECRETS["instagram"])
    assert refused.status_code == 401  # another product's secret

    answer = call("/webhook/meta/facebook/data-deletion", user_id, SECRETS["facebook"])
    assert answer.status_code == 200
    facebook.refresh_from_db()
    assert not facebook.connected and facebook.access_token_enc == "" and facebook.token_status == "revoked"
    page = Client().get(f"/webhook/meta/deletion/{answer.json()['confirmation_code']}").content.decode()
    assert "1 connected profile(s) were disconnected" in page
    assert f"facebook profile {facebook.username}: disconnected; its access token, refresh token" in page


def test_the_legacy_facebook_endpoints_match_by_the_app_scoped_id_too(facebook):
    user_id = ACCOUNTS["facebook"]["user"]["id"]
    answer = call("/webhook/meta/deauthorize", user_id, SECRETS["facebook"])
    assert answer.status_code == 200 and answer.json() == {"status": "accepted"}
    assert not SocialProfile.objects.get(pk=facebook.pk).connected


@pytest.mark.parametrize("product", ["instagram", "threads"])
def test_instagram_and_threads_callbacks_are_verified_with_their_own_app_secret(owner, settings, product):
    settings.META_APP_SECRET = SECRETS["facebook"]
    setattr(settings, f"{product.upper()}_CLIENT_SECRET", SECRETS[product])
    profile = ProfileFactory(
        organization=owner.org, platform=product, external_id="17841400000000001", access_token_enc="tok"
    )
    with_facebook_secret = call(
        f"/webhook/meta/{product}/deauthorize", profile.external_id, SECRETS["facebook"]
    )
    assert with_facebook_secret.status_code == 401
    assert SocialProfile.objects.get(pk=profile.pk).connected

    answer = call(f"/webhook/meta/{product}/data-deletion", profile.external_id, SECRETS[product])
    assert answer.status_code == 200
    profile.refresh_from_db()
    assert not profile.connected and profile.access_token_enc == ""
    page = Client().get(f"/webhook/meta/deletion/{answer.json()['confirmation_code']}").content.decode()
    assert f"{product} profile {profile.username}: disconnected" in page


def test_an_unknown_product_or_an_unconfigured_one_is_refused(owner, settings):
    assert call("/webhook/meta/whatsapp/deauthorize", "1", "x").status_code == 404
    settings.THREADS_CLIENT_SECRET = ""
    assert call("/webhook/meta/threads/deauthorize", "1", "x").status_code == 503
