"""What the platforms enforce, against fakes that enforce it the same way: scopes, token
lifetimes, polling rates and back-off, post ids that come after moderation (issue 14)."""

from __future__ import annotations

import json

import pytest

from apps.publishing.platforms.base import OutcomeUnknown, PlatformError, PostRequest
from apps.publishing.platforms.meta import usage_hold_off
from tests.publishing.conftest import client_for
from tests.publishing.fakes import FakeClock
from tests.publishing.test_platform_clients import image, main_request, make_client, video

TIKTOK_PUBLISH = {"user.info.basic", "video.publish", "video.upload"}


@pytest.fixture
def clock():
    return FakeClock(start=1_800_000_000.0)


# ---- TikTok: the post id after moderation, status/fetch at 30 a minute ---------------------


def test_a_public_tiktok_post_stays_pending_until_moderation_gives_its_id(tiktok_fake, clock):
    tiktok_fake.clock = clock
    tiktok_fake.moderation_seconds = 3600  # "in some cases, moderation may take a few hours"
    tiktok_fake.processing_polls = 0
    client = make_client(tiktok_fake)
    client.settle_timeout = 0  # hand the post back at once (the service's poller follows it)
    result = client.publish(main_request("tiktok"))

    [post] = tiktok_fake.posts
    assert result.pending and result.external_id == "" and result.url == ""
    assert result.state == {
        "publish_id": post["publish_id"],
        "kind": "video",
        "username": "postforge_test",
        "public": True,
        "privacy_level": "PUBLIC_TO_EVERYONE",  # the publication's visibility once done (issue 22)
        "status": "PUBLISH_COMPLETE",
    }
    again = client.check_pending(result.state)
    assert again.pending  # still in moderation: no id yet
    clock.advance(3600)
    done = client.check_pending(again.state)
    assert not done.pending and done.external_id == post["id"]
    assert done.url == f"https://www.tiktok.com/@postforge_test/video/{post['id']}"
    assert len(tiktok_fake.posts) == 1 and len(tiktok_fake.calls("video_init")) == 1


def test_a_private_tiktok_post_is_done_at_publish_complete_with_its_publish_id(tiktok_fake):
    result = make_client(tiktok_fake).publish(
        PostRequest(caption="Only me", media=[video()], privacy="private")
    )
    assert (
        not result.pending and result.external_id == tiktok_fake.posts[0]["publish_id"] and result.url == ""
    )


def test_a_failed_tiktok_post_reported_by_a_later_read_is_a_permanent_failure(tiktok_fake):
    tiktok_fake.fail_processing("video_pull_failed")
    tiktok_fake.processing_polls = 50
    client = make_client(tiktok_fake)
    client.settle_timeout = 0
    result = client.publish(main_request("tiktok"))
    assert result.pending
    entry = tiktok_fake.publishes[result.state["publish_id"]]
    entry["polls_left"] = 0
    with pytest.raises(PlatformError) as caught:
        client.check_pending(result.state)
    assert caught.value.code == "media_processing_failed" and "video_pull_failed" in caught.value.message


def test_tiktok_settles_with_a_back_off_within_status_fetch_rate(tiktok_fake, clock):
    tiktok_fake.processing_polls = 100
    waits: list[float] = []

    def sleep(seconds):
        waits.append(seconds)
        clock.advance(seconds)

    client = client_for(tiktok_fake, poll_interval=None, sleep=sleep, clock=clock, poll_timeout=300)
    client.chunk_size = 5 * 1024 * 1024
    result = client.publish(main_request("tiktok"))
    assert result.pending
    # 2, 5, then every 10 s, within the 30 s settle budget: at most 6 reads a minute
    assert waits == [2, 5, 10, 10]
    assert len(tiktok_fake.calls("status_fetch")) == 5


def test_the_fake_refuses_status_fetch_past_30_calls_a_minute_per_token(tiktok_fake, clock):
    tiktok_fake.clock = clock
    tiktok_fake.processing_polls = 1000
    client = make_client(tiktok_fake)
    client.settle_timeout = 0
    state = client.publish(main_request("tiktok")).state
    for _ in range(29):  # the publish made one read already
        assert client.check_pending(state).pending
    with pytest.raises(PlatformError) as caught:
        client.check_pending(state)
    error = caught.value
    assert error.status_code == 429 and error.code == "rate_limit_exceeded"
    assert error.retryable and 0 < error.retry_after <= 61
    clock.advance(60)
    assert client.check_pending(state).pending


