"""Issue 28: the Facebook connect keeps the long-lived User access token (encrypted, with its
expiry) besides the Page token: Meta's Resumable Upload API starts a Page video's upload
session with it (https://developers.facebook.com/docs/video-api/guides/publishing)."""

from __future__ import annotations

import copy

import pytest

from apps.publishing import crypto
from apps.publishing.platforms.facebook import FacebookClient
from apps.publishing.services.clients import client_for
from tests.publishing.oauth_fakes import FakeProvider
from tests.publishing.test_oauth_platforms import (
    ACCOUNTS,
    CLIENT_ID,
    CLIENT_SECRET,
    callback_url,
    provider_connect,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_connect_keeps_the_user_token_and_the_client_starts_uploads_with_it(owner, settings):
    fake = FakeProvider(
        "facebook", copy.deepcopy(ACCOUNTS["facebook"]), redirect_uri=callback_url("facebook")
    )
    settings.FACEBOOK_CLIENT_ID, settings.FACEBOOK_CLIENT_SECRET = CLIENT_ID, CLIENT_SECRET
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, "facebook": fake.overrides()}
    try:
        profile = provider_connect(owner, fake)
    finally:
        fake.close()
    page_token, user_token = crypto.decrypt(profile.access_token_enc), crypto.decrypt(profile.secret_enc)
    assert user_token and user_token != page_token
    assert fake.issued[user_token].kind == "user" and fake.issued[page_token].kind != "user"
    assert profile.platform_data["userTokenExpiresAt"]  # the 60-day token's end, said
    client = client_for(profile)
    assert (client.access_token, client.user_token) == (page_token, user_token)
    # without overrides the upload is published on Meta's video host
    assert FacebookClient(access_token="t").video_base_url == "https://graph-video.facebook.com/v25.0"
