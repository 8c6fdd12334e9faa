"""The real platform clients against fakes that speak each platform's wire format."""

from __future__ import annotations

import json
from email.utils import formatdate

import pytest

from apps.publishing.platforms.base import (
    AccountInfo,
    MediaItem,
    Metrics,
    OutcomeUnknown,
    PlatformError,
    PostRequest,
    Quota,
    retry_after_from_headers,
)
from apps.publishing.platforms.linkedin import little_text
from apps.publishing.platforms.registry import get_client_class
from apps.publishing.platforms.tiktok import chunk_plan
from tests.publishing.conftest import PLATFORMS, client_for
from tests.publishing.fakes import TOKEN, FakePlatform

MB = 1024 * 1024
BOARD = "1022106146619699000"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(256)) * 8
MP4 = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 2400  # ~600 KB


def image(
    name: str = "a", *, alt: str = "", ctype: str = "image/jpeg", size: tuple[int, int] = (1080, 1350)
) -> MediaItem:
    return MediaItem(
        kind="image",
        url=f"https://cdn.postforge.test/{name}.jpg",
        content_type=ctype,
        width=size[0],
        height=size[1],
        alt_text=alt,
        loader=lambda: JPEG,
    )


def video(blob: bytes = MP4, *, seconds: float = 7.0, size: tuple[int, int] = (1080, 1920)) -> MediaItem:
    return MediaItem(
        kind="video",
        url="https://cdn.postforge.test/clip.mp4",
        content_type="video/mp4",
        width=size[0],
        height=size[1],
        seconds=seconds,
        loader=lambda: blob,
        thumbnail_url="https://cdn.postforge.test/clip.jpg",
    )


def main_request(platform: str) -> PostRequest:
    """Each platform's main post type, with the extras it supports."""
    caption = f"Spring launch on {platform} (today) #Postforge"
    if platform in {"youtube", "tiktok"}:
        return PostRequest(
            caption=caption,
            media=[video()],
            post_type="short" if platform == "youtube" else "feed",
            title="Spring launch" if platform == "youtube" else "",
            first_comment="Tell us what you think" if platform == "youtube" else "",
            reference="pub_1",
            options={"tags": ["launch", "spring"]} if platform == "youtube" else {},
        )
    if platform == "x":
        return PostRequest(
            caption=caption,
            media=[image("a", alt="A red kite"), image("b", alt="A blue kite")],
            first_comment="More at https://postforge.dev",
            reference="pub_1",
        )
    if platform == "pinterest":
        return PostRequest(
            caption=caption,
            media=[image(alt="A red kite")],
            title="Spring launch",
            reference="pub_1",
            options={"board_id": BOARD, "link": "https://postforge.dev/spring"},
        )
    return PostRequest(
        caption=caption,
        media=[image(alt="A red kite")],
        first_comment="Tell us what you think",
        reference="pub_1",
        options={"topic_tag": "Postforge"} if platform == "threads" else {},
    )


def processing_request(platform: str) -> PostRequest:
    """A request whose media the platform processes asynchronously."""
    if platform in {"linkedin"}:
        return PostRequest(caption="Processing check", media=[image()])
    request = PostRequest(
        caption="Processing check", media=[video()], title="Processing check", post_type="reel"
    )
    if platform == "pinterest":
        request.options["board_id"] = BOARD
    return request


def make_client(fake: FakePlatform):
    client = client_for(fake)
    if fake.platform == "youtube":
        client.chunk_size = 256 * 1024
    if fake.platform == "x":
        client.segment_size = 256 * 1024
    if fake.platform == "tiktok":
        client.chunk_size = 5 * MB
    return client


# ---- successful publishes: what each platform received -----------------------------------


def test_instagram_publishes_a_feed_image_with_alt_text_then_the_first_comment(instagram_fake):
    result = make_client(instagram_fake).publish(main_request("instagram"))

    [container_call] = instagram_fake.calls("create_container")
    assert container_call.path == f"/v25.0/{instagram_fake.account.external_id}/media"
    assert container_call.header("authorization") == f"Bearer {TOKEN}"
    assert container_call.params == {
        "image_url": "https://cdn.postforge.test/a.jpg",
        "alt_text": "A red kite",
        "caption": "Spring launch on instagram (today) #Postforge",
    }
    container_id = next(k for k, v in instagram_fake.objects.items() if v.get("kind") == "container")
    assert len(instagram_fake.calls("get_object")) >= 2  # polled IN_PROGRESS, then FINISHED
    assert [c.params for c in instagram_fake.calls("media_publish")] == [{"creation_id": container_id}]
    post = instagram_fake.posts[0]
    assert [c["text"] for c in post["comments"]] == ["Tell us what you think"]
    assert result.external_id == post["id"]
    assert result.url == post["permalink"]


