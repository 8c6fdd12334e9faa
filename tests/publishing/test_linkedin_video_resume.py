"""Issue 22: a LinkedIn video still processing when the attempt's wait runs out keeps its
URN; the next attempt waits for that same upload instead of uploading the file again."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.media.models import MediaAsset
from apps.publishing import services
from apps.publishing.models import Publication
from apps.publishing.platforms.linkedin import LinkedInClient
from tests.publishing.test_processing_and_unknown import real_profile, run_due

pytestmark = pytest.mark.django_db(transaction=True)

LINKEDIN_SCOPES = "openid,profile,email,w_member_social"


@pytest.fixture
def linkedin(settings, owner, make_fake, monkeypatch):
    fake = make_fake("linkedin")
    monkeypatch.setattr(LinkedInClient, "video_wait", 0)  # one status read per attempt
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    return fake, brand, real_profile(settings, owner, brand, fake, scopes=LINKEDIN_SCOPES)


def video_scheduled(owner, brand, profile):
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["linkedin"], brand=brand, media_type="video"
        ),
    )
    MediaAsset.objects.filter(content=content, media_type="video").update(duration=30.0)
    when = timezone.now() + datetime.timedelta(minutes=30)
    services.publications_schedule(content=content, profiles=[profile], scheduled_for=when)
    return Publication.objects.get(content=content)


def uploads(fake):
    return [r for r in fake.calls("videos_action") if r.query.get("action") == "initializeUpload"]


def test_a_video_still_processing_is_waited_for_again_not_uploaded_again(owner, linkedin):
    fake, brand, profile = linkedin
    fake.processing_polls = 2  # two status reads say PROCESSING, the third AVAILABLE
    pub = run_due(video_scheduled(owner, brand, profile))
    [video] = [u for u in fake.assets if ":video:" in u]
    assert pub.status == "scheduled" and pub.error_code == "processing_timeout"
    assert pub.platform_state["resume"] == {"linkedin_video": video}
    assert len(uploads(fake)) == 1 and not fake.posts

    pub = run_due(pub)  # still processing: the same URN, nothing uploaded
    assert pub.status == "scheduled" and len(uploads(fake)) == 1
    uploaded_parts = len(fake.calls("upload"))

    pub = run_due(pub)
    assert pub.status == "published", pub.last_error
    [post] = fake.posts
    assert post["content"]["media"]["id"] == video
    assert len(uploads(fake)) == 1 and len(fake.calls("upload")) == uploaded_parts


def test_a_resumed_video_linkedin_no_longer_knows_is_uploaded_again(owner, linkedin):
    fake, brand, profile = linkedin
    fake.processing_polls = 1
    pub = run_due(video_scheduled(owner, brand, profile))
    assert pub.status == "scheduled" and len(uploads(fake)) == 1
    fake.assets.clear()  # LinkedIn dropped the upload
    pub = run_due(pub)
    assert len(uploads(fake)) == 2
