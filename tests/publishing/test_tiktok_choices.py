"""Issue 22, TikTok: no default privacy; the creator's choices on each post; creator_info for a
client's composer; the unaudited app's limits and PULL_FROM_URL's domain verification.

TikTok's content sharing guidelines (https://developers.tiktok.com/doc/content-sharing-guidelines)
and Direct Post reference (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post):
the creator picks the privacy level from creator_info's privacy_level_options with none
preselected and consents to each post; an unaudited app posts SELF_ONLY only, for at most 5
users a day whose accounts are private; PULL_FROM_URL needs a verified domain or URL prefix.
"""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.core import ids
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.platforms.base import MediaItem, PlatformError, PostRequest
from apps.publishing.platforms.tiktok import TikTokClient
from tests.factories import ProfileFactory
from tests.publishing.conftest import client_for
from tests.publishing.test_processing_and_unknown import TIKTOK_SCOPES, real_profile

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def brand(owner):
    return Brand.objects.get(organization=owner.org, is_default=True)


CHOICES = {"privacyLevel": "PUBLIC_TO_EVERYONE", "consent": True}


@pytest.fixture
def tiktok(settings, owner, brand, make_fake, monkeypatch):
    fake = make_fake("tiktok")
    settings.PUBLIC_BASE_URL = "https://postforge.test"
    fake.processing_polls = 0
    monkeypatch.setattr(TikTokClient, "settle_timeout", 0)
    return fake, real_profile(settings, owner, brand, fake, scopes=TIKTOK_SCOPES)


def made(owner, brand, media_type="video"):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["tiktok"], brand=brand, media_type=media_type
        ),
    )
    content.refresh_from_db()
    assert content.status == "review", content.status_reason
    return content


def later() -> str:
    return (timezone.now() + datetime.timedelta(hours=2)).isoformat()


def test_a_tiktok_post_without_the_creators_choices_is_a_400_in_both_families(owner, brand):
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="tiktok", sandbox=True)
    content = made(owner, brand)
    v1 = owner.client()
    path = f"/v1/content/{ids.render(content.pk, 'content')}/schedule"
    body = {"scheduledFor": later(), "profiles": [ids.render(profile.pk, "profile")]}

    missing = v1.post(path, body, format="json")
    assert missing.status_code == 400, missing.content
    details = missing.json()["error"]["details"]
    assert "no default" in details["options.tiktok.privacyLevel"][0]
    assert "consent" in details["options.tiktok.consent"][0]

    unknown = v1.post(
        path, {**body, "options": {"tiktok": {**CHOICES, "privacyLevel": "EVERYONE"}}}, format="json"
    )
    assert unknown.status_code == 400 and "EVERYONE" in str(unknown.json()["error"]["details"])
    refused = v1.post(path, {**body, "options": {"tiktok": {**CHOICES, "consent": False}}}, format="json")
    assert refused.status_code == 400 and list(refused.json()["error"]["details"]) == [
        "options.tiktok.consent"
    ]

    api = owner.token_client()
    fresh = made(owner, brand)
    b = {"contentId": str(fresh.pk), "profileIds": [str(profile.pk)], "scheduledFor": later()}
    missing_b = api.post("/api/posts/scheduled", b, format="json")
    assert missing_b.status_code == 400 and "tiktok.privacyLevel" in missing_b.json()["details"]
    queued = api.post(
        "/api/posts/queue", {"contentId": str(fresh.pk), "profileId": str(profile.pk)}, format="json"
    )
    assert queued.status_code == 400 and "tiktok.consent" in queued.json()["details"]

    ok = v1.post(path, {**body, "options": {"tiktok": {**CHOICES, "disableDuet": True}}}, format="json")
    assert ok.status_code == 200, ok.content
    pub = Publication.objects.get(content=content)
    assert pub.options["tiktok"] == {**CHOICES, "disableDuet": True}
    assert api.post("/api/posts/scheduled", {**b, "tiktok": CHOICES}, format="json").status_code == 201


