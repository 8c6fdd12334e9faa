"""A publication refused for a permission the grant lacks fails with the reconnect message and
leaves the profile connected (the real clients against the X and Pinterest fakes; issue 14)."""

from __future__ import annotations

import pytest

from apps.events.models import Event
from tests.publishing.test_processing_and_unknown import brand, real_profile, run_due, scheduled  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_x_grant_without_media_write_fails_the_post_not_the_profile(settings, owner, brand, make_fake):  # noqa: F811
    fake = make_fake("x")
    profile = real_profile(
        settings, owner, brand, fake, scopes="tweet.read tweet.write users.read offline.access"
    )
    pub = run_due(scheduled(owner, brand, profile, "x"))
    assert pub.status == "failed" and pub.error_code == "about:blank"
    assert pub.last_error == (
        "Forbidden (about:blank: the profile's grant lacks a permission this feature needs; "
        "reconnect the profile and grant it)"
    )
    assert pub.attempts == 1  # not retried: the same grant would be refused again
    profile.refresh_from_db()
    assert profile.token_status == "valid" and profile.connected  # nothing expired
    assert not Event.objects.filter(type="profile.token_expired").exists()
    assert not fake.posts
