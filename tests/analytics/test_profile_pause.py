"""Issue 22: a 429 on one profile's metrics pull pauses that profile, not every profile of the
platform; only a limit on the operator's whole app (Meta's #4 / X-App-Usage at 100 %, YouTube's
project quota, X's app-wide daily cap) pauses the platform."""

from __future__ import annotations

import datetime

import pytest
from django.core.cache import cache
from django.utils import timezone

from apps.analytics import services
from apps.analytics.models import PostSnapshot
from apps.brands.models import Brand
from apps.profiles.models import SocialProfile
from apps.publishing.crypto import encrypt
from apps.publishing.models import Publication
from apps.publishing.platforms.base import PlatformError
from tests.content.factories import make_content
from tests.factories import ProfileFactory
from tests.publishing.conftest import client_for, make_fake  # noqa: F401 (the fakes' fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_pauses():
    yield
    keys = [f"analytics:pause:profile:{pk}" for pk in SocialProfile.objects.values_list("pk", flat=True)]
    cache.delete_many([*keys, "analytics:pause:instagram"])


@pytest.fixture
def instagram(settings, owner, make_fake):  # noqa: F811
    fake = make_fake("instagram")
    settings.INSTAGRAM_CLIENT_ID, settings.INSTAGRAM_CLIENT_SECRET = "fake-client-id", "fake-secret"
    settings.OAUTH_ENDPOINT_OVERRIDES = {
        **settings.OAUTH_ENDPOINT_OVERRIDES,
        "instagram": {"api": fake.base_url},
    }
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    pubs = []
    for n in (1, 2):
        profile = ProfileFactory(
            organization=owner.org,
            brand=brand,
            platform="instagram",
            sandbox=False,
            external_id=f"1784140000000000{n}",
            username=f"brand_{n}",
            access_token_enc=encrypt(fake.issue(f"instagram-access-{n}")),
            token_status="valid",
            token_expires_at=timezone.now() + datetime.timedelta(days=30),
        )
        media_id = f"1790000000000000{n}"
        fake.objects[media_id] = {"id": media_id, "kind": "media"}
        fake.set_metrics(media_id, views=100 * n, likes=10 * n, comments=n, shares=n)
        content = make_content(
            owner.org, brand=brand, status="published", image=False, platforms=("instagram",)
        )
        published = timezone.now() - datetime.timedelta(hours=2)
        pubs.append(
            Publication.objects.create(
                organization=owner.org,
                content=content,
                profile=profile,
                platform="instagram",
                scheduled_for=published,
                due_at=published,
                status="published",
                published_at=published,
                external_id=media_id,
            )
        )
    return fake, pubs


def test_a_429_on_one_profile_pauses_that_profile_only(instagram):
    fake, (first, second) = instagram
    fake.fail_next("rate_limit", when="insights", retry_after=600)  # (#32) the Page/account limit
    with pytest.raises(services.Backoff) as backoff:
        services.collect_publication(first)
    assert backoff.value.retry_after >= 600
    assert services.collect_publication(first) is None  # this profile waits
    snapshot = services.collect_publication(second)  # the other profile goes on
    assert isinstance(snapshot, PostSnapshot) and snapshot.views == 200


def test_the_apps_own_limit_pauses_every_profile_of_the_platform(instagram):
    fake, (first, second) = instagram
    fake.fail_next("app_rate_limit", when="insights")  # (#4) Application request limit reached
    with pytest.raises(services.Backoff):
        services.collect_publication(first)
    calls = len(fake.calls("media_insights"))
    assert services.collect_publication(second) is None
    assert len(fake.calls("media_insights")) == calls  # not even asked


def app_wide(fake, kind, **options):
    client = client_for(fake)
    fake.fail_next(kind, **options)
    with pytest.raises(PlatformError) as refused:
        client.fetch_account()
    return refused.value.retryable, refused.value.app_wide


def test_each_platform_says_which_limits_are_the_apps(make_fake):  # noqa: F811
    youtube, x, instagram = make_fake("youtube"), make_fake("x"), make_fake("instagram")
    assert app_wide(youtube, "quota_exceeded") == (True, True)  # the Cloud project's daily quota
    assert app_wide(youtube, "rate_limit") == (True, False)
    assert app_wide(x, "rate_limit") == (True, False)  # the user's 15-minute window
    assert app_wide(x, "rate_limit", app_wide=True) == (True, True)  # the app's 24-hour cap
    assert app_wide(instagram, "rate_limit") == (True, False)  # (#32) business use case
    assert app_wide(instagram, "app_rate_limit") == (True, True)  # (#4)
