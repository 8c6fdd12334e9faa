"""Issue 22, Facebook video: a reel whose status poll runs out goes to the processing poller
(status `processing`, its link read later), and a video that is no reel (landscape, or longer
than 90 s) goes through the Page's video upload, not Reels."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.media.models import MediaAsset
from apps.publishing import services
from apps.publishing.crypto import encrypt
from apps.publishing.models import Publication
from apps.publishing.platforms.facebook import FacebookClient
from tests.publishing.test_processing_and_unknown import real_profile

pytestmark = pytest.mark.django_db(transaction=True)

FACEBOOK_SCOPES = "pages_show_list,pages_manage_posts,pages_read_engagement,pages_manage_engagement"


@pytest.fixture
def brand(owner):
    return Brand.objects.get(organization=owner.org, is_default=True)


@pytest.fixture
def facebook(settings, owner, brand, make_fake):
    fake = make_fake("facebook")
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # Facebook fetches the video itself
    profile = real_profile(settings, owner, brand, fake, scopes=FACEBOOK_SCOPES)
    # graph-video.facebook.com is the fake too; the User token kept at connect (issue 28)
    settings.OAUTH_ENDPOINT_OVERRIDES = {
        **settings.OAUTH_ENDPOINT_OVERRIDES,
        "facebook": {"api": fake.base_url, "video_api": fake.url + "/graph-video/v25.0"},
    }
    profile.secret_enc = encrypt(fake.issue_user("facebook-user-1", scopes=FACEBOOK_SCOPES.split(",")))
    profile.save(update_fields=["secret_enc"])
    return fake, profile


def video_scheduled(owner, brand, profile, *, width=1080, height=1920, seconds=30.0):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["facebook"], brand=brand, media_type="video"
        ),
    )
    MediaAsset.objects.filter(content=content, media_type="video").update(
        width=width, height=height, duration=seconds
    )
    when = timezone.now() + datetime.timedelta(minutes=30)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=when)
    return Publication.objects.get(content=content)


def run_due(pub):
    services.dispatch_due(now=pub.due_at + datetime.timedelta(seconds=1))
    pub.refresh_from_db()
    return pub


def test_a_reel_whose_status_poll_runs_out_is_processing_and_gets_its_link_later(
    owner, brand, facebook, monkeypatch
):
    fake, profile = facebook
    fake.processing_polls = 3  # the reel is still processing for three status reads
    monkeypatch.setattr(FacebookClient, "reel_wait", 0)  # publish reads the status once
    pub = run_due(video_scheduled(owner, brand, profile))

    [post] = fake.posts
    assert pub.status == "processing" and pub.url == "" and pub.external_id == ""
    assert pub.platform_state["video_id"] == post["video_id"]
    assert len(fake.calls("video_reels")) == 2  # start and finish, once

    for _ in range(2):  # two more reads still say processing
        services.processing_poll_due(now=pub.due_at + datetime.timedelta(seconds=1))
        pub.refresh_from_db()
        assert pub.status == "processing"
    services.processing_poll_due(now=pub.due_at + datetime.timedelta(seconds=1))
    pub.refresh_from_db()
    assert pub.status == "published" and pub.external_id == post["id"]
    assert pub.url == f"https://www.facebook.com/reel/{post['video_id']}/"
    assert len(fake.posts) == 1 and len(fake.calls("video_reels")) == 2  # never posted twice
    pub.content.refresh_from_db()
    assert pub.content.status == "published"


def test_a_reel_that_fails_processing_after_the_poll_ran_out_fails(owner, brand, facebook, monkeypatch):
    fake, profile = facebook
    fake.processing_polls = 1
    monkeypatch.setattr(FacebookClient, "reel_wait", 0)
    fake.fail_processing("The video could not be processed: unsupported codec")
    pub = run_due(video_scheduled(owner, brand, profile))
    assert pub.status == "processing"
    services.processing_poll_due(now=pub.due_at + datetime.timedelta(seconds=1))
    pub.refresh_from_db()
    assert pub.status == "failed" and "unsupported codec" in pub.last_error


@pytest.mark.parametrize(("width", "height", "seconds"), [(1920, 1080, 30.0), (1080, 1920, 120.0)])
def test_a_video_that_is_no_reel_goes_through_the_pages_video_upload(
    owner, brand, facebook, width, height, seconds
):
    fake, profile = facebook
    pub = run_due(video_scheduled(owner, brand, profile, width=width, height=height, seconds=seconds))
    assert pub.status == "published", pub.last_error
    assert not fake.calls("video_reels")  # not a reel
    [session] = fake.upload_sessions.values()
    asset = MediaAsset.objects.get(content=pub.content, media_type="video")
    with asset.file.open("rb") as fh:
        assert bytes(session["bytes"]) == fh.read()  # the whole file, from offset 0
    assert session["app_id"] == "fake-client-id" and session["length"] == asset.file.size
    [post] = fake.posts
    video = fake.objects[post["video_id"]]
    assert video["kind"] == "page_video" and video["description"] == post["message"]
    assert pub.external_id == post["id"]
    assert pub.url == f"https://www.facebook.com/{profile.external_id}/videos/{post['video_id']}/"
    [upload] = fake.calls("upload_session")
    assert upload.header("authorization") == "OAuth facebook-user-1" and upload.header("file_offset") == "0"
    # the session was started with the User token; the Page published the handle on graph-video
    [start] = fake.calls("app_uploads")
    assert start.header("authorization") == "Bearer facebook-user-1"
    [publish] = fake.calls("page_videos")
    assert (
        publish.path.startswith("/graph-video/")
        and publish.header("authorization") != "Bearer facebook-user-1"
    )
    assert not fake.calls("page_videos_on_graph")


def test_the_fake_refuses_a_page_token_upload_session_as_meta_does(owner, brand, facebook):
    """What the code did before issue 28: the Page token on graph.facebook.com. Meta refuses it,
    and so does the fake; a profile without the User token says to reconnect, before any call."""
    fake, profile = facebook
    from apps.publishing.platforms.base import PlatformError

    page_token_client = FacebookClient(
        access_token=fake.token,
        account_id=profile.external_id,
        base_url=fake.base_url,
        user_token=fake.token,  # a Page token where the User token belongs
        video_base_url=fake.base_url,
    )
    pub = video_scheduled(owner, brand, profile, width=1920, height=1080)
    from apps.publishing.services.clients import post_request_for

    req = post_request_for(pub)
    with pytest.raises(PlatformError) as refused:
        page_token_client.publish(req)
    assert "User access token" in refused.value.message and not fake.upload_sessions
    profile.secret_enc = ""
    profile.save(update_fields=["secret_enc"])
    pub = run_due(pub)
    assert pub.status == "failed" and "reconnect the profile" in pub.last_error
    assert not fake.upload_sessions and not fake.posts