def test_instagram_publishes_a_carousel_from_child_containers(instagram_fake):
    request = PostRequest(caption="Two kites", media=[image("a", alt="Red"), image("b")])
    result = make_client(instagram_fake).publish(request)

    first, second, parent = instagram_fake.calls("create_container")
    assert first.params == {
        "image_url": "https://cdn.postforge.test/a.jpg",
        "alt_text": "Red",
        "is_carousel_item": "true",
    }
    assert second.params == {"image_url": "https://cdn.postforge.test/b.jpg", "is_carousel_item": "true"}
    child_ids = [k for k, v in instagram_fake.objects.items() if v.get("kind") == "container"][:2]
    assert parent.params == {
        "media_type": "CAROUSEL",
        "children": ",".join(child_ids),
        "caption": "Two kites",
    }
    assert instagram_fake.posts[0]["media_type"] == "CAROUSEL_ALBUM"
    assert result.external_id == instagram_fake.posts[0]["id"]


def test_facebook_publishes_a_page_photo_with_alt_text_and_comments_on_the_post(facebook_fake):
    result = make_client(facebook_fake).publish(main_request("facebook"))

    [photo_call] = facebook_fake.calls("photos")
    assert photo_call.path == f"/v25.0/{facebook_fake.account.external_id}/photos"
    assert photo_call.params == {
        "url": "https://cdn.postforge.test/a.jpg",
        "caption": "Spring launch on facebook (today) #Postforge",
        "alt_text_custom": "A red kite",
        "published": "true",
    }
    post = facebook_fake.posts[0]
    assert result.external_id == post["id"] and "_" in post["id"]
    assert [c["message"] for c in post["comments_list"]] == ["Tell us what you think"]
    assert result.url == post["permalink_url"]


def test_facebook_publishes_a_reel_in_three_phases_through_rupload(facebook_fake):
    request = PostRequest(caption="Reel caption", media=[video()], post_type="reel")
    result = make_client(facebook_fake).publish(request)

    start, finish = facebook_fake.calls("video_reels")
    assert start.params == {"upload_phase": "start"}
    [upload] = facebook_fake.calls("rupload")
    assert upload.header("authorization") == f"OAuth {TOKEN}"
    assert upload.header("file_url") == "https://cdn.postforge.test/clip.mp4"
    video_id = upload.path.rsplit("/", 1)[1]
    assert finish.params == {
        "upload_phase": "finish",
        "video_id": video_id,
        "video_state": "PUBLISHED",
        "description": "Reel caption",
    }
    assert result.external_id == facebook_fake.posts[0]["id"]
    assert result.url == f"https://www.facebook.com/reel/{video_id}/"


def test_tiktok_posts_a_video_in_sequential_chunks_after_reading_creator_info(tiktok_fake):
    blob = bytes(11 * MB)
    request = PostRequest(caption="Spring launch #fyp", media=[video(blob)], options={"is_aigc": True})
    result = make_client(tiktok_fake).publish(request)

    assert len(tiktok_fake.calls("creator_info")) == 1
    [init] = tiktok_fake.calls("video_init")
    assert init.json == {
        "post_info": {"privacy_level": "PUBLIC_TO_EVERYONE", "is_aigc": True, "title": "Spring launch #fyp"},
        "source_info": {
            "source": "FILE_UPLOAD",
            "video_size": len(blob),
            "chunk_size": 5 * MB,
            "total_chunk_count": 2,
        },
    }
    chunks = tiktok_fake.calls("upload_chunk")
    assert [c.header("content-range") for c in chunks] == [
        f"bytes 0-{5 * MB - 1}/{len(blob)}",
        f"bytes {5 * MB}-{len(blob) - 1}/{len(blob)}",
    ]
    assert all(c.header("content-type") == "video/mp4" and not c.header("authorization") for c in chunks)
    assert len(tiktok_fake.calls("status_fetch")) >= 2
    post = tiktok_fake.posts[0]
    assert result.external_id == post["id"]
    assert result.url == f"https://www.tiktok.com/@postforge_test/video/{post['id']}"


