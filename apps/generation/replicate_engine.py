"""Replicate adapter: asynchronous predictions, completed by a signed webhook.

With a webhook URL configured, the pipeline calls ``submit_text`` / ``submit_image`` /
``submit_edit`` / ``submit_video`` which create a prediction with ``webhook`` and
``webhook_events_filter=["completed"]`` and return its id; ``/webhook/replicate`` then calls
``verify_webhook`` (Replicate's signature scheme: ``webhook-id``, ``webhook-timestamp``,
``webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` keyed with the
base64-decoded ``whsec_`` secret) and ``result_from_prediction`` which downloads the output
files. Without a webhook URL the synchronous ``Engine`` methods create the prediction and
poll it until it finishes.

Text asks for every platform of a content in one JSON object (apps/generation/provider_text.py).
Replicate's language models take one prompt, so a repair turn is a new prediction whose prompt
is the whole conversation so far (the brief, each earlier reply and what was wrong with it);
with webhooks, ``continue_text`` either accepts a finished text prediction or submits that
repair turn.

Model inputs differ between Replicate models; the defaults suit the common ones (FLUX image
models, FLUX Kontext for edits, Llama-style text models, and text-to-video models taking
``prompt``/``aspect_ratio``/``duration``). ``*_input`` dicts add or override inputs and the
``*_key`` arguments rename the image inputs.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

from .base import (
    EngineError,
    IdeasRequest,
    ImageRequest,
    ImageResult,
    TextRequest,
    TextResult,
    VideoRequest,
    VideoResult,
)
from .provider_common import (
    build_ideas_prompt,
    creativity_temperature,
    download_result,
    fit_image,
    image_format_for,
    image_prompt,
    image_size_of,
    looks_like_policy_refusal,
    nearest_aspect,
    normalize_video,
    parse_ideas_json,
    pick_duration,
    to_png,
    transport_failure,
)
from .provider_text import DEFAULT_REPAIRS, TextConversation, one_platform, replay, transcript

REPLICATE_IMAGE_RATIOS = ("1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21")
REPLICATE_VIDEO_RATIOS = ("16:9", "9:16", "1:1")
WEBHOOK_TOLERANCE_SECONDS = 300
KINDS = ("text", "ideas", "image", "edit", "video")


class WebhookVerificationError(Exception):
    """A Replicate webhook failed verification (missing headers, stale, or bad signature)."""


class WebhookBodyError(WebhookVerificationError):
    """A correctly signed webhook whose body is not a JSON object (malformed, not forged)."""


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """Read a header from a plain dict, Django ``request.headers`` or ``request.META``."""
    wanted = {name.lower(), "http_" + name.lower().replace("-", "_")}
    for key, value in headers.items():
        if str(key).lower() in wanted:
            return value
    return None


def verify_replicate_webhook(
    headers: Mapping[str, str],
    body: bytes,
    secret: str,
    *,
    tolerance: int = WEBHOOK_TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict:
    """Verify a Replicate webhook and return the parsed prediction JSON."""
    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature header")
    try:
        sent_at = int(timestamp)
    except ValueError as exc:
        raise WebhookVerificationError("webhook-timestamp is not an integer") from exc
    current = time.time() if now is None else now
    if abs(current - sent_at) > tolerance:
        raise WebhookVerificationError(
            f"webhook timestamp is outside the {tolerance}s tolerance (possible replay)"
        )
    if not secret:
        raise WebhookVerificationError("no webhook signing secret configured")
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise WebhookVerificationError("the webhook signing secret is not valid base64") from exc
    if isinstance(body, str):
        body = body.encode()
    signed = webhook_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    for candidate in signatures.split():
        version, _, value = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), expected):
            break
    else:
        raise WebhookVerificationError("webhook signature mismatch")
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError) as exc:  # nested too deep for the parser: not ours either
        raise WebhookBodyError("webhook body is not JSON") from exc
    if not isinstance(payload, dict):
        raise WebhookBodyError("webhook body is not a JSON object")
    return payload


def map_replicate_error(exc: Exception) -> EngineError:
    from replicate.exceptions import ModelError, ReplicateError

    if isinstance(exc, EngineError):
        return exc
    if isinstance(exc, ReplicateError):
        status = int(exc.status or 0)
        message = exc.detail or exc.title or "error"
        if looks_like_policy_refusal(message) and status < 500:
            return EngineError(f"replicate: refused by content policy ({status}): {message}", retryable=False)
        retryable = status in (408, 409, 429) or status >= 500
        return EngineError(f"replicate: {status} {message}", retryable=retryable)
    if isinstance(exc, ModelError):
        return _failed_prediction_error(str(exc.prediction.error or exc))
    failure = transport_failure(exc)
    if failure == "timeout":
        return EngineError("replicate: request timed out", retryable=True)
    if failure == "connection":
        return EngineError(f"replicate: connection error: {exc!r}", retryable=True)
    return EngineError(f"replicate: {exc}", retryable=False)


def _failed_prediction_error(message: str) -> EngineError:
    if looks_like_policy_refusal(message):
        return EngineError(f"replicate: refused by content policy: {message}", retryable=False)
    return EngineError(f"replicate: prediction failed: {message}", retryable=True)


def _data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


class ReplicateEngine:
    """Engine backed by the official ``replicate`` SDK."""

    name = "replicate"

    def __init__(
        self,
        *,
        api_token: str,
        base_url: str | None = None,
        text_model: str = "meta/meta-llama-3-70b-instruct",
        image_model: str = "black-forest-labs/flux-schnell",
        edit_model: str = "black-forest-labs/flux-kontext-pro",
        video_model: str = "wan-video/wan-2.2-t2v-fast",
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        timeout: float = 60.0,
        download_timeout: float = 300.0,
        poll_interval: float = 1.0,
        max_wait: float = 900.0,
        text_input: Mapping[str, Any] | None = None,
        image_input: Mapping[str, Any] | None = None,
        edit_input: Mapping[str, Any] | None = None,
        video_input: Mapping[str, Any] | None = None,
        image_ratios: Sequence[str] = REPLICATE_IMAGE_RATIOS,
        video_ratios: Sequence[str] = REPLICATE_VIDEO_RATIOS,
        video_durations: Sequence[int] | None = None,
        reference_key: str = "image",
        edit_image_key: str = "input_image",
        video_reference_key: str = "image",
        text_repairs: int = DEFAULT_REPAIRS,
    ):
        import httpx
        import replicate

        self.text_model = text_model
        self.image_model = image_model
        self.edit_model = edit_model
        self.video_model = video_model
        self.webhook_url = webhook_url or None
        self.webhook_secret = webhook_secret or ""
        self.download_timeout = download_timeout
        self.poll_interval = poll_interval
        self.max_wait = max_wait
        self.text_input = dict(text_input or {})
        self.image_input = dict(image_input or {})
        self.edit_input = dict(edit_input or {})
        self.video_input = dict(video_input or {})
        self.image_ratios = tuple(image_ratios)
        self.video_ratios = tuple(video_ratios)
        self.video_durations = tuple(video_durations) if video_durations else None
        self.reference_key = reference_key
        self.edit_image_key = edit_image_key
        self.video_reference_key = video_reference_key
        self.text_repairs = max(0, int(text_repairs))
        self.client = replicate.Client(
            api_token=api_token,
            base_url=base_url,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        )

    # -- building inputs ----------------------------------------------------------------

    def _text_input(self, system: str, user: str, temperature: float, seed: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "prompt": user,
            "system_prompt": system,
            "temperature": temperature,
            "max_tokens": 4096,  # every platform's post in one JSON object
        }
        if seed:
            data["seed"] = int(seed)
        data.update(self.text_input)
        return data

    def _image_input(self, request: ImageRequest) -> dict[str, Any]:
        data: dict[str, Any] = {
            "prompt": image_prompt(request),
            "aspect_ratio": nearest_aspect(request.width, request.height, self.image_ratios),
            "output_format": "png",
            "num_outputs": 1,
        }
        if request.seed:
            data["seed"] = int(request.seed)
        if request.reference is not None:
            data[self.reference_key] = _data_uri(to_png(request.reference))
        data.update(self.image_input)
        return data

    def _edit_input(self, image: bytes, prompt: str, seed: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "prompt": prompt,
            self.edit_image_key: _data_uri(to_png(image)),
            "aspect_ratio": "match_input_image",
            "output_format": "png",
        }
        if seed:
            data["seed"] = int(seed)
        data.update(self.edit_input)
        return data

    def _video_input(self, request: VideoRequest) -> dict[str, Any]:
        data: dict[str, Any] = {
            "prompt": image_prompt(request, kind="video"),
            "aspect_ratio": nearest_aspect(request.width, request.height, self.video_ratios),
        }
        if self.video_durations:
            data["duration"] = pick_duration(request.seconds, self.video_durations)
        if request.seed:
            data["seed"] = int(request.seed)
        if request.reference is not None:
            data[self.video_reference_key] = _data_uri(to_png(request.reference))
        data.update(self.video_input)
        return data

    # -- predictions --------------------------------------------------------------------

    def _create(self, model: str, data: dict[str, Any], *, webhook: bool) -> Any:
        params: dict[str, Any] = {"input": data}
        if webhook and self.webhook_url:
            params["webhook"] = self.webhook_url
            params["webhook_events_filter"] = ["completed"]
        owner_name, _, version = model.partition(":")
        try:
            if version:
                return self.client.predictions.create(version=version, **params)
            return self.client.predictions.create(model=owner_name, **params)
        except Exception as exc:  # noqa: BLE001 - mapped to EngineError
            raise map_replicate_error(exc) from exc

    def _submit(self, model: str, data: dict[str, Any]) -> str:
        if not self.webhook_url:
            raise EngineError(
                "replicate: no webhook URL configured for asynchronous predictions", retryable=False
            )
        return self._create(model, data, webhook=True).id

    def _conversation_input(self, conversation: TextConversation) -> dict[str, Any]:
        request = conversation.request
        return self._text_input(
            conversation.system,
            transcript(conversation),
            creativity_temperature(request.creativity),
            request.seed,
        )

    def submit_text(self, request: TextRequest) -> str:
        conversation = TextConversation(request, repairs=self.text_repairs, engine=self.name)
        return self._submit(self.text_model, self._conversation_input(conversation))

    def continue_text(
        self,
        prediction: Mapping[str, Any],
        request: TextRequest,
        *,
        earlier: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, TextResult] | str:
        """A finished text prediction of a webhook run (``earlier``: the run's previous text
        predictions, each of which asked for a repair): its texts by platform, or the id of
        the repair turn it submitted (a new prediction, completed by its own webhook)."""
        conversation = replay(
            request, [self._raw_text(p) for p in earlier], repairs=self.text_repairs, engine=self.name
        )
        results = conversation.reply(self._raw_text(prediction))
        if results is not None:
            return results
        return self._submit(self.text_model, self._conversation_input(conversation))

    def submit_ideas(self, request: IdeasRequest) -> str:
        system, user = build_ideas_prompt(request)
        return self._submit(self.text_model, self._text_input(system, user, 0.9, 0))

    def submit_image(self, request: ImageRequest) -> str:
        return self._submit(self.image_model, self._image_input(request))

    def submit_edit(self, *, image: bytes, prompt: str, seed: int = 0) -> str:
        return self._submit(self.edit_model, self._edit_input(image, prompt, seed))

    def submit_video(self, request: VideoRequest) -> str:
        return self._submit(self.video_model, self._video_input(request))

    def get_prediction(self, prediction_id: str) -> dict[str, Any]:
        try:
            prediction = self.client.predictions.get(prediction_id)
        except Exception as exc:  # noqa: BLE001
            raise map_replicate_error(exc) from exc
        return prediction.dict()

    def verify_webhook(
        self, headers: Mapping[str, str], body: bytes, secret: str | None = None, *, now: float | None = None
    ) -> dict:
        """Verify a webhook delivery (``secret`` defaults to the configured one)."""
        return verify_replicate_webhook(
            headers, body, secret if secret is not None else self.webhook_secret, now=now
        )

    # -- results ------------------------------------------------------------------------

    def _download(self, url: str) -> bytes:
        if url.startswith("data:"):
            try:
                return base64.b64decode(url.split(",", 1)[1])
            except (IndexError, binascii.Error) as exc:
                raise EngineError("replicate: the output data URI is invalid", retryable=True) from exc
        return download_result(url, provider="replicate", seconds=self.download_timeout)

    @staticmethod
    def _finished(prediction: Mapping[str, Any]) -> Mapping[str, Any]:
        status = prediction.get("status")
        if status == "failed":
            raise _failed_prediction_error(str(prediction.get("error") or "unknown error"))
        if status == "canceled":
            raise EngineError("replicate: the prediction was canceled", retryable=False)
        if status != "succeeded":
            raise EngineError(f"replicate: the prediction is not finished (status {status})", retryable=True)
        return prediction

    def _raw_text(self, prediction: Mapping[str, Any]) -> str:
        """A finished language-model prediction's text (its streamed tokens joined)."""
        output = self._finished(prediction).get("output")
        if isinstance(output, list):
            return "".join(str(x) for x in output)
        if isinstance(output, str):
            return output
        raise EngineError("replicate: the prediction has no text output", retryable=True)

    @staticmethod
    def _first_url(output: Any) -> str:
        if isinstance(output, str) and output:
            return output
        if isinstance(output, list):
            for item in output:
                if isinstance(item, str) and item:
                    return item
        if isinstance(output, dict):
            for value in output.values():
                if isinstance(value, str) and (value.startswith("http") or value.startswith("data:")):
                    return value
        raise EngineError("replicate: the prediction has no output file", retryable=True)

    def result_from_prediction(
        self,
        prediction: Mapping[str, Any],
        kind: str,
        *,
        request: TextRequest | ImageRequest | VideoRequest | IdeasRequest | None = None,
    ) -> dict[str, TextResult] | ImageResult | VideoResult | list[str]:
        """Turn a finished prediction (webhook body or polled JSON) into an engine result.

        ``kind`` is text (the texts by platform, checked, with no repair turn left), ideas,
        image, edit or video. ``request`` (the original request) gives
        the exact size, format and duration to fit the output to; without it images keep
        their own size and videos their own length.
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}")
        if kind in ("text", "ideas"):
            raw = self._raw_text(prediction)
            if kind == "ideas":
                count = request.count if isinstance(request, IdeasRequest) else 10
                return parse_ideas_json(raw, count)
            if not isinstance(request, TextRequest):
                raise ValueError("a text prediction is read against its TextRequest")
            # the last word: no repair turn from here (continue_text submits those)
            results = TextConversation(request, repairs=0, engine=self.name).reply(raw)
            assert results is not None  # with no repair left, reply() returns or raises
            return results
        output = self._finished(prediction).get("output")
        data = self._download(self._first_url(output))
        if kind in ("image", "edit"):
            if isinstance(request, ImageRequest):
                return fit_image(data, request.width, request.height, request.format)
            width, height = image_size_of(data)
            return fit_image(data, width, height, image_format_for(data))
        if isinstance(request, VideoRequest):
            return normalize_video(data, request.width, request.height, request.seconds)
        return self._video_as_is(data)

    @staticmethod
    def _video_as_is(data: bytes) -> VideoResult:
        import io

        import av

        try:
            with av.open(io.BytesIO(data)) as container:
                stream = container.streams.video[0]
                width, height = stream.codec_context.width, stream.codec_context.height
                duration = getattr(container, "duration", None)  # microseconds (an input container)
                seconds = duration / 1_000_000 if duration else 3600.0
        except Exception as exc:  # noqa: BLE001
            raise EngineError(f"replicate: the output video is unreadable: {exc}", retryable=True) from exc
        return normalize_video(data, width - width % 2, height - height % 2, seconds)

    # -- synchronous Engine methods -----------------------------------------------------

    def _run(self, model: str, data: dict[str, Any]) -> dict[str, Any]:
        prediction = self._create(model, data, webhook=False)
        deadline = time.monotonic() + self.max_wait
        try:
            while prediction.status not in ("succeeded", "failed", "canceled"):
                if time.monotonic() > deadline:
                    raise EngineError(
                        f"replicate: prediction {prediction.id} not finished after {self.max_wait:g}s",
                        retryable=True,
                    )
                time.sleep(self.poll_interval)
                prediction = self.client.predictions.get(prediction.id)
        except EngineError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise map_replicate_error(exc) from exc
        return prediction.dict()

    def texts(self, request: TextRequest) -> dict[str, TextResult]:
        """Every platform of ``request``: one prediction, plus one per repair turn (at most
        ``text_repairs``), each polled until it finishes."""
        conversation = TextConversation(request, repairs=self.text_repairs, engine=self.name)
        while True:
            prediction = self._run(self.text_model, self._conversation_input(conversation))
            results = conversation.reply(self._raw_text(prediction))
            if results is not None:
                return results

    def text(self, request: TextRequest) -> TextResult:
        return one_platform(self.texts, request)

    def ideas(self, request: IdeasRequest) -> list[str]:
        system, user = build_ideas_prompt(request)
        data = self._text_input(system, user, 0.9, 0)
        return cast(
            list[str], self.result_from_prediction(self._run(self.text_model, data), "ideas", request=request)
        )

    def image(self, request: ImageRequest) -> ImageResult:
        return cast(
            ImageResult,
            self.result_from_prediction(
                self._run(self.image_model, self._image_input(request)), "image", request=request
            ),
        )

    def edit_image(self, *, image: bytes, prompt: str, seed: int = 0) -> ImageResult:
        width, height = image_size_of(image)
        prediction = self._run(self.edit_model, self._edit_input(image, prompt, seed))
        target = ImageRequest(prompt=prompt, width=width, height=height, format=image_format_for(image))
        return cast(ImageResult, self.result_from_prediction(prediction, "edit", request=target))

    def video(self, request: VideoRequest) -> VideoResult:
        return cast(
            VideoResult,
            self.result_from_prediction(
                self._run(self.video_model, self._video_input(request)), "video", request=request
            ),
        )
