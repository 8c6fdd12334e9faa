"""Google Gen AI (Gemini Developer API) adapter.

Text: ``models.generate_content`` with ``response_mime_type="application/json"`` and the reply's
JSON schema (``response_json_schema``, unless ``json_schema=False``): every platform of a
content in one object, checked and repaired by conversation (apps/generation/provider_text.py,
the repair turns are ``user`` contents after the model's own). Ideas: the same call with a
small schema.
Images (generate, edit, reference-based): ``generate_content`` on the image model with
``response_modalities=["IMAGE"]``; the image comes back as an ``inline_data`` part, is fitted
with Pillow to the exact size asked for. Video: Veo through the ``predictLongRunning``
long-running operation, polled with ``operations.get`` and downloaded with
``files.download``. The installed google-genai only lets ``models.generate_videos`` run in
Vertex mode, so the operation is started with the documented REST call
(``POST {base}/{version}/models/{model}:predictLongRunning``) and everything after that goes
through the SDK.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Sequence
from typing import Any

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
    IDEAS_JSON_SCHEMA,
    build_ideas_prompt,
    creativity_temperature,
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
from .provider_text import DEFAULT_REPAIRS, TextConversation, one_platform, texts_schema

GEMINI_IMAGE_RATIOS = ("1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9")
VEO_RATIOS = ("16:9", "9:16")
VEO_DURATIONS = (4, 6, 8)

_SAFETY_REASONS = {
    "SAFETY",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "RECITATION",
    "IMAGE_RECITATION",
    "MODEL_ARMOR",
    "JAILBREAK",
}
_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"


def map_gemini_error(exc: Exception) -> EngineError:
    from google.genai import errors

    if isinstance(exc, EngineError):
        return exc
    if isinstance(exc, errors.APIError):
        status = int(exc.code or 0)
        message = exc.message or str(exc)
        if looks_like_policy_refusal(message) and status < 500:
            return EngineError(f"gemini: refused by content policy ({status}): {message}", retryable=False)
        retryable = status in (408, 429) or status >= 500
        return EngineError(
            f"gemini: {status} {exc.status or ''} {message}".replace("  ", " "), retryable=retryable
        )
    failure = transport_failure(exc)
    if failure == "timeout":
        return EngineError("gemini: request timed out", retryable=True)
    if failure == "connection":
        return EngineError(f"gemini: connection error: {exc!r}", retryable=True)
    return EngineError(f"gemini: {exc}", retryable=False)


def _enum_name(value: Any) -> str:
    if value is None:
        return ""
    return str(getattr(value, "value", value)).upper()


class GeminiEngine:
    """Engine backed by the official ``google-genai`` SDK (Gemini Developer API)."""

    name = "gemini"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        api_version: str = "v1beta",
        text_model: str = "gemini-2.5-flash",
        image_model: str = "gemini-2.5-flash-image",
        edit_model: str | None = None,
        video_model: str = "veo-3.0-fast-generate-001",
        timeout: float = 60.0,
        image_timeout: float = 180.0,
        max_retries: int = 0,
        image_ratios: Sequence[str] = GEMINI_IMAGE_RATIOS,
        video_ratios: Sequence[str] = VEO_RATIOS,
        video_durations: Sequence[int] = VEO_DURATIONS,
        video_resolution: str | None = None,
        video_poll_interval: float = 10.0,
        video_timeout: float = 900.0,
        json_schema: bool = True,
        text_repairs: int = DEFAULT_REPAIRS,
    ):
        from google import genai
        from google.genai import types

        self.api_key = api_key
        self.base_url = (base_url or _DEFAULT_BASE_URL).rstrip("/") + "/"
        self.api_version = api_version
        self.text_model = text_model
        self.image_model = image_model
        self.edit_model = edit_model or image_model
        self.video_model = video_model
        self.timeout = timeout
        self.image_timeout = image_timeout
        self.image_ratios = tuple(image_ratios)
        self.video_ratios = tuple(video_ratios)
        self.video_durations = tuple(video_durations)
        self.video_resolution = video_resolution
        self.video_poll_interval = video_poll_interval
        self.video_timeout = video_timeout
        self.json_schema = bool(json_schema)
        self.text_repairs = max(0, int(text_repairs))
        retry = types.HttpRetryOptions(attempts=max_retries + 1) if max_retries > 0 else None
        self._types = types
        self.client = genai.Client(
            api_key=api_key,
            http_options=types.HttpOptions(
                base_url=self.base_url,
                api_version=api_version,
                timeout=int(timeout * 1000),
                retry_options=retry,
            ),
        )

    # -- helpers ------------------------------------------------------------------------

    def _generate(self, model: str, contents: Any, config) -> Any:
        try:
            return self.client.models.generate_content(model=model, contents=contents, config=config)
        except Exception as exc:  # noqa: BLE001 - mapped to EngineError
            raise map_gemini_error(exc) from exc

    def _check_blocked(self, response) -> None:
        feedback = getattr(response, "prompt_feedback", None)
        reason = _enum_name(getattr(feedback, "block_reason", None)) if feedback else ""
        if reason and reason != "BLOCKED_REASON_UNSPECIFIED":
            detail = getattr(feedback, "block_reason_message", None) or ""
            raise EngineError(f"gemini: prompt blocked ({reason}) {detail}".strip(), retryable=False)
        if not response.candidates:
            raise EngineError("gemini: the response has no candidates", retryable=True)
        finish = _enum_name(response.candidates[0].finish_reason)
        if finish in _SAFETY_REASONS:
            raise EngineError(f"gemini: output blocked by content policy ({finish})", retryable=False)

    def _text_of(self, response) -> str:
        self._check_blocked(response)
        parts = (response.candidates[0].content.parts if response.candidates[0].content else None) or []
        text = "".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))
        if not text.strip():
            raise EngineError("gemini: the model returned an empty reply", retryable=True)
        return text

    def _image_of(self, response) -> bytes:
        self._check_blocked(response)
        parts = (response.candidates[0].content.parts if response.candidates[0].content else None) or []
        for part in parts:
            blob = getattr(part, "inline_data", None)
            if blob is not None and blob.data and (blob.mime_type or "").startswith("image/"):
                data = blob.data
                return base64.b64decode(data) if isinstance(data, str) else data
        finish = _enum_name(response.candidates[0].finish_reason)
        said = " ".join(p.text for p in parts if getattr(p, "text", None))[:200]
        raise EngineError(
            f"gemini: no image in the response ({finish or 'no reason'}) {said}".strip(), retryable=True
        )

    # -- text ---------------------------------------------------------------------------

    def texts(self, request: TextRequest) -> dict[str, TextResult]:
        """Every platform of ``request`` in one conversation: one call, plus a repair turn for
        each reply that breaks the rules (at most ``text_repairs``)."""
        types = self._types
        conversation = TextConversation(request, repairs=self.text_repairs, engine=self.name)
        config = types.GenerateContentConfig(
            system_instruction=conversation.system,
            response_mime_type="application/json",
            response_json_schema=texts_schema(request) if self.json_schema else None,
            temperature=creativity_temperature(request.creativity),
            seed=request.seed or None,
        )
        while True:
            contents = [
                types.Content(
                    role="model" if m["role"] == "assistant" else "user",
                    parts=[types.Part(text=m["content"])],
                )
                for m in conversation.messages
            ]
            response = self._generate(self.text_model, contents, config)
            results = conversation.reply(self._text_of(response))
            if results is not None:
                return results

    def text(self, request: TextRequest) -> TextResult:
        return one_platform(self.texts, request)

    def ideas(self, request: IdeasRequest) -> list[str]:
        types = self._types
        system, user = build_ideas_prompt(request)
        config = types.GenerateContentConfig(
            system_instruction=system,
            response_mime_type="application/json",
            response_json_schema=IDEAS_JSON_SCHEMA,
            temperature=0.9,
        )
        response = self._generate(self.text_model, user, config)
        return parse_ideas_json(self._text_of(response), request.count)

    # -- images -------------------------------------------------------------------------

    def _image_config(self, aspect_ratio: str | None, seed: int):
        types = self._types
        return types.GenerateContentConfig(
            response_modalities=["IMAGE"],
            image_config=types.ImageConfig(aspect_ratio=aspect_ratio) if aspect_ratio else None,
            seed=seed or None,
            http_options=types.HttpOptions(timeout=int(self.image_timeout * 1000)),
        )

    def image(self, request: ImageRequest) -> ImageResult:
        types = self._types
        ratio = nearest_aspect(request.width, request.height, self.image_ratios)
        contents: list[Any] = []
        if request.reference is not None:
            contents.append(types.Part.from_bytes(data=to_png(request.reference), mime_type="image/png"))
        contents.append(image_prompt(request))
        model = self.edit_model if request.reference is not None else self.image_model
        response = self._generate(model, contents, self._image_config(ratio, request.seed))
        return fit_image(self._image_of(response), request.width, request.height, request.format)

    def edit_image(self, *, image: bytes, prompt: str, seed: int = 0) -> ImageResult:
        types = self._types
        width, height = image_size_of(image)
        ratio = nearest_aspect(width, height, self.image_ratios)
        contents = [
            types.Part.from_bytes(data=to_png(image), mime_type="image/png"),
            f"Edit this image: {prompt.strip()}. Keep everything else unchanged.",
        ]
        response = self._generate(self.edit_model, contents, self._image_config(ratio, seed))
        return fit_image(self._image_of(response), width, height, image_format_for(image))

    # -- video --------------------------------------------------------------------------

    def _start_video(self, request: VideoRequest) -> str:
        import httpx

        ratio = nearest_aspect(request.width, request.height, self.video_ratios)
        instance: dict[str, Any] = {"prompt": image_prompt(request, kind="video")}
        if request.reference is not None:
            instance["image"] = {
                "bytesBase64Encoded": base64.b64encode(to_png(request.reference)).decode(),
                "mimeType": "image/png",
            }
        parameters: dict[str, Any] = {
            "aspectRatio": ratio,
            "durationSeconds": pick_duration(request.seconds, self.video_durations),
            "sampleCount": 1,
        }
        if self.video_resolution:
            parameters["resolution"] = self.video_resolution
        if request.brand.dont:
            parameters["negativePrompt"] = ", ".join(request.brand.dont)
        url = f"{self.base_url}{self.api_version}/models/{self.video_model}:predictLongRunning"
        try:
            response = httpx.post(
                url,
                json={"instances": [instance], "parameters": parameters},
                headers={"x-goog-api-key": self.api_key, "Content-Type": "application/json"},
                timeout=self.timeout,
            )
        except httpx.HTTPError as exc:
            raise map_gemini_error(exc) from exc
        if response.status_code >= 400:
            try:
                error = response.json().get("error", {})
            except ValueError:
                error = {}
            message = error.get("message") or response.text[:300]
            status = response.status_code
            if looks_like_policy_refusal(message) and status < 500:
                raise EngineError(f"gemini: refused by content policy ({status}): {message}", retryable=False)
            raise EngineError(
                f"gemini: {status} {error.get('status', '')} {message}".replace("  ", " "),
                retryable=status in (408, 429) or status >= 500,
            )
        name = response.json().get("name")
        if not name:
            raise EngineError("gemini: the video operation has no name", retryable=True)
        return name

    def video(self, request: VideoRequest) -> VideoResult:
        types = self._types
        operation = types.GenerateVideosOperation(name=self._start_video(request))
        deadline = time.monotonic() + self.video_timeout
        try:
            while not operation.done:
                if time.monotonic() > deadline:
                    raise EngineError(
                        f"gemini: video operation {operation.name} not done after {self.video_timeout:g}s",
                        retryable=True,
                    )
                time.sleep(self.video_poll_interval)
                operation = self.client.operations.get(operation)
            if operation.error:
                code = int(operation.error.get("code") or 0)
                message = str(operation.error.get("message") or operation.error)
                policy = looks_like_policy_refusal(message)
                raise EngineError(
                    f"gemini: video generation failed: {message}",
                    retryable=not policy and code not in (400, 401, 403),
                )
            result = operation.response or operation.result
            videos = (result.generated_videos if result else None) or []
            if not videos or videos[0].video is None:
                reasons = "; ".join((result.rai_media_filtered_reasons or []) if result else [])
                if reasons or (result and result.rai_media_filtered_count):
                    raise EngineError(f"gemini: video blocked by content policy: {reasons}", retryable=False)
                raise EngineError("gemini: the video operation finished without a video", retryable=True)
            video = videos[0].video
            data = video.video_bytes or self.client.files.download(file=video)
        except EngineError:
            raise
        except Exception as exc:  # noqa: BLE001 - SDK and transport errors
            raise map_gemini_error(exc) from exc
        return normalize_video(data, request.width, request.height, request.seconds)