def test_tiktok_photo_posts_carry_no_video_only_fields(tiktok_fake):
    options = {
        "disable_duet": True,
        "disable_stitch": True,
        "video_cover_timestamp_ms": 1000,
        "is_aigc": True,
        "disable_comment": True,
    }
    make_client(tiktok_fake).publish(
        PostRequest(caption="Two kites", title="Kites", media=[image("a")], options=options)
    )
    [init] = tiktok_fake.calls("content_init")
    assert init.json["post_info"] == {
        "privacy_level": "PUBLIC_TO_EVERYONE",
        "disable_comment": True,
        "title": "Kites",
        "description": "Two kites",
    }


def test_tiktok_posts_photos_from_urls_with_title_and_description(tiktok_fake):
    request = PostRequest(caption="Two kites", title="Kites", media=[image("a"), image("b")])
    make_client(tiktok_fake).publish(request)

    [init] = tiktok_fake.calls("content_init")
    assert init.json == {
        "post_info": {"privacy_level": "PUBLIC_TO_EVERYONE", "title": "Kites", "description": "Two kites"},
        "source_info": {
            "source": "PULL_FROM_URL",
            "photo_cover_index": 0,
            "photo_images": ["https://cdn.postforge.test/a.jpg", "https://cdn.postforge.test/b.jpg"],
        },
        "post_mode": "DIRECT_POST",
        "media_type": "PHOTO",
    }


def test_tiktok_lets_tiktok_pull_a_video_that_has_no_local_bytes(tiktok_fake):
    clip = video()
    clip.loader = None
    request = PostRequest(caption="Pulled", media=[clip], privacy="private")
    result = make_client(tiktok_fake).publish(request)

    [init] = tiktok_fake.calls("video_init")
    assert init.json == {
        # is_aigc: TikTok's AI-generated label, false for a video the client uploaded (issue 22)
        "post_info": {"privacy_level": "SELF_ONLY", "title": "Pulled", "is_aigc": False},
        "source_info": {"source": "PULL_FROM_URL", "video_url": "https://cdn.postforge.test/clip.mp4"},
    }
    assert not tiktok_fake.calls("upload_chunk")
    # A private post gets no public post id: the publish id stands in for it.
    assert result.external_id == result.raw["publish_id"] == tiktok_fake.posts[0]["publish_id"]
    assert result.url == ""


def test_tiktok_reports_an_accepted_post_as_pending_when_its_status_cannot_be_read(tiktok_fake):
    tiktok_fake.fail_next("server_error", when="status_fetch")
    result = make_client(tiktok_fake).publish(main_request("tiktok"))

    # The upload completed, so the post exists: an error here would make the caller post twice.
    assert (
        result.pending and result.external_id == "" and "Something went wrong" in result.raw["status_error"]
    )
    assert result.state["publish_id"] == result.raw["publish_id"] == tiktok_fake.posts[0]["publish_id"]


def test_tiktok_refuses_a_privacy_level_the_creator_does_not_offer(tiktok_fake):
    tiktok_fake.privacy_level_options = ["SELF_ONLY"]  # an unaudited client
    with pytest.raises(PlatformError) as caught:
        make_client(tiktok_fake).publish(main_request("tiktok"))
    assert caught.value.code == "privacy_level_option_mismatch" and not caught.value.retryable
    assert "SELF_ONLY" in caught.value.message and "audit" in caught.value.message
    assert not tiktok_fake.calls("video_init")


