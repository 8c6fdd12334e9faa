"""Issue 22: Instagram stories are not on the media edge and carry no caption, so a story
whose publish answer was lost is looked up on the stories edge (/{ig-user-id}/stories) by its
kind and time, and never posted twice."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.platforms.base import MediaItem, PostRequest
from tests.publishing.conftest import client_for
from tests.publishing.test_processing_and_unknown import real_profile, run_due

pytestmark = pytest.mark.django_db(transaction=True)

INSTAGRAM_SCOPES = (
    "instagram_business_basic,instagram_business_content_publish,"
    "instagram_business_manage_comments,instagram_business_manage_insights"
)


@pytest.fixture
def instagram(settings, owner, make_fake):
    fake = make_fake("instagram")
    settings.PUBLIC_BASE_URL = "https://postforge.test"  # Instagram fetches the image itself
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    return fake, brand, real_profile(settings, owner, brand, fake, scopes=INSTAGRAM_SCOPES)


def story_scheduled(owner, brand, profile):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["instagram"], brand=brand, post_type="story"
        ),
    )
    when = timezone.now() + datetime.timedelta(minutes=30)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=when)
    # due now on the real clock: the fake stamps its stories with the real time
    now = timezone.now()
    Publication.objects.filter(content=content).update(scheduled_for=now, due_at=now)
    return Publication.objects.get(content=content)


def test_a_story_whose_answer_was_lost_is_found_on_the_stories_edge(owner, instagram):
    fake, brand, profile = instagram
    pub = story_scheduled(owner, brand, profile)
    fake.drop_after_create()
    pub = run_due(pub)
    assert pub.status == "scheduled" and pub.outcome_unknown  # the answer was lost
    [story] = fake.posts
    assert story["media_product_type"] == "STORY"

    pub = run_due(pub)
    assert pub.status == "published", pub.last_error
    assert pub.external_id == story["id"] and pub.url == story["permalink"]
    assert len(fake.posts) == 1 and len(fake.calls("media_publish")) == 1  # never posted twice
    assert fake.calls("list_stories") and not fake.calls("list_media")


def test_only_a_story_of_the_same_kind_made_after_the_schedule_counts(make_fake):
    fake = make_fake("instagram")
    client = client_for(fake)
    image = MediaItem("image", "https://postforge.test/a.jpg", "image/jpeg", 1080, 1920)
    scheduled_at = datetime.datetime.now(datetime.UTC)
    req = PostRequest(
        caption="", media=[image], post_type="story", options={"_not_before": scheduled_at.isoformat()}
    )
    video = MediaItem("video", "https://postforge.test/a.mp4", "video/mp4", 1080, 1920, seconds=10)
    client.publish(PostRequest(caption="", media=[video], post_type="story"))  # a video story
    assert client.find_published(req) is None
    old = client.publish(PostRequest(caption="", media=[image], post_type="story"))
    fake.post_named(old.external_id)["timestamp"] = (scheduled_at - datetime.timedelta(hours=3)).strftime(
        "%Y-%m-%dT%H:%M:%S+0000"
    )  # an image story from before the schedule
    assert client.find_published(req) is None
    ours = client.publish(PostRequest(caption="", media=[image], post_type="story"))
    found = client.find_published(req)
    assert found is not None and found.external_id == ours.external_id