def test_a_tiktok_token_dies_after_its_24_hours(tiktok_fake, clock):
    tiktok_fake.clock = clock
    token = tiktok_fake.issue("act.day-token", scopes=TIKTOK_PUBLISH, lifetime=tiktok_fake.token_lifetime)
    client = client_for(tiktok_fake, access_token=token)
    assert client.fetch_account().username == "postforge_test"
    clock.advance(86399)
    client.publish_quota()
    clock.advance(1)
    with pytest.raises(PlatformError) as caught:
        client.fetch_account()
    assert caught.value.token_expired and caught.value.code == "access_token_invalid"


def test_tiktok_refuses_reconciliation_without_video_list_as_a_scope_error(tiktok_fake):
    token = tiktok_fake.issue("act.no-list", scopes=TIKTOK_PUBLISH)
    client = client_for(tiktok_fake, access_token=token)
    with pytest.raises(PlatformError) as caught:
        client.find_published(main_request("tiktok"))
    error = caught.value
    assert error.status_code == 401 and error.code == "scope_not_authorized"
    assert not error.token_expired and not error.retryable
    assert client.publish_quota().remaining == 1  # the rest of the grant still works


# ---- LinkedIn: the post URN in x-restli-id ----------------------------------------------------


def test_linkedin_names_the_post_from_x_restli_id(linkedin_fake):
    result = make_client(linkedin_fake).publish(main_request("linkedin"))
    assert result.external_id == linkedin_fake.posts[0]["id"]
    assert result.external_id.startswith("urn:li:share:")


def test_a_linkedin_create_answered_without_x_restli_id_is_an_unknown_outcome(linkedin_fake):
    linkedin_fake.omit_restli_id = True
    with pytest.raises(OutcomeUnknown):
        make_client(linkedin_fake).publish(main_request("linkedin"))
    assert len(linkedin_fake.posts) == 1  # it exists: failing it would post it again


def test_linkedin_refuses_the_author_finder_without_the_partner_permission(linkedin_fake):
    token = linkedin_fake.issue("li-member", scopes={"openid", "profile", "email", "w_member_social"})
    client = client_for(linkedin_fake, access_token=token)
    client.publish(main_request("linkedin"))
    with pytest.raises(PlatformError) as caught:
        client.find_published(main_request("linkedin"))
    error = caught.value
    assert error.status_code == 403 and error.code == "ACCESS_DENIED"
    assert not error.token_expired and "grant it" in error.message


# ---- Meta: container polling with back-off and the usage headers ----------------------------


def test_instagram_polls_its_container_with_back_off(instagram_fake, clock):
    instagram_fake.processing_polls = 5
    waits: list[float] = []

    def sleep(seconds):
        waits.append(seconds)
        clock.advance(seconds)

    client = client_for(instagram_fake, poll_interval=None, sleep=sleep, clock=clock, poll_timeout=300)
    client.publish(PostRequest(caption="Reel", media=[video()], post_type="reel"))
    assert waits == [2, 5, 10, 20, 30]
    assert len(instagram_fake.posts) == 1


def test_instagram_polling_gives_up_within_five_minutes_as_retryable(instagram_fake, clock):
    instagram_fake.processing_polls = 100
    waits: list[float] = []

    def sleep(seconds):
        waits.append(seconds)
        clock.advance(seconds)

    client = client_for(instagram_fake, poll_interval=None, sleep=sleep, clock=clock, poll_timeout=300)
    with pytest.raises(PlatformError) as caught:
        client.publish(PostRequest(caption="Reel", media=[video()], post_type="reel"))
    assert caught.value.code == "processing_timeout" and caught.value.retryable
    assert sum(waits) <= 300 and waits[-3:] == [60, 60, 60]
    assert not instagram_fake.posts  # nothing was published: a retry is safe