def test_youtube_uploads_a_short_resumably_and_adds_the_first_comment(youtube_fake):
    result = make_client(youtube_fake).publish(main_request("youtube"))

    [start] = youtube_fake.calls("start_upload")
    assert start.query == {"uploadType": "resumable", "part": "snippet,status", "notifySubscribers": "true"}
    assert start.header("x-upload-content-length") == str(len(MP4))
    assert start.header("x-upload-content-type") == "video/mp4"
    assert start.json == {
        "snippet": {
            "title": "Spring launch",
            "description": "Spring launch on youtube (today) #Postforge",
            "categoryId": "22",
            "tags": ["launch", "spring"],
        },
        "status": {
            "privacyStatus": "public",
            "selfDeclaredMadeForKids": False,
            "containsSyntheticMedia": False,  # an uploaded video
        },
    }
    puts = youtube_fake.calls("upload_bytes")
    assert len(puts) == 3  # 600 KB in 256 KiB chunks
    assert puts[0].header("content-range") == f"bytes 0-{256 * 1024 - 1}/{len(MP4)}"
    video_id = youtube_fake.posts[0]["id"]
    assert youtube_fake.videos[video_id]["bytes"] == MP4
    [thread] = youtube_fake.comments
    assert thread["snippet"]["videoId"] == video_id
    assert thread["snippet"]["topLevelComment"]["snippet"]["textOriginal"] == "Tell us what you think"
    assert result.external_id == video_id
    assert result.url == f"https://www.youtube.com/shorts/{video_id}"


def test_youtube_resumes_an_upload_after_a_dropped_chunk(youtube_fake):
    youtube_fake.fail_next("drop", when="upload_bytes", skip=1)  # the second chunk never arrives

    result = make_client(youtube_fake).publish(main_request("youtube"))

    total = len(MP4)
    kib = 256 * 1024
    assert [p.header("content-range") for p in youtube_fake.calls("upload_bytes")] == [
        f"bytes 0-{kib - 1}/{total}",
        f"bytes {kib}-{2 * kib - 1}/{total}",  # dropped before the session saw it
        f"bytes */{total}",
        f"bytes {kib}-{2 * kib - 1}/{total}",
        f"bytes {2 * kib}-{total - 1}/{total}",
    ]
    assert youtube_fake.videos[result.external_id]["bytes"] == MP4


def test_linkedin_uploads_the_image_then_creates_the_post_with_versioned_headers(linkedin_fake):
    result = make_client(linkedin_fake).publish(main_request("linkedin"))

    author = linkedin_fake.account.external_id
    [init] = linkedin_fake.calls("images_action")
    assert init.query == {"action": "initializeUpload"}
    assert init.json == {"initializeUploadRequest": {"owner": author}}
    [upload] = linkedin_fake.calls("upload")
    assert upload.body == JPEG
    [create] = linkedin_fake.calls("create_post")
    image_urn = next(iter(linkedin_fake.assets))
    assert create.json == {
        "author": author,
        "commentary": "Spring launch on linkedin \\(today\\) {hashtag|\\#|Postforge}",
        "visibility": "PUBLIC",
        "distribution": {
            "feedDistribution": "MAIN_FEED",
            "targetEntities": [],
            "thirdPartyDistributionChannels": [],
        },
        "lifecycleState": "PUBLISHED",
        "isReshareDisabledByAuthor": False,
        "content": {"media": {"id": image_urn, "altText": "A red kite"}},
    }
    rest_calls = [r for r in linkedin_fake.requests if r.path.startswith("/rest/")]
    assert all(r.header("x-restli-protocol-version") == "2.0.0" for r in rest_calls)
    assert all(
        r.header("linkedin-version").isdigit() and len(r.header("linkedin-version")) == 6 for r in rest_calls
    )
    urn = linkedin_fake.posts[0]["id"]
    assert result.external_id == urn and urn.startswith("urn:li:share:")
    [comment] = linkedin_fake.comments
    assert comment["actor"] == author and comment["object"] == urn
    assert comment["message"] == {"text": "Tell us what you think"}
    assert result.url == f"https://www.linkedin.com/feed/update/{urn}/"


def test_linkedin_uploads_a_video_in_parts_and_finalizes_with_the_etags(linkedin_fake):
    blob = bytes(9 * MB)
    result = make_client(linkedin_fake).publish(
        PostRequest(caption="Video", media=[video(blob)], title="Clip")
    )

    init, finalize = linkedin_fake.calls("videos_action")
    assert init.json["initializeUploadRequest"]["fileSizeBytes"] == len(blob)
    parts = linkedin_fake.calls("upload")
    assert sum(len(p.body) for p in parts) == len(blob) and len(parts) == 3
    video_urn = finalize.json["finalizeUploadRequest"]["video"]
    assert len(finalize.json["finalizeUploadRequest"]["uploadedPartIds"]) == 3
    assert linkedin_fake.posts[0]["content"] == {"media": {"id": video_urn, "title": "Clip"}}
    assert result.external_id == linkedin_fake.posts[0]["id"]


