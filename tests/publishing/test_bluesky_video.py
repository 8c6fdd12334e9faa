"""Issue 22: Bluesky video through the video service. The PDS signs a service token for its own
uploadBlob (com.atproto.server.getServiceAuth), the video goes to app.bsky.video.uploadVideo
streamed from storage, getJobStatus is read until the processed blob is on the PDS, and the post
carries it in app.bsky.embed.video; the fake PDS and video service check every shape against
the lexicons (tests/publishing/bluesky_fake.py)."""

from __future__ import annotations

import os

import pytest

from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content.models import Variant
from apps.core import ids
from apps.media.models import MediaAsset
from apps.publishing.models import Publication
from apps.publishing.platforms.base import MediaItem, PlatformError, PostRequest
from apps.publishing.platforms.bluesky import BlueskyClient
from tests.publishing.test_bluesky import connect_v1, pds, request  # noqa: F401 (the fake PDS fixture)
from tests.publishing.test_streamed_uploads import CountingFile

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def video_service(pds, settings):  # noqa: F811
    settings.BLUESKY_VIDEO_SERVICE_URL = pds.url  # the fake serves the video service's XRPC too
    return pds


@pytest.fixture
def client(video_service):
    account = next(a for a in video_service.accounts.values() if a.handle == "acme.bsky.social")
    session = video_service.session(account.did)
    return BlueskyClient(
        access_token=session["accessJwt"],
        account_id=account.did,
        base_url=video_service.url,
        poll_interval=0,
        sleep=lambda _s: None,
    )


@pytest.fixture
def clip(tmp_path):
    blob = b"\x00\x00\x00\x18ftypmp42" + os.urandom(3 * 1024 * 1024)
    path = tmp_path / "clip.mp4"
    path.write_bytes(blob)
    stats = {"max_read": 0, "read": 0}

    def whole() -> bytes:
        raise AssertionError("the video was read whole into memory")

    item = MediaItem(
        "video",
        "",
        "video/mp4",
        1080,
        1920,
        seconds=42.0,
        alt_text="A latte being poured",
        loader=whole,
        opener=lambda: CountingFile(str(path), stats),  # type: ignore[arg-type,return-value]
        size=len(blob),
    )
    return item, blob, stats


def test_a_video_goes_through_the_video_service_into_an_embed_video(video_service, client, clip):
    item, blob, stats = clip
    result = client.publish(request("Our new pour #coffee", media=[item]))

    assert not video_service.refused, video_service.refused
    [job] = video_service.jobs.values()
    assert job["size"] == len(blob) and job["did"] == client.account_id
    value = next(iter(video_service.records.values()))["value"]
    embed = value["embed"]
    assert embed["$type"] == "app.bsky.embed.video"
    assert embed["video"]["ref"]["$link"] == job["cid"] and embed["video"]["mimeType"] == "video/mp4"
    assert embed["alt"] == "A latte being poured"
    assert embed["aspectRatio"] == {"width": 1080, "height": 1920}
    assert result.external_id.startswith(f"at://{client.account_id}/app.bsky.feed.post/")
    calls = [path for _m, path in video_service.requests]
    assert calls.index("/xrpc/com.atproto.server.getServiceAuth") < calls.index(
        "/xrpc/app.bsky.video.uploadVideo"
    )
    assert calls.count("/xrpc/app.bsky.video.getJobStatus") == video_service.video_polls + 1
    assert stats["read"] == len(blob) and stats["max_read"] <= 1024 * 1024  # streamed, never whole


def test_a_video_uploaded_before_resumes_its_job(video_service, client, clip):
    item, _blob, _stats = clip
    client.publish(request("First", media=[item]))
    video_service.records.clear()  # a retry after the post went missing: same video, same job
    client.publish(request("Again", media=[item]))
    assert len(video_service.jobs) == 1
    assert any("already processed" in r for r in video_service.refused)  # the 409, then resumed
    assert next(iter(video_service.records.values()))["value"]["embed"]["$type"] == "app.bsky.embed.video"


def test_a_video_the_service_cannot_process_fails_with_its_reason(video_service, client, clip):
    item, _blob, _stats = clip
    video_service.video_failure = "Video is too long"
    with pytest.raises(PlatformError) as failed:
        client.publish(request("Broken", media=[item]))
    assert failed.value.code == "media_processing_failed" and not failed.value.retryable
    assert "Video is too long (encoding_failure)" in failed.value.message
    assert not video_service.records


def test_a_video_is_alone_mp4_and_at_most_three_minutes(client, clip):
    item, _blob, _stats = clip
    image = MediaItem("image", "", "image/jpeg", 10, 10, loader=lambda: b"x")
    with pytest.raises(PlatformError) as mixed:
        client.validate(request("Mixed", media=[item, image]))
    assert mixed.value.code == "too_many_media"
    item.seconds = 181
    with pytest.raises(PlatformError) as long:
        client.validate(request("Long", media=[item]))
    assert long.value.code == "invalid_media_duration"
    with pytest.raises(PlatformError) as mov:
        client.validate(PostRequest(caption="Mov", media=[MediaItem("video", "", "video/quicktime", 1, 1)]))
    assert mov.value.code == "unsupported_media"


def test_a_video_post_made_through_the_api_is_a_valid_record(owner, video_service):
    video_service.video_polls = 0
    profile_id = connect_v1(owner).json()["id"]
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    content = content_services.content_request_generation(
        organization=owner.org,
        inp=content_services.GenerationInput(
            prompt="Autumn latte launch", platforms=["bluesky"], brand=brand, media_type="video"
        ),
    )
    Variant.objects.filter(content=content, platform="bluesky").update(
        caption="Autumn latte #coffee", hashtags=[], alt_text="A latte"
    )
    MediaAsset.objects.filter(content=content, media_type="video").update(duration=20.0)
    answer = owner.client().post(
        f"/v1/content/{ids.render(content.pk, 'content')}/publish", {"profiles": [profile_id]}, format="json"
    )
    assert answer.status_code == 202, (answer.content, video_service.refused)
    pub = Publication.objects.get(content=content)
    assert pub.status == "published", (pub.last_error, video_service.refused)
    value = next(iter(video_service.records.values()))["value"]
    assert value["embed"]["$type"] == "app.bsky.embed.video" and value["embed"]["alt"] == "A latte"
    asset = MediaAsset.objects.get(content=content, media_type="video")
    assert next(iter(video_service.jobs.values()))["size"] == asset.file.size
    assert not video_service.refused
