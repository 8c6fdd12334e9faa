"""Issue 22, YouTube: the visibility YouTube really gave an upload, the project's daily upload
bucket, and Google's 7-day refresh tokens while the consent screen is in Testing.

- An API project Google has not audited gets every upload locked private, whatever
  status.privacyStatus asked (https://developers.google.com/youtube/v3/docs/videos/insert): the
  publication records what videos.list says after the upload, in both families.
- videos.insert has its own daily bucket per Cloud project, reset at midnight Pacific
  (https://developers.google.com/youtube/v3/determine_quota_cost): 403 quotaExceeded.
- A consent screen in Testing gives refresh tokens that die after 7 days
  (https://developers.google.com/identity/protocols/oauth2#expiration): invalid_grant.
"""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.core import ids
from apps.events.models import Event
from apps.publishing import oauth
from apps.publishing.models import Publication
from apps.publishing.platforms.base import (
    MediaItem,
    PlatformError,
    PostRequest,
    seconds_until_pacific_midnight,
)
from tests.publishing.conftest import client_for
from tests.publishing.test_oauth_platforms import provider, provider_connect  # noqa: F401
from tests.publishing.test_processing_and_unknown import real_profile

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def brand(owner):
    return Brand.objects.get(organization=owner.org, is_default=True)


YOUTUBE_SCOPES = (
    "https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly "
    "https://www.googleapis.com/auth/youtube.force-ssl"
)


def video_content(owner, brand):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["youtube"], brand=brand, media_type="video"
        ),
    )
    content.refresh_from_db()
    assert content.status == "review", content.status_reason
    return content


@pytest.mark.parametrize(("audited", "seen"), [(False, "private"), (True, "public")])
def test_the_publication_records_the_visibility_youtube_gave_the_upload(
    owner,
    brand,
    settings,
    make_fake,
    audited,
    seen,
):
    fake = make_fake("youtube")
    fake.project_audited = audited  # the operator says audited (YOUTUBE_PROJECT_AUDITED); Google decides
    fake.processing_polls = 0
    profile = real_profile(settings, owner, brand, fake, scopes=YOUTUBE_SCOPES)
    content = video_content(owner, brand)
    answer = owner.token_client().post(
        "/api/posts/publish", {"contentId": str(content.pk), "profileIds": [str(profile.pk)]}, format="json"
    )
    assert answer.status_code == 202, answer.content
    [start] = fake.calls("start_upload")
    assert start.json["status"]["privacyStatus"] == "public"  # what was asked
    assert [c.query["part"] for c in fake.calls("list_videos")][-1].startswith("status")
    pub = Publication.objects.get(content=content)
    assert (pub.status, pub.visibility) == ("published", seen)
    assert answer.json()["data"]["publications"][0]["visibility"] == seen
    v1 = owner.client().get(f"/v1/content/{ids.render(content.pk, 'content')}").json()
    assert v1["publications"][0]["visibility"] == seen
    event = Event.objects.filter(type="publication.updated").latest("created_at")
    assert event.data["visibility"] == seen


def test_a_lost_processing_read_still_reads_the_visibility_back(make_fake):
    fake = make_fake("youtube")
    fake.project_audited = False
    fake.processing_polls = 100  # still processing when the client stops waiting
    client = client_for(fake, poll_timeout=0)
    clip = MediaItem(
        kind="video",
        url="https://postforge.test/v.mp4",
        content_type="video/mp4",
        width=1080,
        height=1920,
        seconds=20,
        loader=lambda: b"\0" * 4096,
    )
    result = client.publish(PostRequest(caption="Latte", title="Latte", media=[clip]))
    assert result.visibility == "private"
    assert fake.calls("list_videos")[-1].query["part"] == "status"


def test_the_projects_daily_upload_bucket_waits_for_midnight_pacific(make_fake):
    fake = make_fake("youtube")
    fake.uploads_per_day = 1
    fake.processing_polls = 0
    client = client_for(fake)
    clip = MediaItem(
        kind="video",
        url="https://postforge.test/v.mp4",
        content_type="video/mp4",
        width=1080,
        height=1920,
        seconds=20,
        loader=lambda: b"\0" * 4096,
    )
    req = PostRequest(caption="Latte", title="Latte", media=[clip])
    assert client.publish(req).external_id
    with pytest.raises(PlatformError) as full:
        client.publish(req)
    error = full.value
    assert error.status_code == 403 and error.code == "quotaExceeded" and error.retryable
    assert error.raw["error"]["errors"][0]["domain"] == "youtube.quota"
    assert abs(error.retry_after - seconds_until_pacific_midnight()) < 60
    assert "midnight Pacific" in error.message and "100 uploads a day" in error.message
    assert len(fake.calls("start_upload")) == 2 and len(fake.videos) == 1
    # issue 28: an upload costs 1 unit of its own bucket, not the 10,000 daily units
    assert "videos.insert has a bucket of its own" in error.message and "(1 unit each)" in error.message
    assert "10,000 daily units for the other calls are not what ran out" in error.message


def test_a_first_comment_over_the_daily_units_says_which_quota_ran_out(make_fake):
    fake = make_fake("youtube")
    fake.processing_polls = 0
    client = client_for(fake)
    clip = MediaItem(
        kind="video",
        url="https://postforge.test/v.mp4",
        content_type="video/mp4",
        width=1080,
        height=1920,
        seconds=20,
        loader=lambda: b"\0" * 4096,
    )
    fake.fail_next("quota_exceeded", when="commentThreads")
    result = client.publish(PostRequest(caption="Latte", title="Latte", media=[clip], first_comment="Hi"))
    said = result.raw["first_comment"]["error"]
    assert "10,000 daily units" in said and "a first comment costs 50 units" in said
    assert "uploads have a bucket of their own, 100 a day" in said


@pytest.mark.parametrize("provider", ["youtube"], indirect=True)
def test_a_testing_consent_screen_ends_the_grant_after_7_days_with_the_reason(owner, provider):  # noqa: F811
    provider.consent_screen_testing = True
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        profile = provider_connect(owner, provider)
        traveller.shift(datetime.timedelta(days=6, hours=23))
        assert oauth.profile_refresh_token(profile=profile).token_status == "valid"
        traveller.shift(datetime.timedelta(hours=2))
        refused = oauth.profile_refresh_token(profile=profile)
    assert refused.token_status == "expired"
    assert "7 days" in refused.token_error and "Testing" in refused.token_error
    assert "In production" in refused.token_error
    event = Event.objects.get(type="profile.token_expired", data__profileId=str(profile.pk))
    assert event.data["status"] == "expired" and "Testing" in event.data["reason"]
