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
    return fake, real_profile(settings, owner, brand, fake, scopes=FACEBOOK_SCOPES)


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
    assert upload.header("authorization").startswith("OAuth ") and upload.header("file_offset") == "0"