def test_x_uploads_each_image_in_segments_sets_alt_text_and_replies_with_the_first_comment(x_fake):
    client = make_client(x_fake)
    client.segment_size = 1024
    result = client.publish(main_request("x"))

    inits = x_fake.calls("initialize")
    assert [i.json for i in inits] == [
        {"media_type": "image/jpeg", "total_bytes": len(JPEG), "media_category": "tweet_image"}
    ] * 2
    appends = x_fake.calls("append")
    assert [a.form["segment_index"] for a in appends] == ["0", "1", "2"] * 2
    assert appends[0].files["media"][1] == JPEG[:1024]
    media_ids = list(x_fake.media)
    assert [m.json for m in x_fake.calls("metadata")] == [
        {"id": media_ids[0], "metadata": {"alt_text": {"text": "A red kite"}}},
        {"id": media_ids[1], "metadata": {"alt_text": {"text": "A blue kite"}}},
    ]
    tweet, reply = x_fake.calls("create_tweet")
    assert tweet.json == {"text": "Spring launch on x (today) #Postforge", "media": {"media_ids": media_ids}}
    assert reply.json == {
        "text": "More at https://postforge.dev",
        "reply": {"in_reply_to_tweet_id": result.external_id},
    }
    assert result.external_id == x_fake.posts[0]["id"]
    assert result.url == f"https://x.com/i/web/status/{result.external_id}"


def test_x_uploads_a_video_and_waits_for_processing_before_posting(x_fake):
    result = make_client(x_fake).publish(PostRequest(caption="Clip", media=[video()]))

    [init] = x_fake.calls("initialize")
    assert init.json == {"media_type": "video/mp4", "total_bytes": len(MP4), "media_category": "tweet_video"}
    assert next(s.query for s in x_fake.calls("status")) == {
        "command": "STATUS",
        "media_id": next(iter(x_fake.media)),
    }
    assert next(iter(x_fake.media.values()))["bytes"] == MP4
    assert result.external_id == x_fake.posts[0]["id"]


def test_linkedin_sends_the_configured_api_version_and_logs_its_deprecation(linkedin_fake, settings, caplog):
    assert settings.LINKEDIN_API_VERSION == "202610"  # the tested default
    settings.LINKEDIN_API_VERSION = "202607"
    linkedin_fake.deprecated_versions = {"202607"}
    with caplog.at_level("WARNING", logger="apps.publishing.platforms.linkedin"):
        make_client(linkedin_fake).publish(main_request("linkedin"))
    versions = {r.header("linkedin-version") for r in linkedin_fake.requests if r.path.startswith("/rest/")}
    assert versions == {"202607"}
    assert any("deprecation notice" in r.getMessage() and "202607" in r.getMessage() for r in caplog.records)


def test_x_sends_alt_text_metadata_for_images_only_never_for_a_video(x_fake):
    clip = video()
    clip.alt_text = "A kite in the wind"
    make_client(x_fake).publish(PostRequest(caption="Clip", media=[clip]))
    assert x_fake.calls("metadata") == [] and len(x_fake.posts) == 1


def test_instagram_sends_user_tags_and_collaborators_as_one_json_value(instagram_fake):
    req = main_request("instagram")
    tags = [{"username": "acme.kite", "x": 0.5, "y": 0.5}]
    req.options = {**req.options, "user_tags": tags, "collaborators": ["friend.one", "friend.two"]}
    make_client(instagram_fake).publish(req)
    [container_call] = instagram_fake.calls("create_container")
    assert json.loads(container_call.params["user_tags"]) == tags
    assert json.loads(container_call.params["collaborators"]) == ["friend.one", "friend.two"]


def test_threads_publishes_an_image_container_and_replies_with_the_first_comment(threads_fake):
    result = make_client(threads_fake).publish(main_request("threads"))

    user = threads_fake.account.external_id
    post_container, reply_container = threads_fake.calls("create_container")
    assert post_container.path == f"/v1.0/{user}/threads"
    assert post_container.params == {
        "media_type": "IMAGE",
        "image_url": "https://cdn.postforge.test/a.jpg",
        "alt_text": "A red kite",
        "text": "Spring launch on threads (today) #Postforge",
        "topic_tag": "Postforge",
        "access_token": TOKEN,
    }
    assert reply_container.params == {
        "media_type": "TEXT",
        "text": "Tell us what you think",
        "reply_to_id": result.external_id,
        "access_token": TOKEN,
    }
    publishes = threads_fake.calls("threads_publish")
    assert len(publishes) == 2 and set(publishes[0].params) == {"creation_id", "access_token"}
    post = threads_fake.posts[0]
    assert result.external_id == post["id"]
    assert [r["text"] for r in post["replies"]] == ["Tell us what you think"]
    assert result.url == post["permalink"]


