"""Issue 22: app-review gates surfaced before a customer schedules.

Until Google audits the project, YouTube locks every upload private; until TikTok audits the
app, it posts SELF_ONLY; a Pinterest Trial app writes to the sandbox host; X's Free tier reads no
posts back. Settings say where the operator's apps stand; connect says it (the redirect's
`notice`), each profile lists what it can do (`capabilities`, both families), and a public or
unlisted post the platform would lock private is refused with the reason before scheduling.
Pinterest's code 29 is explained as the app's configuration, with the fix.
"""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.core import ids
from apps.core.errors import RuleViolation
from apps.publishing import services
from apps.publishing.oauth import connect_notice
from apps.publishing.platforms.base import PlatformError, PostRequest
from tests.factories import ProfileFactory
from tests.publishing.conftest import client_for as fake_client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def unaudited(settings):
    settings.YOUTUBE_PROJECT_AUDITED = False
    settings.TIKTOK_APP_AUDITED = False
    settings.PINTEREST_STANDARD_ACCESS = False
    settings.X_API_TIER = "free"
    return settings


def generated(owner, brand, platforms):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch",
            platforms=list(platforms),
            brand=brand,
            media_type="video" if "youtube" in platforms or "tiktok" in platforms else "image",
        ),
    )
    content.refresh_from_db()
    assert content.status == "review", content.status_reason
    return content


def real(owner, platform, visibility="public"):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    return ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform=platform,
        sandbox=False,
        settings={"defaultVisibility": visibility, "timezone": "UTC"},
    )


# TikTok's gate reads each post's own privacy level (tests/publishing/test_tiktok_choices.py)
@pytest.mark.parametrize(("platform", "visibility"), [("youtube", "public"), ("youtube", "unlisted")])
def test_a_post_the_platform_would_lock_private_is_refused_before_scheduling(
    owner, unaudited, platform, visibility
):
    profile = real(owner, platform, visibility)
    content = generated(owner, profile.brand, platforms=(platform,))
    when = timezone.now() + datetime.timedelta(hours=1)
    with pytest.raises(RuleViolation) as refused:
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=when)
    assert f"A {visibility} {platform} post is not possible yet" in str(refused.value)
    assert "defaultVisibility to private" in str(refused.value)

    profile.settings = {**profile.settings, "defaultVisibility": "private"}
    profile.save()
    assert (
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=when).status
        == "scheduled"
    )


def test_once_audited_public_posts_are_accepted(owner, unaudited):
    unaudited.YOUTUBE_PROJECT_AUDITED = True
    profile = real(owner, "youtube")
    content = generated(owner, profile.brand, platforms=("youtube",))
    when = timezone.now() + datetime.timedelta(hours=1)
    assert (
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=when).status
        == "scheduled"
    )


def test_connect_notices_and_each_profiles_capabilities_in_both_families(owner, unaudited):
    youtube, x = real(owner, "youtube"), real(owner, "x")
    assert "YouTube locks every upload private" in connect_notice(youtube)
    assert "Free tier" in connect_notice(x)
    assert "Trial access" in connect_notice(real(owner, "pinterest"))
    assert connect_notice(real(owner, "instagram")) is None

    v1 = owner.client().get(f"/v1/profiles/{ids.render(youtube.pk, 'profile')}").json()["capabilities"]
    assert [(c["capability"], c["allowed"]) for c in v1] == [
        ("public_posts", False),
        ("unlisted_posts", False),
    ]
    assert "YOUTUBE_PROJECT_AUDITED" in v1[0]["reason"]
    api = owner.token_client().get(f"/api/profiles/{x.pk}").json()["data"]["capabilities"]
    assert [(c["capability"], c["allowed"]) for c in api] == [("metrics", False), ("reconciliation", False)]

    unaudited.X_API_TIER = "basic"
    api = owner.token_client().get(f"/api/profiles/{x.pk}").json()["data"]["capabilities"]
    assert all(c["allowed"] and c["reason"] is None for c in api)


def test_pinterest_code_29_is_explained_as_the_apps_configuration(settings, make_fake):
    fake = make_fake("pinterest")
    client = fake_client(fake)
    fake.fail_next(
        "bad_request"
    )  # 403 {"code": 29, "message": "Your application consumer type is not supported."}
    with pytest.raises(PlatformError) as refused:
        client.fetch_account()
    error = refused.value
    assert error.code == 29 and not error.retryable and not error.token_expired
    assert error.message.startswith("Your application consumer type is not supported. (Pinterest code 29")
    assert "https://api-sandbox.pinterest.com" in error.message and "PINTEREST_API_URL" in error.message


def test_the_pinterest_api_host_is_a_setting(settings):
    from apps.publishing.oauth_backends import platform_client

    settings.PINTEREST_API_URL = "https://api-sandbox.pinterest.com"
    settings.OAUTH_ENDPOINT_OVERRIDES = {}
    assert platform_client("pinterest", access_token="t").base_url == "https://api-sandbox.pinterest.com"
    assert PostRequest(caption="x").privacy == "public"