def test_the_level_must_be_one_the_creator_offers_now_and_an_unaudited_app_only_self_only(
    owner,
    brand,
    tiktok,
    settings,
):
    fake, profile = tiktok
    fake.privacy_level_options = ["FOLLOWER_OF_CREATOR", "SELF_ONLY"]  # a private account
    content = made(owner, brand)
    when = timezone.now() + datetime.timedelta(hours=1)
    with pytest.raises(Exception) as refused:
        services.publications_schedule(
            content=content, profiles=[profile], scheduled_for=when, options={"tiktok": CHOICES}
        )
    assert "only as FOLLOWER_OF_CREATOR, SELF_ONLY now, not PUBLIC_TO_EVERYONE" in str(refused.value)
    assert len(fake.calls("creator_info")) == 1  # asked TikTok, before anything was scheduled
    assert not Publication.objects.filter(content=content).exists()

    settings.TIKTOK_APP_AUDITED = False
    followers = {"tiktok": {"privacyLevel": "FOLLOWER_OF_CREATOR", "consent": True}}
    with pytest.raises(Exception) as gated:
        services.publications_schedule(
            content=content, profiles=[profile], scheduled_for=when, options=followers
        )
    assert "not possible yet" in str(gated.value) and "5 users a day" in str(gated.value)
    assert "Choose SELF_ONLY" in str(gated.value)

    private = {"tiktok": {"privacyLevel": "SELF_ONLY", "consent": True}}
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=when, options=private)
    assert Publication.objects.get(content=content).status == "scheduled"


def test_creator_info_for_the_composer_in_both_families(owner, brand, tiktok, settings):
    fake, profile = tiktok
    settings.TIKTOK_APP_AUDITED = False
    v1 = owner.client().get(f"/v1/profiles/{ids.render(profile.pk, 'profile')}/tiktok/creator-info")
    assert v1.status_code == 200, v1.content
    info = v1.json()
    assert info == {
        "profileId": ids.render(profile.pk, "profile"),
        "nickname": fake.account.display_name,
        "username": fake.account.username,
        "avatarUrl": fake.account.picture_url,
        "privacyLevelOptions": fake.privacy_level_options,
        "maxVideoPostDurationSec": 600,
        "commentDisabled": False,
        "duetDisabled": False,
        "stitchDisabled": True,
        "appAudited": False,
        "notice": info["notice"],
    }
    assert "SELF_ONLY" in info["notice"] and "5 users a day" in info["notice"]
    api = owner.token_client().get(f"/api/profiles/{profile.pk}/tiktok/creator-info")
    assert api.status_code == 200 and api.json()["data"]["privacyLevelOptions"] == fake.privacy_level_options

    instagram = ProfileFactory(organization=owner.org, brand=brand, platform="instagram")
    wrong = owner.token_client().get(f"/api/profiles/{instagram.pk}/tiktok/creator-info")
    assert wrong.status_code == 400 and "instagram" in str(wrong.json()["details"])


def test_the_post_carries_the_chosen_level_the_toggles_and_is_aigc_and_records_the_visibility(
    owner,
    brand,
    tiktok,
):
    fake, profile = tiktok
    content = made(owner, brand)
    chosen = {"privacyLevel": "FOLLOWER_OF_CREATOR", "consent": True, "disableDuet": True}
    answer = owner.token_client().post(
        "/api/posts/publish",
        {"contentId": str(content.pk), "profileIds": [str(profile.pk)], "tiktok": chosen},
        format="json",
    )
    assert answer.status_code == 202, answer.content
    [init] = fake.calls("video_init")
    info = init.json["post_info"]
    assert info["privacy_level"] == "FOLLOWER_OF_CREATOR" and info["disable_duet"] is True
    assert info["is_aigc"] is True  # the video was generated by our engines
    pub = Publication.objects.get(content=content)
    assert pub.visibility == "FOLLOWER_OF_CREATOR"
    [b] = answer.json()["data"]["publications"]
    assert b["visibility"] == "FOLLOWER_OF_CREATOR"
    a = owner.client().get(f"/v1/content/{ids.render(content.pk, 'content')}").json()
    assert a["publications"][0]["visibility"] == "FOLLOWER_OF_CREATOR"


