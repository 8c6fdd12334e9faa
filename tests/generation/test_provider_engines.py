"""Provider engine adapters against local fakes that speak each provider's wire format.

The real SDKs (openai, google-genai, replicate) make real HTTP requests to the fakes in
tests/generation/provider_fakes.py; nothing is mocked.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import time

import av
import pytest
from PIL import Image

from apps.generation.base import (
    BrandVoice,
    EngineError,
    IdeasRequest,
    ImageRequest,
    ImageResult,
    TextRequest,
    VideoRequest,
)
from apps.generation.gemini_engine import GeminiEngine
from apps.generation.openai_engine import OpenAIEngine
from apps.generation.replicate_engine import (
    ReplicateEngine,
    WebhookVerificationError,
    verify_replicate_webhook,
)

from .provider_fakes import (
    GeminiFake,
    OpenAIFake,
    ReplicateFake,
    WebhookReceiver,
    b64decode_any,
    make_png,
    sign_replicate_webhook,
)

BRAND = BrandVoice(
    name="Bean There",
    voice="warm, witty, coffee-nerdy",
    tone="playful",
    system_prompt="You speak for a small roastery in Porto.",
    audience="young professionals",
    hashtags=("#BeanThere",),
    do=("mention the weekend tasting",),
    dont=("mention competitors",),
    primary_color="#6B3E26",
    secondary_color="#F2D0A4",
)
TEXT_REQUEST = TextRequest(
    prompt="our new Ethiopian single origin",
    platform="instagram",
    tone="playful",
    length="short",
    hashtag_count=4,
    language="pt",
    creativity=7,
    brand=BRAND,
    seed=3,
)


def _image_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as img:
        return img.size


def _video_info(data: bytes) -> dict:
    with av.open(io.BytesIO(data)) as c:
        v = c.streams.video[0]
        return {
            "codec": v.codec_context.name,
            "size": (v.codec_context.width, v.codec_context.height),
            "audio": bool(c.streams.audio),
            "seconds": c.duration / 1_000_000,
        }


@pytest.fixture
def openai_fake():
    with OpenAIFake() as fake:
        yield fake


@pytest.fixture
def openai_engine(openai_fake):
    return OpenAIEngine(
        api_key="sk-test",
        base_url=openai_fake.base_url,
        text_model="gpt-test-mini",
        image_model="gpt-image-1",
        video_model="sora-2",
        max_retries=0,
        timeout=10,
        video_poll_interval=0,
    )


@pytest.fixture
def gemini_fake():
    with GeminiFake() as fake:
        yield fake


@pytest.fixture
def gemini_engine(gemini_fake):
    return GeminiEngine(
        api_key="gm-test",
        base_url=gemini_fake.url,
        text_model="gemini-test-flash",
        image_model="gemini-test-image",
        video_model="veo-test",
        timeout=10,
        video_poll_interval=0,
    )


REPLICATE_KINDS = {
    "meta/llama-test": "text",
    "bfl/flux-test": "image",
    "bfl/kontext-test": "image",
    "wan/video-test": "video",
    "5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa": "image",
}


@pytest.fixture
def replicate_fake():
    with ReplicateFake(REPLICATE_KINDS) as fake:
        yield fake


def _replicate_engine(fake: ReplicateFake, **extra) -> ReplicateEngine:
    config = dict(
        api_token="r8_test",
        base_url=fake.url,
        text_model="meta/llama-test",
        image_model="bfl/flux-test",
        edit_model="bfl/kontext-test",
        video_model="wan/video-test",
        webhook_secret=fake.webhook_secret,
        poll_interval=0,
        max_wait=10,
        timeout=10,
    )
    config.update(extra)
    return ReplicateEngine(**config)


# ---------------------------------------------------------------------------------------
# OpenAI
# ---------------------------------------------------------------------------------------


def test_openai_text_asks_for_every_platform_in_the_brand_voice_and_parses_it(openai_engine, openai_fake):
    request = dataclasses.replace(TEXT_REQUEST, platforms=("instagram", "x"))
    results = openai_engine.texts(request)

    (req,) = openai_fake.requests_to("/v1/chat/completions")
    body = req.json
    assert body["model"] == "gpt-test-mini"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["instagram", "x"]
    assert body["seed"] == 3
    assert 0.7 < body["temperature"] < 0.9
    system = body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    assert body["messages"][0]["role"] == "system"
    assert system.startswith("You speak for a small roastery in Porto.")
    assert "warm, witty, coffee-nerdy" in system and '"mention competitors"' in system
    assert "'pt'" in system and "At most 4 per platform" in system and "#BeanThere" in system
    assert "instagram (Instagram): A hook line" in user and "x (X): One idea" in user
    assert "our new Ethiopian single origin" in user
    # the fake model answers each platform with its own opener around the brief
    assert results["instagram"].caption == "Big news from us. our new Ethiopian single origin Link in bio."
    assert results["x"].caption == "our new Ethiopian single origin"
    assert results["instagram"].alt_text == "The product on a table"


def test_openai_text_reads_fenced_json_and_one_platform_may_answer_a_bare_post(openai_fake):
    engine = OpenAIEngine(
        api_key="sk-test",
        base_url=openai_fake.base_url,
        text_model="local-llama",
        json_mode="json_object",
        max_retries=0,
    )
    reply = {
        "caption": "Olá! ☕ coffee",
        "hashtags": "#cafe #porto",
        "first_comment": "",
        "alt_text": "Cup",
    }
    openai_fake.chat_replies.append("Sure! Here it is:\n```json\n" + json.dumps(reply) + "\n```\nEnjoy.")

    result = engine.text(TextRequest(prompt="coffee", platform="x", include_emojis=False))

    body = openai_fake.requests_to("/v1/chat/completions")[0].json
    assert body["model"] == "local-llama"
    assert body["response_format"] == {"type": "json_object"}
    assert result.caption == "Olá! coffee"  # emojis stripped when the request says no emojis
    assert result.hashtags == ["#cafe", "#porto"]
    assert (result.title, result.sounds) == ("", [])  # optional keys default to empty


def test_openai_text_without_a_caption_or_json_gets_repair_turns_then_a_clear_error(
    openai_engine, openai_fake
):
    openai_fake.chat_replies += [json.dumps({"instagram": {"hashtags": []}}), "I cannot produce JSON today."]
    openai_fake.chat_replies.append("Still no JSON.")
    with pytest.raises(EngineError) as err:
        openai_engine.text(TEXT_REQUEST)
    assert str(err.value) == (
        "openai: the reply still breaks the rules after 2 repair turn(s): Your reply is not a JSON object. "
        "Reply with the JSON object only, keyed by instagram."
    )
    assert not err.value.retryable
    second = openai_fake.requests_to("/v1/chat/completions")[1].json
    assert second["messages"][-1]["content"].startswith(
        'Your reply needs these fixes:\n- instagram: "caption" is missing.'
    )


def test_openai_refusal_and_content_policy_errors_are_not_retryable(openai_engine, openai_fake):
    openai_fake.chat_refusal = "I can't help with that."
    with pytest.raises(EngineError, match="refused") as err:
        openai_engine.text(TEXT_REQUEST)
    assert not err.value.retryable

    openai_fake.fail(
        400,
        "Your request was rejected as a result of our safety system.",
        path_contains="/images/generations",
        code="content_policy_violation",
    )
    with pytest.raises(EngineError, match="content policy") as err:
        openai_engine.image(ImageRequest(prompt="x", width=100, height=100))
    assert not err.value.retryable


def test_openai_ideas_come_back_as_a_list_of_the_requested_length(openai_engine, openai_fake):
    openai_fake.chat_replies.append(
        json.dumps({"ideas": ["Latte art reel", "Meet the roaster", "Bean origins", "Tasting notes quiz"]})
    )
    ideas = openai_engine.ideas(IdeasRequest(topic="autumn menu", count=3, platform="tiktok", brand=BRAND))
    assert ideas == ["Latte art reel", "Meet the roaster", "Bean origins"]
    body = openai_fake.requests_to("/v1/chat/completions")[0].json
    assert "autumn menu" in body["messages"][1]["content"] and "tiktok" in body["messages"][1]["content"]


def test_openai_image_is_generated_at_the_nearest_supported_size_and_fitted_exactly(
    openai_engine, openai_fake
):
    result = openai_engine.image(
        ImageRequest(
            prompt="a latte on a marble table",
            width=1080,
            height=1350,
            style="illustration",
            brand=BRAND,
            format="JPEG",
        )
    )

    (req,) = openai_fake.requests_to("/v1/images/generations")
    assert req.json["model"] == "gpt-image-1"
    assert req.json["size"] == "1024x1536"
    assert "response_format" not in req.json  # GPT Image models always return b64_json
    assert "a latte on a marble table" in req.json["prompt"] and "#6B3E26" in req.json["prompt"]
    assert "illustration" in req.json["prompt"]
    assert result.content_type == "image/jpeg"
    assert (result.width, result.height) == (1080, 1350)
    assert _image_size(result.data) == (1080, 1350)


def test_openai_dalle_models_ask_for_b64_json_and_url_answers_are_downloaded(openai_fake):
    engine = OpenAIEngine(
        api_key="sk-test", base_url=openai_fake.base_url, image_model="dall-e-3", max_retries=0
    )
    openai_fake.image_response_as_url = True
    result = engine.image(ImageRequest(prompt="banner", width=1500, height=500))

    req = openai_fake.requests_to("/v1/images/generations")[0]
    assert req.json["response_format"] == "b64_json" and req.json["size"] == "1792x1024"
    assert openai_fake.requests_to("/files/")  # the URL answer was fetched
    assert _image_size(result.data) == (1500, 500) and result.content_type == "image/png"


def test_openai_edit_image_sends_multipart_and_keeps_the_original_size(openai_engine, openai_fake):
    original = make_png(640, 480)
    result = openai_engine.edit_image(image=original, prompt="make it brighter", seed=1)

    (req,) = openai_fake.requests_to("/v1/images/edits")
    assert req.headers["content-type"].startswith("multipart/form-data")
    assert req.form["model"] == "gpt-image-1" and req.form["prompt"] == "make it brighter"
    assert req.form["size"] == "1536x1024"  # nearest supported aspect to 4:3
    assert req.files["image"][2] == original
    assert isinstance(result, ImageResult) and _image_size(result.data) == (640, 480)
    with Image.open(io.BytesIO(result.data)) as edited, Image.open(io.BytesIO(original)) as before:
        assert sum(edited.convert("L").getdata()) > sum(before.convert("L").getdata())


def test_openai_reference_images_go_through_the_edit_endpoint(openai_engine, openai_fake):
    result = openai_engine.image(
        ImageRequest(prompt="same vibe, autumn", width=1080, height=1920, reference=make_png(300, 300))
    )
    req = openai_fake.requests_to("/v1/images/edits")[0]
    assert req.form["size"] == "1024x1536" and "reference image" in req.form["prompt"]
    assert _image_size(result.data) == (1080, 1920)


def test_openai_video_is_created_polled_downloaded_and_fitted_to_the_request(openai_engine, openai_fake):
    result = openai_engine.video(
        VideoRequest(prompt="pour-over in slow motion", width=540, height=960, seconds=6, brand=BRAND)
    )

    (create,) = openai_fake.requests_to("/v1/videos", method="POST")
    assert create.form == {
        "model": "sora-2",
        "prompt": create.form["prompt"],
        "size": "720x1280",
        "seconds": "8",
    }
    assert "pour-over in slow motion" in create.form["prompt"]
    assert len(openai_fake.requests_to("/v1/videos/", method="GET")) >= 3  # polls + content
    info = _video_info(result.data)
    assert info["codec"] == "h264" and info["size"] == (540, 960) and info["audio"]
    assert (result.width, result.height) == (540, 960) and 0 < result.seconds <= 6
    assert _image_size(result.thumbnail) == (540, 960)


def test_openai_video_blocked_by_moderation_is_not_retryable(openai_engine, openai_fake):
    openai_fake.video_failure = ("moderation_blocked", "Your request was blocked by our moderation system.")
    with pytest.raises(EngineError, match="moderation") as err:
        openai_engine.video(VideoRequest(prompt="x", width=720, height=1280))
    assert not err.value.retryable


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (429, None, True),
        (500, None, True),
        (503, None, True),
        (400, None, False),
        (401, None, False),
        (403, None, False),
        (429, "insufficient_quota", False),
    ],
)
def test_openai_http_errors_map_to_engine_errors_with_the_right_retryable_flag(
    openai_engine, openai_fake, status, code, retryable
):
    openai_fake.fail(status, f"provider says {status}", path_contains="/chat/completions", code=code)
    with pytest.raises(EngineError) as err:
        openai_engine.text(TEXT_REQUEST)
    assert err.value.retryable is retryable
    assert f"provider says {status}" in str(err.value) and str(status) in str(err.value)


def test_openai_timeouts_and_unreachable_servers_are_retryable(openai_fake):
    slow = OpenAIEngine(api_key="sk-test", base_url=openai_fake.base_url, max_retries=0, timeout=0.2)
    openai_fake.delay = 0.6
    with pytest.raises(EngineError, match="timed out") as err:
        slow.text(TEXT_REQUEST)
    assert err.value.retryable
    openai_fake.close()
    engine = OpenAIEngine(api_key="sk-test", base_url=openai_fake.base_url, max_retries=0, timeout=2)
    with pytest.raises(EngineError, match="connection") as err:
        engine.text(TEXT_REQUEST)
    assert err.value.retryable


# ---------------------------------------------------------------------------------------
# Gemini
# ---------------------------------------------------------------------------------------


def test_gemini_text_uses_generate_content_with_a_json_mime_type(gemini_engine, gemini_fake):
    result = gemini_engine.text(TEXT_REQUEST)

    (req,) = gemini_fake.requests_to(":generateContent")
    assert req.path == "/v1beta/models/gemini-test-flash:generateContent"
    assert req.headers["x-goog-api-key"] == "gm-test"
    config = req.json["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["seed"] == 3 and "responseJsonSchema" in config
    system = " ".join(p["text"] for p in req.json["systemInstruction"]["parts"])
    assert "warm, witty, coffee-nerdy" in system
    assert "our new Ethiopian single origin" in req.json["contents"][0]["parts"][0]["text"]
    assert config["responseJsonSchema"]["required"] == ["instagram"]
    assert result.caption == "Big news from us. our new Ethiopian single origin Link in bio."


def test_gemini_ideas_are_parsed_from_json(gemini_engine, gemini_fake):
    gemini_fake.text_replies.append('```json\n{"ideas": ["One", "Two"]}\n```')
    assert gemini_engine.ideas(IdeasRequest(topic="brunch", count=5)) == ["One", "Two"]


def test_gemini_image_uses_the_image_model_and_is_fitted_to_the_exact_size(gemini_engine, gemini_fake):
    result = gemini_engine.image(
        ImageRequest(prompt="cold brew bottles", width=1080, height=1350, brand=BRAND)
    )

    (req,) = gemini_fake.requests_to(":generateContent")
    assert req.path == "/v1beta/models/gemini-test-image:generateContent"
    assert req.json["generationConfig"]["responseModalities"] == ["IMAGE"]
    assert req.json["generationConfig"]["imageConfig"]["aspectRatio"] == "4:5"
    assert "cold brew bottles" in req.json["contents"][0]["parts"][0]["text"]
    assert (result.width, result.height) == (1080, 1350) and _image_size(result.data) == (1080, 1350)


def test_gemini_edit_sends_the_image_inline_and_keeps_its_size(gemini_engine, gemini_fake):
    original = make_png(500, 500)
    result = gemini_engine.edit_image(image=original, prompt="black and white")

    (req,) = gemini_fake.requests_to(":generateContent")
    parts = req.json["contents"][0]["parts"]
    inline = next(p["inlineData"] for p in parts if "inlineData" in p)
    # the SDK sends the blob's proto field names (mime_type), which the API accepts like mimeType
    assert (inline.get("mimeType") or inline.get("mime_type")) == "image/png"
    assert b64decode_any(inline["data"]) == original
    assert any("black and white" in p.get("text", "") for p in parts)
    assert _image_size(result.data) == (500, 500)


def test_gemini_veo_video_runs_as_a_long_running_operation_and_is_downloaded(gemini_engine, gemini_fake):
    gemini_fake.operation_polls_until_done = 3
    result = gemini_engine.video(
        VideoRequest(
            prompt="steam rising from a cup",
            width=720,
            height=1280,
            seconds=6,
            brand=BRAND,
            reference=make_png(90, 160),
        )
    )

    (start,) = gemini_fake.requests_to(":predictLongRunning")
    assert start.path == "/v1beta/models/veo-test:predictLongRunning"
    assert start.json["parameters"] == {
        "aspectRatio": "9:16",
        "durationSeconds": 6,
        "sampleCount": 1,
        "negativePrompt": "mention competitors",
    }
    instance = start.json["instances"][0]
    assert "steam rising from a cup" in instance["prompt"] and instance["image"]["mimeType"] == "image/png"
    assert len(gemini_fake.requests_to("/operations/")) == 3
    assert len(gemini_fake.requests_to(":download")) == 1
    info = _video_info(result.data)
    assert info["size"] == (720, 1280) and info["codec"] == "h264" and info["audio"]
    assert result.content_type == "video/mp4" and result.thumbnail[:2] == b"\xff\xd8"


def test_gemini_blocked_prompts_and_filtered_videos_are_not_retryable(gemini_engine, gemini_fake):
    gemini_fake.block_reason = "SAFETY"
    with pytest.raises(EngineError, match="blocked") as err:
        gemini_engine.text(TEXT_REQUEST)
    assert not err.value.retryable

    gemini_fake.video_filtered_reason = "The prompt could not be submitted: it violates usage guidelines."
    with pytest.raises(EngineError, match="content policy") as err:
        gemini_engine.video(VideoRequest(prompt="x", width=1280, height=720))
    assert not err.value.retryable


@pytest.mark.parametrize(
    ("status", "path", "retryable"),
    [
        (429, ":generateContent", True),
        (500, ":generateContent", True),
        (503, ":generateContent", True),
        (400, ":generateContent", False),
        (403, ":generateContent", False),
        (429, ":predictLongRunning", True),
        (400, ":predictLongRunning", False),
        (500, "/operations/", True),
    ],
)
def test_gemini_http_errors_map_to_engine_errors_with_the_right_retryable_flag(
    gemini_engine, gemini_fake, status, path, retryable
):
    gemini_fake.fail(status, f"gemini says {status}", path_contains=path)
    with pytest.raises(EngineError) as err:
        if path == ":generateContent":
            gemini_engine.image(ImageRequest(prompt="x", width=64, height=64))
        else:
            gemini_engine.video(VideoRequest(prompt="x", width=1280, height=720))
    assert err.value.retryable is retryable
    assert f"gemini says {status}" in str(err.value)


def test_gemini_timeouts_are_retryable(gemini_fake):
    engine = GeminiEngine(
        api_key="gm-test", base_url=gemini_fake.url, text_model="gemini-test-flash", timeout=0.2
    )
    gemini_fake.delay = 0.6
    with pytest.raises(EngineError, match="timed out") as err:
        engine.text(TEXT_REQUEST)
    assert err.value.retryable


# ---------------------------------------------------------------------------------------
# Replicate
# ---------------------------------------------------------------------------------------


def test_replicate_text_creates_a_prediction_polls_it_and_joins_the_streamed_tokens(replicate_fake):
    engine = _replicate_engine(replicate_fake)
    result = engine.text(TEXT_REQUEST)

    (create,) = replicate_fake.requests_to("/predictions", method="POST")
    assert create.path == "/v1/models/meta/llama-test/predictions"
    assert create.headers["authorization"] == "Bearer r8_test"
    assert "webhook" not in create.json  # no webhook URL configured -> synchronous polling
    assert "warm, witty, coffee-nerdy" in create.json["input"]["system_prompt"]
    assert "our new Ethiopian single origin" in create.json["input"]["prompt"]
    assert len(replicate_fake.requests_to("/v1/predictions/", method="GET")) == 2  # processing, succeeded
    assert result.caption == "Big news from us. our new Ethiopian single origin Link in bio."


def test_replicate_image_and_edit_are_downloaded_and_fitted_exactly(replicate_fake):
    engine = _replicate_engine(replicate_fake)
    image = engine.image(ImageRequest(prompt="espresso macro", width=1080, height=1920, seed=42))
    edited = engine.edit_image(image=make_png(400, 300), prompt="add warm light")

    image_req, edit_req = replicate_fake.requests_to("/predictions", method="POST")
    assert image_req.path == "/v1/models/bfl/flux-test/predictions"
    assert image_req.json["input"]["aspect_ratio"] == "9:16" and image_req.json["input"]["seed"] == 42
    assert edit_req.path == "/v1/models/bfl/kontext-test/predictions"
    assert edit_req.json["input"]["input_image"].startswith("data:image/png;base64,")
    assert _image_size(image.data) == (1080, 1920) and _image_size(edited.data) == (400, 300)


def test_replicate_version_pinned_models_use_the_predictions_endpoint(replicate_fake):
    version = "5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa"
    engine = _replicate_engine(replicate_fake, image_model=f"bfl/flux-test:{version}")
    result = engine.image(ImageRequest(prompt="x", width=300, height=300))
    create = replicate_fake.requests_to("/predictions", method="POST")[0]
    assert create.path == "/v1/predictions" and create.json["version"] == version
    assert _image_size(result.data) == (300, 300)


def test_replicate_video_is_fitted_to_the_request(replicate_fake):
    engine = _replicate_engine(replicate_fake, video_durations=(5, 8))
    result = engine.video(VideoRequest(prompt="beans falling", width=480, height=854, seconds=5))
    create = replicate_fake.requests_to("/predictions", method="POST")[0]
    assert create.json["input"]["aspect_ratio"] == "9:16" and create.json["input"]["duration"] == 5
    assert _video_info(result.data)["size"] == (480, 854) and result.seconds <= 5


def test_replicate_async_submit_then_signed_webhook_then_result(replicate_fake):
    with WebhookReceiver() as receiver:
        engine = _replicate_engine(replicate_fake, webhook_url=receiver.url + "/webhook/replicate")
        request = ImageRequest(prompt="latte art", width=1080, height=1080, format="JPEG")

        prediction_id = engine.submit_image(request)

        create = replicate_fake.requests_to("/predictions", method="POST")[0]
        assert create.json["webhook"] == receiver.url + "/webhook/replicate"
        assert create.json["webhook_events_filter"] == ["completed"]
        delivery = receiver.wait()
        assert delivery.path == "/webhook/replicate"
        payload = engine.verify_webhook(delivery.headers, delivery.body)
        assert payload["id"] == prediction_id and payload["status"] == "succeeded"
        result = engine.result_from_prediction(payload, "image", request=request)
        assert result.content_type == "image/jpeg" and _image_size(result.data) == (1080, 1080)
        assert not replicate_fake.requests_to("/v1/predictions/", method="GET")  # no polling needed


def test_replicate_async_text_result_parses_the_webhook_payload(replicate_fake):
    with WebhookReceiver() as receiver:
        engine = _replicate_engine(replicate_fake, webhook_url=receiver.url + "/webhook/replicate")
        engine.submit_text(TEXT_REQUEST)
        delivery = receiver.wait()
        payload = engine.verify_webhook(delivery.headers, delivery.body, replicate_fake.webhook_secret)
        results = engine.result_from_prediction(payload, "text", request=TEXT_REQUEST)
        assert (
            results["instagram"].caption == "Big news from us. our new Ethiopian single origin Link in bio."
        )


def test_replicate_submit_without_a_webhook_url_is_refused(replicate_fake):
    with pytest.raises(EngineError, match="no webhook URL") as err:
        _replicate_engine(replicate_fake).submit_video(VideoRequest(prompt="x", width=720, height=1280))
    assert not err.value.retryable


def _signed(secret: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    ts = int(time.time()) if timestamp is None else timestamp
    return {
        "Webhook-Id": "msg_abc",
        "Webhook-Timestamp": str(ts),
        "Webhook-Signature": sign_replicate_webhook(secret, "msg_abc", ts, body),
    }


def test_replicate_webhook_with_a_valid_signature_is_accepted_and_agrees_with_the_sdk(replicate_fake):
    from replicate.webhook import Webhooks, WebhookSigningSecret

    body = json.dumps({"id": "p1", "status": "succeeded", "output": ["x"]}).encode()
    headers = _signed(replicate_fake.webhook_secret, body)
    assert verify_replicate_webhook(headers, body, replicate_fake.webhook_secret)["id"] == "p1"
    # Django's request.META spelling works too, and a rotated secret list (space separated) is fine
    meta = {
        "HTTP_WEBHOOK_ID": headers["Webhook-Id"],
        "HTTP_WEBHOOK_TIMESTAMP": headers["Webhook-Timestamp"],
        "HTTP_WEBHOOK_SIGNATURE": "v1,bm90LXRoaXMtb25l " + headers["Webhook-Signature"],
    }
    assert verify_replicate_webhook(meta, body, replicate_fake.webhook_secret)["status"] == "succeeded"
    Webhooks.validate(
        headers={k.lower(): v for k, v in headers.items()},
        body=body.decode(),
        secret=WebhookSigningSecret(key=replicate_fake.webhook_secret),
    )


def test_replicate_webhook_with_a_tampered_body_or_wrong_secret_is_rejected(replicate_fake):
    body = json.dumps({"id": "p1", "status": "succeeded"}).encode()
    headers = _signed(replicate_fake.webhook_secret, body)
    with pytest.raises(WebhookVerificationError, match="signature mismatch"):
        verify_replicate_webhook(
            headers, body.replace(b"succeeded", b"failed"), replicate_fake.webhook_secret
        )
    other = "whsec_" + base64.b64encode(b"another-secret-key-0123456789ab").decode()
    with pytest.raises(WebhookVerificationError, match="signature mismatch"):
        verify_replicate_webhook(headers, body, other)
    with pytest.raises(WebhookVerificationError, match="missing"):
        verify_replicate_webhook({"webhook-id": "msg_abc"}, body, replicate_fake.webhook_secret)


def test_replicate_webhook_with_a_stale_timestamp_is_rejected_even_if_correctly_signed(replicate_fake):
    body = b'{"id": "p1", "status": "succeeded"}'
    stale = int(time.time()) - 301
    headers = _signed(replicate_fake.webhook_secret, body, timestamp=stale)
    with pytest.raises(WebhookVerificationError, match="tolerance"):
        verify_replicate_webhook(headers, body, replicate_fake.webhook_secret)
    assert (
        verify_replicate_webhook(headers, body, replicate_fake.webhook_secret, now=stale + 10)["id"] == "p1"
    )


def test_replicate_tampered_webhook_delivery_fails_verification_end_to_end(replicate_fake):
    with WebhookReceiver() as receiver:
        engine = _replicate_engine(replicate_fake)
        payload = {"id": "p9", "status": "succeeded", "output": ["https://example.invalid/x.png"]}
        replicate_fake.send_webhook(receiver.url + "/webhook/replicate", payload, tamper=True)
        delivery = receiver.wait()
        with pytest.raises(WebhookVerificationError):
            engine.verify_webhook(delivery.headers, delivery.body)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(429, True), (500, True), (400, False), (401, False), (403, False), (422, False)],
)
def test_replicate_http_errors_map_to_engine_errors_with_the_right_retryable_flag(
    replicate_fake, status, retryable
):
    replicate_fake.fail(status, f"replicate says {status}", path_contains="/predictions")
    with pytest.raises(EngineError) as err:
        _replicate_engine(replicate_fake).image(ImageRequest(prompt="x", width=64, height=64))
    assert err.value.retryable is retryable and f"replicate says {status}" in str(err.value)


def test_replicate_timeouts_are_retryable(replicate_fake):
    engine = _replicate_engine(replicate_fake, timeout=0.2)
    replicate_fake.delay = 0.6
    with pytest.raises(EngineError, match="timed out") as err:
        engine.text(TEXT_REQUEST)
    assert err.value.retryable


def test_replicate_failed_predictions_are_retryable_unless_refused_by_policy(replicate_fake):
    engine = _replicate_engine(replicate_fake)
    replicate_fake.fail_predictions_with = "CUDA out of memory"
    with pytest.raises(EngineError, match="CUDA out of memory") as err:
        engine.image(ImageRequest(prompt="x", width=64, height=64))
    assert err.value.retryable

    replicate_fake.fail_predictions_with = (
        "NSFW content detected. Try running it again, or try a different prompt."
    )
    with pytest.raises(EngineError, match="content policy") as err:
        engine.image(ImageRequest(prompt="x", width=64, height=64))
    assert not err.value.retryable

    with pytest.raises(EngineError, match="canceled") as err:
        engine.result_from_prediction({"id": "p", "status": "canceled", "output": None}, "image")
    assert not err.value.retryable