def test_threads_publishes_a_text_only_post(threads_fake):
    result = make_client(threads_fake).publish(PostRequest(caption="Just words"))

    [container] = threads_fake.calls("create_container")
    assert container.params == {"media_type": "TEXT", "text": "Just words", "access_token": TOKEN}
    assert result.external_id == threads_fake.posts[0]["id"]


def test_pinterest_creates_an_image_pin_on_the_board_with_our_reference_in_the_note(pinterest_fake):
    result = make_client(pinterest_fake).publish(main_request("pinterest"))

    [create] = pinterest_fake.calls("create_pin")
    assert create.json == {
        "board_id": BOARD,
        "title": "Spring launch",
        "description": "Spring launch on pinterest (today) #Postforge",
        "link": "https://postforge.dev/spring",
        "note": "postforge:pub_1",
        "media_source": {"source_type": "image_url", "url": "https://cdn.postforge.test/a.jpg"},
        "alt_text": "A red kite",
    }
    assert result.external_id == pinterest_fake.posts[0]["id"]
    assert result.url == f"https://www.pinterest.com/pin/{result.external_id}/"


def test_pinterest_links_the_pin_to_the_posts_own_link_when_none_is_given(pinterest_fake):
    """Issue 19: a Pin's link field is where Pinterest sends a click; the generated description
    keeps the brief's link, and the Pin links to it unless the publish options name another."""
    request = PostRequest(
        caption="Spring sale: 15% off with code CRUMB15. Order at https://crumb.com/shop. #Bread",
        media=[image(alt="A loaf")],
        title="Spring sale",
        reference="pub_2",
        options={"board_id": BOARD},
    )
    make_client(pinterest_fake).publish(request)
    [create] = pinterest_fake.calls("create_pin")
    assert create.json["link"] == "https://crumb.com/shop"
    assert pinterest_fake.posts[0]["link"] == "https://crumb.com/shop"


def test_pinterest_uploads_a_video_to_storage_waits_for_it_and_pins_it_with_a_cover(pinterest_fake):
    request = PostRequest(caption="Video pin", title="Clip", media=[video()], options={"board_id": BOARD})
    make_client(pinterest_fake).publish(request)

    [upload] = pinterest_fake.calls("storage_upload")
    assert not upload.header("authorization")
    assert upload.files["file"][1] == MP4
    media_id = next(iter(pinterest_fake.media))
    assert upload.form["key"] == f"uploads/{media_id}"
    [create] = pinterest_fake.calls("create_pin")
    assert create.json["media_source"] == {
        "source_type": "video_id",
        "media_id": media_id,
        "cover_image_url": "https://cdn.postforge.test/clip.jpg",
    }


# ---- errors, in every platform's own shape ------------------------------------------------


def test_a_rate_limited_call_is_retryable_after_the_delay_the_platform_gave(platform_fake):
    platform_fake.fail_next("rate_limit", retry_after=120)
    with pytest.raises(PlatformError) as caught:
        make_client(platform_fake).publish(main_request(platform_fake.platform))
    error = caught.value
    assert error.retryable and not error.token_expired
    assert error.retry_after == pytest.approx(120, abs=2)
    assert not isinstance(error, OutcomeUnknown)
    assert not platform_fake.posts


def test_a_server_error_is_retryable(platform_fake):
    platform_fake.fail_next("server_error")
    with pytest.raises(PlatformError) as caught:
        make_client(platform_fake).publish(main_request(platform_fake.platform))
    assert caught.value.retryable and caught.value.status_code >= 500


def test_an_expired_token_asks_for_a_reconnect_instead_of_a_retry(platform_fake):
    platform_fake.fail_next("token_expired")
    with pytest.raises(PlatformError) as caught:
        make_client(platform_fake).publish(main_request(platform_fake.platform))
    assert caught.value.token_expired and not caught.value.retryable


