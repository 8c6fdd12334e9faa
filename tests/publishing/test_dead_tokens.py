"""Issue 22: a token the platform killed is reported, never retried in silence.

A Facebook Page token cannot be refreshed; Instagram's and Threads' long-lived tokens refresh
themselves only while they live. When the user removes the app or changes their password, the
Graph API answers code 190 (subcodes 458, 460, 463, 467). Before, the "refresh" of a Page token
reported success, the post was tried six times, the profile stayed `valid`, nothing was said and
new schedules were accepted. Now the first refusal that a refresh cannot cure marks the profile
expired with the platform's reason, fails the post at once, emits `profile.token_expired` (the
webhook), shows in /api/monitoring/errors and the admin, and refuses new schedules with the
reason. The profiles connect through the OAuth fakes; the publishing fakes accept only the
tokens those issued (as in test_long_run).
"""

from __future__ import annotations

import copy

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.core import ids
from apps.core.errors import RuleViolation
from apps.events.models import Event
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.oauth_backends import callback_url
from tests.publishing.fakes import FAKES
from tests.publishing.oauth_fakes import ACCOUNTS, CLIENT_ID, CLIENT_SECRET, FakeProvider
from tests.publishing.test_oauth_platforms import provider_connect
from tests.publishing.test_processing_and_unknown import run_due

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def connected(request, owner, settings):
    """A profile connected through the platform's OAuth fake, publishing to its API fake."""
    platform = request.param
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # Instagram and Threads pull media from https
    provider = FakeProvider(platform, copy.deepcopy(ACCOUNTS[platform]), redirect_uri=callback_url(platform))
    setattr(settings, f"{platform.upper()}_CLIENT_ID", CLIENT_ID)
    setattr(settings, f"{platform.upper()}_CLIENT_SECRET", CLIENT_SECRET)
    settings.OAUTH_ENDPOINT_OVERRIDES = {**settings.OAUTH_ENDPOINT_OVERRIDES, platform: provider.overrides()}
    profile = provider_connect(owner, provider)
    fake = FAKES[platform]()
    fake.token_source = provider
    fake.account.external_id = profile.external_id
    fake.processing_polls = 0
    settings.OAUTH_ENDPOINT_OVERRIDES = {
        **settings.OAUTH_ENDPOINT_OVERRIDES,
        platform: {**provider.overrides(), "api": fake.base_url},
    }
    yield provider, fake, profile
    fake.close()
    provider.close()


def generated(owner, platform):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=[platform], brand=brand, media_type="image"
        ),
    )
    content.refresh_from_db()
    assert content.status == "review", content.status_reason
    return content


def schedule(owner, profile):
    import datetime

    from django.utils import timezone

    content = generated(owner, profile.platform)
    services.publications_schedule(
        content=content, profiles=[profile], scheduled_for=timezone.now() + datetime.timedelta(minutes=30)
    )
    return Publication.objects.get(content=content)


@pytest.mark.parametrize("connected", ["facebook", "instagram", "threads"], indirect=True)
def test_a_dead_meta_token_marks_the_profile_expired_and_is_reported_everywhere(owner, connected):
    provider, fake, profile = connected
    fake.dead_token_subcode = 460  # the user changed their Facebook password
    pub = schedule(owner, profile)
    provider.revoke_all()

    pub = run_due(pub)
    assert pub.status == "failed" and pub.attempts == 1  # not tried six times
    assert str(pub.error_code) == "190"
    assert not fake.posts

    profile.refresh_from_db()
    assert profile.token_status in ("expired", "revoked") and profile.connected
    assert profile.token_error
    if profile.platform == "facebook":  # nothing could refresh it: the publish path's own reason
        assert profile.token_status == "expired"
        assert profile.token_error.startswith("Facebook refused the token (190/460: Error validating access")
        assert profile.token_error.endswith("cannot be refreshed: reconnect the profile.")
    assert pub.last_error.startswith(profile.token_error) or profile.token_error in pub.last_error

    events = Event.objects.filter(type="profile.token_expired", data__profileId=str(profile.pk))
    assert events.count() == 1  # once (the webhook goes out from this event)
    assert events.get().data["reason"] == profile.token_error[:500]

    errors = owner.token_client().get("/api/monitoring/errors?kind=token_refresh").json()["data"]["errors"]
    assert [(e["platform"], e["message"]) for e in errors] == [(profile.platform, profile.token_error)]

    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "s3cret-pass")
    browser = Client()
    browser.force_login(staff)
    page = browser.get("/admin/profiles/socialprofile/").content.decode()
    assert f"TOKEN {profile.token_status.upper()}" in page

    with pytest.raises(RuleViolation) as refused:
        schedule(owner, profile)
    assert profile.token_error in str(refused.value)
    content = generated(owner, profile.platform)
    answer = owner.client().post(
        f"/v1/content/{ids.render(content.pk, 'content')}/schedule",
        {"scheduledFor": "2030-01-01T09:00:00Z", "profiles": [ids.render(profile.pk, "profile")]},
        format="json",
    )
    assert answer.status_code == 400
    assert profile.token_error in answer.json()["error"]["message"]