@pytest.mark.parametrize(
    ("flag", "is_aigc"), [("text", False), ("none", False), ("media", True), ("both", True)]
)
def test_is_aigc_follows_the_flag_a_person_set_on_the_generated_video(owner, brand, tiktok, flag, is_aigc):
    """Issue 32: the content's AI flag, overridden through Family A, goes into is_aigc (the
    generated video alone would say true)."""
    fake, profile = tiktok
    content = made(owner, brand)
    a = owner.client()
    shown = a.get(f"/v1/content/{ids.render(content.pk, 'content')}").json()
    assert (shown["aiGenerated"], shown["aiGeneratedOverridden"]) == ("both", False)
    changed = a.put(f"/v1/content/{ids.render(content.pk, 'content')}", {"aiGenerated": flag}, format="json")
    assert changed.status_code == 200 and changed.json()["aiGenerated"] == flag
    answer = owner.token_client().post(
        "/api/posts/publish",
        {"contentId": str(content.pk), "profileIds": [str(profile.pk)], "tiktok": CHOICES},
        format="json",
    )
    assert answer.status_code == 202, answer.content
    [init] = fake.calls("video_init")
    assert init.json["post_info"]["is_aigc"] is is_aigc


def test_a_publication_without_a_chosen_level_is_never_posted_with_a_default(owner, brand, tiktok):
    fake, profile = tiktok
    content = made(owner, brand)
    when = timezone.now() + datetime.timedelta(minutes=5)
    services.publications_schedule(
        content=content, profiles=[profile], scheduled_for=when, options={"tiktok": CHOICES}
    )
    Publication.objects.filter(content=content).update(options={})  # a row from before the choice was asked
    services.dispatch_due(now=when + datetime.timedelta(seconds=1))
    pub = Publication.objects.get(content=content)
    assert (pub.status, pub.error_code) == ("failed", "privacy_level_missing")
    assert "no default" in pub.last_error
    assert fake.calls("video_init") == []


def photo(url: str) -> MediaItem:
    return MediaItem(kind="image", url=url, content_type="image/jpeg", width=1080, height=1350)


def test_photo_posts_pull_only_from_a_verified_prefix_checked_before_init(settings, make_fake):
    fake = make_fake("tiktok")
    client = client_for(fake)
    req = PostRequest(caption="Autumn", title="Latte", media=[photo("https://media.brand.example/a.jpg")])
    settings.TIKTOK_VERIFIED_URL_PREFIXES = ["https://postforge.test/media/"]
    with pytest.raises(PlatformError) as refused:
        client.publish(req)
    assert refused.value.code == "url_ownership_unverified" and not refused.value.retryable
    assert "TIKTOK_VERIFIED_URL_PREFIXES" in refused.value.message
    assert fake.calls("content_init") == []  # refused before init

    settings.TIKTOK_VERIFIED_URL_PREFIXES = ["brand.example"]  # listed here, not verified at TikTok
    with pytest.raises(PlatformError) as unverified:
        client.publish(req)
    assert unverified.value.code == "url_ownership_unverified" and not unverified.value.retryable
    assert "developer portal" in unverified.value.message

    fake.verified_url_prefixes.append("media.brand.example")
    assert client.publish(req).external_id


def test_the_fake_holds_an_unaudited_app_to_tiktoks_limits(make_fake):
    fake = make_fake("tiktok")
    fake.audited = False
    video = MediaItem(
        kind="video",
        url="https://postforge.test/v.mp4",
        content_type="video/mp4",
        width=1080,
        height=1920,
        seconds=10,
        loader=lambda: b"\0" * 2048,
    )
    req = PostRequest(
        caption="Hello", media=[video], options={"tiktok": {"privacyLevel": "PUBLIC_TO_EVERYONE"}}
    )
    with pytest.raises(PlatformError) as public_account:
        client_for(fake).publish(req)
    assert public_account.value.code == "unaudited_client_can_only_post_to_private_accounts"
    assert "TIKTOK_APP_AUDITED" in public_account.value.message and not public_account.value.retryable

    fake.account_private = True
    tokens = [fake.issue(f"user-{i}", scopes=["video.publish"]) for i in range(6)]
    for token in tokens[:5]:
        client_for(fake, access_token=token).publish(req)
    assert {e["post_info"]["privacy_level"] for e in fake.publishes.values()} == {"SELF_ONLY"}
    with pytest.raises(PlatformError) as capped:
        client_for(fake, access_token=tokens[5]).publish(req)
    assert capped.value.code == "reached_active_user_cap" and "5 users" in capped.value.message