@pytest.mark.parametrize("platform_fake", ["tiktok"], indirect=True)
def test_a_missing_scope_is_not_an_expired_token_even_with_a_401(platform_fake):
    # TikTok answers a scope the user did not grant with HTTP 401 scope_not_authorized.
    platform_fake.fail_next("scope_not_authorized")
    with pytest.raises(PlatformError) as caught:
        make_client(platform_fake).publish(main_request(platform_fake.platform))
    error = caught.value
    assert error.status_code == 401 and error.code == "scope_not_authorized"
    assert not error.token_expired and not error.retryable
    assert "reconnect the profile and grant it" in error.message
    assert not platform_fake.posts


def test_a_wrong_token_is_refused_by_the_fake_as_expired(platform_fake):
    with pytest.raises(PlatformError) as caught:
        client_for(platform_fake, access_token="stale").fetch_account()
    assert caught.value.token_expired


def test_a_permanent_refusal_fails_at_once_with_the_platforms_own_message(platform_fake):
    platform_fake.fail_next("bad_request")
    with pytest.raises(PlatformError) as caught:
        make_client(platform_fake).publish(main_request(platform_fake.platform))
    error = caught.value
    assert not error.retryable and not error.token_expired
    assert 400 <= error.status_code < 500
    assert error.message.startswith(platform_fake.permanent_error_message)  # Pinterest explains code 29


def test_a_media_processing_failure_is_permanent_and_carries_the_platforms_reason(platform_fake):
    platform_fake.fail_processing("Unsupported video codec")
    with pytest.raises(PlatformError) as caught:
        make_client(platform_fake).publish(processing_request(platform_fake.platform))
    error = caught.value
    assert error.code == "media_processing_failed" and not error.retryable
    if platform_fake.platform == "pinterest":
        # GET /v5/media/{id} reports only status=failed, no reason.
        assert error.message == "video processing failed"
    else:
        assert "Unsupported video codec" in error.message


def test_a_dropped_connection_after_the_create_call_is_an_unknown_outcome_that_reconciliation_resolves(
    platform_fake,
):
    client = make_client(platform_fake)
    request = main_request(platform_fake.platform)
    if platform_fake.platform == "tiktok":
        # TikTok pulls the video: the init call is the irreversible one (a lost last upload
        # chunk is settled from the publish id, see test_platform_limits)
        request.media[0].loader = None
    assert client.find_published(request) is None

    # YouTube's client asks the upload session once more before giving up: drop that too.
    platform_fake.drop_after_create(then_drop=1 if platform_fake.platform == "youtube" else 0)
    with pytest.raises(OutcomeUnknown) as caught:
        client.publish(request)
    assert caught.value.retryable

    found = client.find_published(request)
    assert found is not None
    assert found.external_id == platform_fake.posts[0]["id"]
    assert len(platform_fake.posts) == 1


def test_a_timeout_after_the_create_call_is_an_unknown_outcome_too(platform_fake):
    client = make_client(platform_fake)
    client.timeout = (2, 0.3)
    request = main_request(platform_fake.platform)
    if platform_fake.platform == "tiktok":
        request.media[0].loader = None  # the init call of a pulled video is the irreversible one
    platform_fake.stall_after_create()

    if platform_fake.platform == "youtube":
        # The resumable session answers the status query with the finished video.
        assert client.publish(request).external_id == platform_fake.posts[0]["id"]
        return
    with pytest.raises(OutcomeUnknown):
        client.publish(request)
    assert client.find_published(request).external_id == platform_fake.posts[0]["id"]


def test_a_refused_connection_is_retryable_and_not_an_unknown_outcome(make_fake):
    fake = make_fake("x")
    client = client_for(fake)
    fake.close()
    with pytest.raises(PlatformError) as caught:
        client.request("POST", "/2/tweets", json={"text": "hi"}, create=True)
    assert caught.value.retryable and not isinstance(caught.value, OutcomeUnknown)


def test_youtube_quota_exhaustion_waits_for_the_pacific_midnight_reset(youtube_fake):
    youtube_fake.fail_next("quota_exceeded")
    with pytest.raises(PlatformError) as caught:
        make_client(youtube_fake).publish(main_request("youtube"))
    assert caught.value.code == "quotaExceeded" and caught.value.retryable
    assert 0 < caught.value.retry_after <= 25 * 3600