def test_meta_usage_headers_slow_the_polls_to_once_a_minute(instagram_fake, clock):
    instagram_fake.clock = clock
    instagram_fake.usage_calls = [clock()] * (instagram_fake.call_budget * 8 // 10)  # 80 % of the budget used
    instagram_fake.processing_polls = 3
    waits: list[float] = []

    def sleep(seconds):
        waits.append(seconds)
        clock.advance(seconds)

    client = client_for(instagram_fake, poll_interval=None, sleep=sleep, clock=clock, poll_timeout=300)
    client.publish(PostRequest(caption="Reel", media=[video()], post_type="reel"))
    assert waits == [60, 60, 60]  # not 2, 5, 10: past 75 % the reads wait a minute
    assert len(instagram_fake.posts) == 1


def test_a_meta_throttle_is_retryable_after_the_regain_time_it_gives(instagram_fake, clock):
    instagram_fake.clock = clock
    instagram_fake.usage_calls = [clock() - 600] * instagram_fake.call_budget
    with pytest.raises(PlatformError) as caught:
        make_client(instagram_fake).publish(main_request("instagram"))
    error = caught.value
    assert error.code == 32 and error.retryable
    assert error.retry_after == 3000  # estimated_time_to_regain_access: 50 minutes
    assert not instagram_fake.posts


def test_usage_headers_read_as_meta_documents_them():
    assert (
        usage_hold_off({"X-App-Usage": json.dumps({"call_count": 10, "total_cputime": 3, "total_time": 4})})
        == 0
    )
    assert (
        usage_hold_off({"X-App-Usage": json.dumps({"call_count": 80, "total_cputime": 3, "total_time": 4})})
        == 60
    )
    buc = {
        "17841400000000001": [
            {
                "type": "instagram",
                "call_count": 100,
                "total_cputime": 20,
                "total_time": 30,
                "estimated_time_to_regain_access": 12,
            }
        ]
    }
    assert usage_hold_off({"X-Business-Use-Case-Usage": json.dumps(buc)}) == 720
    assert usage_hold_off({"X-App-Usage": "not json"}) == 0


def test_instagram_refuses_a_first_comment_without_its_permission_and_the_post_stays(instagram_fake):
    token = instagram_fake.issue(
        "ig-no-comments", scopes={"instagram_business_basic", "instagram_business_content_publish"}
    )
    result = client_for(instagram_fake, access_token=token).publish(main_request("instagram"))
    assert result.external_id == instagram_fake.posts[0]["id"]
    assert "(#10)" in result.raw["first_comment"]["error"]


# ---- X: check_after_secs ---------------------------------------------------------------------


def test_x_waits_as_long_as_check_after_secs_says(x_fake):
    x_fake.check_after_secs = 7
    x_fake.processing_polls = 2
    client = client_for(x_fake, poll_timeout=300)
    client.segment_size = 256 * 1024
    client.publish(PostRequest(caption="Clip", media=[video()]))
    # before the first STATUS read and after each read still in progress
    assert client.slept[:3] == [7, 7, 7]
    assert len(x_fake.calls("status")) == 3


# ---- Google: a missing scope is not an expired token -----------------------------------------


def test_youtube_refuses_a_first_comment_without_force_ssl_and_the_video_stays(youtube_fake, clock):
    youtube_fake.clock = clock
    token = youtube_fake.issue(
        "ya29.upload-only",
        scopes={"https://www.googleapis.com/auth/youtube.upload"},
        lifetime=youtube_fake.token_lifetime,
    )
    client = client_for(youtube_fake, access_token=token)
    client.chunk_size = 256 * 1024
    result = client.publish(main_request("youtube"))
    assert result.external_id and "insufficient authentication scopes" in result.raw["first_comment"]["error"]
    clock.advance(3599)
    with pytest.raises(PlatformError) as caught:
        client.fetch_metrics(result.external_id)
    assert caught.value.token_expired


def test_images_keep_working_for_photo_only_flows(tiktok_fake):
    result = make_client(tiktok_fake).publish(PostRequest(caption="Kites", title="Kites", media=[image("a")]))
    assert result.url.endswith(f"/photo/{tiktok_fake.posts[0]['id']}")


# ---- YouTube: containsSyntheticMedia from how the video was made -----------------------------


@pytest.mark.parametrize(
    ("generated", "option", "label"),
    [
        (True, None, True),
        (False, None, False),
        (True, False, False),
        (False, True, True),
    ],
)
def test_youtube_labels_synthetic_media_from_how_it_was_made_unless_the_client_says(
    youtube_fake, generated, option, label
):
    clip = video()
    clip.generated = generated
    options = {} if option is None else {"containsSyntheticMedia": option}
    request = PostRequest(caption="Launch", title="Launch", media=[clip], options=options)
    make_client(youtube_fake).publish(request)
    [start] = youtube_fake.calls("start_upload")
    assert start.json["status"]["containsSyntheticMedia"] is label


# ---- the content's AI flag (issue 32) into YouTube's and TikTok's labels ----------------------


@pytest.mark.parametrize(
    ("case", "label"),
    [
        (("media", False, False, None), True),
        (("both", True, False, None), True),  # a person says the (uploaded) video is AI-made
        (("text", True, False, None), False),  # AI text on a filmed video: no media label
        (("none", False, False, None), False),
        (("none", True, True, None), False),  # a person's flag is not second-guessed by the media
        (("text", False, True, None), True),  # a computed flag behind the media: the video still counts
        (("", False, True, None), True),  # no flag known: how the video was made, as before
        (("both", True, True, False), False),  # the explicit option wins
        (("none", True, False, True), True),
    ],
)
@pytest.mark.parametrize("platform", ["youtube", "tiktok"])
def test_the_video_ai_labels_follow_the_contents_flag_unless_the_client_says(request, platform, case, label):
    """(content flag, set by a person, video generated by our engines, containsSyntheticMedia option)"""
    flag, by_person, generated, option = case
    fake = request.getfixturevalue(f"{platform}_fake")
    clip = video()
    clip.generated = generated
    options = {} if option is None else {"containsSyntheticMedia": option}
    post = PostRequest(
        caption="Launch",
        title="Launch",
        media=[clip],
        options=options,
        ai_generated=flag,
        ai_generated_by_person=by_person,
    )
    make_client(fake).publish(post)
    if platform == "youtube":
        [start] = fake.calls("start_upload")
        assert start.json["status"]["containsSyntheticMedia"] is label
    else:
        [init] = fake.calls("video_init")
        assert init.json["post_info"]["is_aigc"] is label


def test_a_tiktok_profile_says_its_app_posts_only_privately_until_audited(settings):
    from apps.platforms.features import features_allowed

    settings.TIKTOK_APP_AUDITED = False
    [publish] = [f for f in features_allowed("tiktok", "video.publish") if f["feature"] == "publish"]
    assert "SELF_ONLY" in publish["note"]
    settings.TIKTOK_APP_AUDITED = True
    [publish] = [f for f in features_allowed("tiktok", "video.publish") if f["feature"] == "publish"]
    assert publish["note"] is None


# ---- Facebook and Threads: the permission each feature needs ----------------------------------


def test_facebook_refuses_a_first_comment_without_pages_manage_engagement_and_the_post_stays(facebook_fake):
    token = facebook_fake.issue(
        "page-no-engagement", scopes={"pages_show_list", "pages_manage_posts", "pages_read_engagement"}
    )
    result = client_for(facebook_fake, access_token=token).publish(main_request("facebook"))
    assert result.external_id == facebook_fake.posts[0]["id"]
    assert "(#200) Requires pages_manage_engagement" in result.raw["first_comment"]["error"]


def test_threads_refuses_a_reply_without_threads_manage_replies_and_the_post_stays(threads_fake):
    token = threads_fake.issue("th-no-replies", scopes={"threads_basic", "threads_content_publish"})
    result = client_for(threads_fake, access_token=token).publish(main_request("threads"))
    assert result.external_id == threads_fake.posts[0]["id"]
    assert "threads_manage_replies" in result.raw["first_comment"]["error"]


def test_a_graph_permission_error_is_a_scope_error_not_an_expired_token(facebook_fake):
    token = facebook_fake.issue("page-read-only", scopes={"pages_show_list", "pages_read_engagement"})
    with pytest.raises(PlatformError) as caught:
        client_for(facebook_fake, access_token=token).publish(main_request("facebook"))
    error = caught.value
    assert error.code == 200 and error.status_code == 403
    assert not error.token_expired and not error.retryable and "grant it" in error.message
    assert not facebook_fake.posts


# ---- TikTok: a lost answer to the last upload chunk is settled from the publish id ------------


def test_a_lost_answer_to_tiktoks_last_chunk_is_settled_from_the_publish_id(tiktok_fake):
    tiktok_fake.drop_after_create()  # the last chunk arrives, its answer does not
    result = make_client(tiktok_fake).publish(main_request("tiktok"))
    [post] = tiktok_fake.posts
    assert result.external_id == post["id"] and len(tiktok_fake.calls("upload_chunk")) == 1
    assert not tiktok_fake.calls("video_list")  # no video.list needed


def test_a_last_chunk_that_never_arrived_is_sent_again_once(tiktok_fake):
    tiktok_fake.fail_next("drop", when="upload_chunk")  # the connection drops before TikTok reads it
    result = make_client(tiktok_fake).publish(main_request("tiktok"))
    [post] = tiktok_fake.posts
    assert result.external_id == post["id"] and len(tiktok_fake.calls("upload_chunk")) == 2
    assert len(tiktok_fake.calls("video_init")) == 1


def test_x_refuses_the_101st_post_in_15_minutes_and_says_when_to_come_back(x_fake):
    clock = FakeClock()
    x_fake.clock = clock
    client = make_client(x_fake)
    for n in range(100):
        client.publish(PostRequest(caption=f"Post {n}"))
    with pytest.raises(PlatformError) as caught:
        client.publish(PostRequest(caption="One too many"))
    error = caught.value
    assert error.status_code == 429 and error.retryable and 850 <= error.retry_after <= 902
    assert len(x_fake.posts) == 100
    clock.advance(900)
    client.publish(PostRequest(caption="After the window"))
    assert len(x_fake.posts) == 101


# ---- X and Pinterest: a permission missing from the grant -----------------------------------

X_PUBLISH = {"tweet.read", "tweet.write", "users.read", "media.write", "offline.access"}
PINTEREST_PUBLISH = {"boards:read", "pins:read", "pins:write", "user_accounts:read"}


def test_x_refuses_a_media_upload_without_media_write_as_a_scope_error(x_fake):
    token = x_fake.issue("x-no-media", scopes=X_PUBLISH - {"media.write"})
    client = client_for(x_fake, access_token=token)
    with pytest.raises(PlatformError) as caught:
        client.publish(main_request("x"))
    error = caught.value
    assert error.raw == {"title": "Forbidden", "detail": "Forbidden", "type": "about:blank", "status": 403}
    assert error.status_code == 403 and error.scope_missing
    assert not error.token_expired and not error.retryable
    assert error.message == (
        "Forbidden (about:blank: the profile's grant lacks a permission this feature needs; "
        "reconnect the profile and grant it)"
    )
    assert not x_fake.posts and not x_fake.calls("append")  # refused at the first upload call
    assert client.fetch_account().username == "postforge_test"  # the rest of the grant still works


def test_x_needs_every_scope_an_endpoint_lists(x_fake):
    token = x_fake.issue("x-no-write", scopes=X_PUBLISH - {"tweet.write"})
    with pytest.raises(PlatformError) as caught:
        client_for(x_fake, access_token=token).publish(PostRequest(caption="Text only", reference="pub_1"))
    assert caught.value.scope_missing and caught.value.status_code == 403
    assert not x_fake.posts
    # with the full grant the same post goes out
    full = x_fake.issue("x-full", scopes=X_PUBLISH)
    assert (
        client_for(x_fake, access_token=full)
        .publish(PostRequest(caption="Text only", reference="pub_1"))
        .external_id
    )


def test_an_x_refusal_that_says_why_is_not_a_scope_error(x_fake):
    x_fake.fail_next("bad_request")  # 403 "You are not allowed to create a Tweet with duplicate content."
    with pytest.raises(PlatformError) as caught:
        make_client(x_fake).publish(main_request("x"))
    assert caught.value.status_code == 403 and not caught.value.scope_missing
    assert caught.value.message == x_fake.permanent_error_message


def test_pinterest_refuses_a_pin_without_pins_write_as_a_scope_error_not_an_expired_token(pinterest_fake):
    token = pinterest_fake.issue("pina-read-only", scopes=PINTEREST_PUBLISH - {"pins:write"})
    client = client_for(pinterest_fake, access_token=token)
    with pytest.raises(PlatformError) as caught:
        client.publish(main_request("pinterest"))
    error = caught.value
    assert error.raw == {
        "code": 3,
        "message": "Your token does not have sufficient permissions to perform this "
        "operation. Please ensure your token is authorized with the correct "
        "set of scopes.",
    }
    assert error.status_code == 401 and error.code == 3 and error.scope_missing
    assert not error.token_expired and not error.retryable
    assert "reconnect the profile and grant it" in error.message
    assert not pinterest_fake.posts
    assert client.fetch_account().username == "postforge_test"


def test_pinterests_expired_token_is_still_an_expired_token(pinterest_fake):
    with pytest.raises(PlatformError) as caught:
        client_for(pinterest_fake, access_token="pina-stale").publish(main_request("pinterest"))
    assert caught.value.status_code == 401 and caught.value.code == 2
    assert caught.value.token_expired and not caught.value.scope_missing
