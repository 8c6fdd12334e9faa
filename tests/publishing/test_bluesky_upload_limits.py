"""Issue 28: Bluesky's video upload limits (app.bsky.video.getUploadLimits) are read when a video
is scheduled or published now, and a video the service would refuse is refused then, in both
families, before anything is scheduled; the publish reads them again before uploading."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.core import ids
from apps.media.models import MediaAsset
from apps.publishing.models import Publication
from apps.publishing.platforms.base import PlatformError, PostRequest
from tests.publishing.test_bluesky import connect_v1, pds  # noqa: F401 (the fake PDS fixture)
from tests.publishing.test_bluesky_video import client, clip, video_service  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)
# ruff: noqa: F811 (the fixtures imported above are parameters below)


def _video_content(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["bluesky"], brand=brand, media_type="video"
        ),
    )
    MediaAsset.objects.filter(content=content, media_type="video").update(duration=20.0)
    return content


@pytest.mark.parametrize(
    ("limits", "said"),
    [
        ({"canUpload": False, "message": "Your account is not yet verified"}, "not yet verified"),
        (
            {"canUpload": True, "remainingDailyVideos": 0, "remainingDailyBytes": 10**9},
            "used up today's videos",
        ),
        ({"canUpload": True, "remainingDailyVideos": 3, "remainingDailyBytes": 1000}, "1,000 more bytes"),
    ],
)
def test_a_video_the_service_would_refuse_is_refused_when_scheduled_in_both_families(
    owner, video_service, limits, said
):
    profile_id = connect_v1(owner).json()["id"]
    content = _video_content(owner)
    video_service.upload_limits = limits
    when = (timezone.now() + datetime.timedelta(hours=2)).isoformat()
    cid = ids.render(content.pk, "content")
    a = owner.client().post(
        f"/v1/content/{cid}/schedule", {"profiles": [profile_id], "scheduledFor": when}, format="json"
    )
    # a rule of the platform's, as the other schedule refusals are: 400 in A, 422 in B
    assert a.status_code == 400, a.content
    assert a.json()["error"]["code"] == "VALIDATION_ERROR" and said in a.json()["error"]["message"]
    assert "profiles" in a.json()["error"]["details"]
    now = owner.client().post(f"/v1/content/{cid}/publish", {"profiles": [profile_id]}, format="json")
    assert now.status_code == 400 and said in now.json()["error"]["message"], now.content
    b = owner.token_client().post(
        "/api/posts/scheduled",
        {
            "contentId": str(content.pk),
            "profileIds": [str(ids.parse(profile_id, "profile"))],
            "scheduledFor": when,
        },
        format="json",
    )
    assert b.status_code == 422 and said in b.json()["error"], b.content
    assert not Publication.objects.filter(content=content).exists()
    assert video_service.limit_reads >= 3 and not video_service.jobs  # nothing uploaded


def test_limits_that_allow_it_let_the_video_through_and_the_publish_reads_them_again(
    owner,
    video_service,
    client,
    clip,  # noqa: F811
):
    item = clip[0]
    video_service.upload_limits = {"canUpload": True, "remainingDailyVideos": 1, "remainingDailyBytes": 10**8}
    client.publish(PostRequest(caption="Clip", media=[item], reference="r1"))
    assert video_service.limit_reads == 1 and len(video_service.jobs) == 1
    video_service.upload_limits = {"canUpload": True, "remainingDailyVideos": 0, "remainingDailyBytes": 10**8}
    with pytest.raises(PlatformError) as refused:
        client.publish(PostRequest(caption="Another", media=[item], reference="r2"))
    assert refused.value.code == "video_upload_limit" and not refused.value.retryable
    assert len(video_service.jobs) == 1  # the second video was never sent