def test_metrics_are_read_from_the_platforms_own_fields(platform_fake):
    result = make_client(platform_fake).publish(main_request(platform_fake.platform))
    platform_fake.set_metrics(result.external_id, views=1500, likes=120, comments=14, shares=9)

    metrics = make_client(platform_fake).fetch_metrics(result.external_id)

    # The YouTube Data API has no share count.
    shares = 0 if platform_fake.platform == "youtube" else 9
    assert metrics == Metrics(views=1500, likes=120, comments=14, shares=shares)


def test_the_connected_account_is_read_with_its_follower_count(platform_fake):
    account = make_client(platform_fake).fetch_account()
    assert account == AccountInfo(
        external_id=platform_fake.account.external_id,
        username=platform_fake.account.username,
        display_name=platform_fake.account.display_name,
        picture_url=platform_fake.account.picture_url,
        followers=4321,
    )


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_publishing_quota_is_read_where_the_platform_has_an_endpoint(platform, make_fake):
    fake = make_fake(platform)
    quota = make_client(fake).publish_quota()
    expected = {
        "instagram": Quota(used=3, limit=100),
        "threads": Quota(used=3, limit=250),
        "tiktok": Quota(used=0, limit=1),
    }.get(platform)
    assert quota == expected


def test_tiktok_reports_its_quota_as_spent_when_the_daily_cap_is_reached(tiktok_fake):
    tiktok_fake.daily_cap_reached = True
    assert make_client(tiktok_fake).publish_quota() == Quota(used=1, limit=1)


def test_instagram_quota_counts_the_post_just_published(instagram_fake):
    client = make_client(instagram_fake)
    client.publish(main_request("instagram"))
    assert client.publish_quota() == Quota(used=4, limit=100)


# ---- validation before any call --------------------------------------------------------------

REFUSED = {
    "instagram": PostRequest(caption="png", media=[image(ctype="image/png")]),
    "facebook": PostRequest(caption="landscape reel", media=[video(size=(1920, 1080))], post_type="reel"),
    "tiktok": PostRequest(caption="png photo", media=[image(ctype="image/png")]),
    "youtube": PostRequest(caption="an image", title="Image", media=[image()]),
    "linkedin": PostRequest(caption="webp", media=[image(ctype="image/webp")]),
    "x": PostRequest(caption="five images", media=[image(str(i)) for i in range(5)]),
    "threads": PostRequest(caption="x" * 501),
    "pinterest": PostRequest(caption="no board", media=[image()]),
}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_request_the_platform_would_refuse_fails_before_any_call(platform, make_fake):
    fake = make_fake(platform)
    with pytest.raises(PlatformError) as caught:
        make_client(fake).publish(REFUSED[platform])
    assert not caught.value.retryable
    assert fake.requests == []


# ---- pieces of the shared machinery ------------------------------------------------------


def test_every_platform_has_a_registered_client():
    assert {get_client_class(p).platform for p in PLATFORMS} == set(PLATFORMS)
    with pytest.raises(KeyError):
        get_client_class("myspace")


def test_retry_after_reads_seconds_dates_epoch_resets_and_meta_usage_headers():
    now = 1_800_000_000.0
    assert retry_after_from_headers({"Retry-After": "17"}, now) == 17
    assert retry_after_from_headers({"Retry-After": formatdate(now + 45, usegmt=True)}, now) == 45
    assert retry_after_from_headers({"x-rate-limit-reset": str(int(now) + 90)}, now) == 90
    usage = '{"123": [{"type": "pages", "estimated_time_to_regain_access": 5}]}'
    assert retry_after_from_headers({"X-Business-Use-Case-Usage": usage}, now) == 300
    assert retry_after_from_headers({}, now) is None


def test_tiktok_chunks_follow_the_documented_rules():
    assert chunk_plan(3 * MB, 10 * MB) == [(0, 3 * MB - 1)]
    plan = chunk_plan(25 * MB, 10 * MB)
    assert plan == [(0, 10 * MB - 1), (10 * MB, 25 * MB - 1)]


def test_linkedin_escapes_reserved_characters_and_keeps_hashtags():
    assert little_text("Hi (all) @you #Launch_2 *now*") == (
        "Hi \\(all\\) \\@you {hashtag|\\#|Launch\\_2} \\*now\\*"
    )
