"""Issue 22: Meta's (#368) "temporarily blocked" is tried again after a long wait; (#506)
"duplicate post" is said plainly and never tried again (Graph API error-handling guide)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.publishing.platforms.base import PlatformError
from apps.publishing.platforms.meta import GRAPH_BLOCKED_RETRY_SECONDS
from tests.publishing.conftest import client_for
from tests.publishing.test_facebook_video import FACEBOOK_SCOPES
from tests.publishing.test_processing_and_unknown import real_profile, run_due, scheduled

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def facebook(settings, owner, make_fake):
    fake = make_fake("facebook")
    settings.PUBLIC_BASE_URL = "https://postforge.test"
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    return fake, brand, real_profile(settings, owner, brand, fake, scopes=FACEBOOK_SCOPES)


@pytest.mark.parametrize("platform", ["facebook", "instagram", "threads"])
def test_each_graph_client_reads_368_as_wait_long_and_506_as_a_duplicate(make_fake, platform):
    fake = make_fake(platform)
    client = client_for(fake)
    fake.fail_next("blocked")
    with pytest.raises(PlatformError) as blocked:
        client.fetch_account()
    assert blocked.value.retryable and blocked.value.retry_after == GRAPH_BLOCKED_RETRY_SECONDS
    assert "temporarily blocked" in blocked.value.message
    fake.fail_next("duplicate")
    with pytest.raises(PlatformError) as duplicate:
        client.fetch_account()
    assert not duplicate.value.retryable and duplicate.value.retry_after is None
    assert "identical to the one just before it" in duplicate.value.message


def test_a_blocked_publication_waits_hours_and_a_duplicate_fails_with_the_reason(owner, facebook):
    fake, brand, profile = facebook
    pub = scheduled(owner, brand, profile, "facebook")
    fake.fail_next("blocked")
    before = timezone.now()
    pub = run_due(pub)
    assert pub.status == "scheduled" and pub.error_code == "368" and not fake.posts
    assert pub.due_at >= before + datetime.timedelta(seconds=GRAPH_BLOCKED_RETRY_SECONDS)
    assert "temporarily blocked" in pub.last_error

    fake.fail_next("duplicate")
    pub = run_due(pub)
    assert pub.status == "failed" and pub.error_code == "506" and pub.attempts == 2
    assert "change the text to post it again" in pub.last_error and not fake.posts
