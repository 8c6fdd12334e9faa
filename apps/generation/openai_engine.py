"""OpenAI adapter (also OpenAI-compatible servers: Ollama, vLLM, LM Studio for text).

Text goes through Chat Completions: every platform of a content in one JSON object (a strict
``json_schema`` response format by default, see ``json_mode``), checked and repaired by
conversation (apps/generation/provider_text.py); ideas ask for a JSON object too. Images go through the
Images API (``images.generate`` / ``images.edit``), generated at the nearest size the model
supports and then fitted with Pillow to the exact pixel size asked for; video through the
Videos API (``client.videos``) when the installed SDK has it.

The provider-neutral helpers it shares with the Gemini and Replicate adapters live in
provider_common.py.
"""

from __future__ import annotations

import base64
import time
import warnings
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
    download_result,
    fit_image,
    image_format_for,
    image_prompt,
    image_size_of,
    looks_like_policy_refusal,
    nearest_size,
    normalize_video,
    parse_ideas_json,
    parse_size,
    pick_duration,
    to_png,
)
from .provider_text import DEFAULT_REPAIRS, TextConversation, one_platform, texts_schema

# ---------------------------------------------------------------------------------------

GPT_IMAGE_SIZES = ("1024x1024", "1536x1024", "1024x1536")
DALLE3_SIZES = ("1024x1024", "1792x1024", "1024x1792")
DALLE2_SIZES = ("256x256", "512x512", "1024x1024")
SORA_SIZES = ("720x1280", "1280x720")
SORA_PRO_SIZES = ("720x1280", "1280x720", "1024x1792", "1792x1024")
SORA_SECONDS = (4, 8, 12)

_OPENAI_POLICY_CODES = {
    "content_policy_violation",
    "moderation_blocked",
    "content_filter",
    "safety_violation",
}


def _openai_sizes_for(model: str) -> tuple[str, ...]:
    m = (model or "").lower()
    if m.startswith("dall-e-2"):
        return DALLE2_SIZES
    if m.startswith("dall-e-3"):
        return DALLE3_SIZES
    return GPT_IMAGE_SIZES


def map_openai_error(exc: Exception) -> EngineError:
    import openai

    if isinstance(exc, EngineError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return EngineError("openai: request timed out", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return EngineError(f"openai: connection error: {exc.message}", retryable=True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        body = exc.body if isinstance(exc.body, dict) else {}
        message = str(body.get("message") or exc.message)
        code = str(body.get("code") or exc.code or "")
        if code in _OPENAI_POLICY_CODES or looks_like_policy_refusal(message):
            return EngineError(f"openai: refused by content policy ({status}): {message}", retryable=False)
        if status == 429 and code == "insufficient_quota":
            return EngineError(f"openai: 429 {message}", retryable=False)
        retryable = status in (408, 409, 429) or status >= 500
        return EngineError(f"openai: {status} {message}", retryable=retryable)
    if isinstance(exc, openai.OpenAIError):
        return EngineError(f"openai: {exc}", retryable=False)
    return EngineError(f"openai: {exc}", retryable=False)


class OpenAIEngine:
    """Engine backed by the official ``openai`` SDK.

    ``base_url`` points the client at any OpenAI-compatible server (e.g.
    ``http://localhost:11434/v1`` for Ollama); ``json_mode`` picks how the JSON reply is
    requested: ``json_schema`` (strict structured outputs; OpenAI, vLLM, Ollama, LM Studio),
    ``json_object`` (servers without structured outputs) or ``none`` (the prompt only).
    ``text_repairs`` is how many repair turns a reply that breaks the rules gets.
    """

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str = "",
        base_url: str | None = None,
        organization: str | None = None,
        text_model: str = "gpt-4.1-mini",
        image_model: str = "gpt-image-1",
        edit_model: str | None = None,
        video_model: str = "sora-2",
        timeout: float = 60.0,
        image_timeout: float = 180.0,
        max_retries: int = 2,
        json_mode: str = "json_schema",
        text_repairs: int = DEFAULT_REPAIRS,
        max_tokens: int | None = None,
        image_sizes: Sequence[str] | None = None,
        image_quality: str | None = None,
        video_sizes: Sequence[str] | None = None,
        video_seconds: Sequence[int] = SORA_SECONDS,
        video_poll_interval: float = 5.0,
        video_timeout: float = 900.0,
    ):
        import openai

        if json_mode not in ("json_object", "json_schema", "none"):
            raise ValueError("json_mode must be json_object, json_schema or none")
        self.text_model = text_model
        self.image_model = image_model
        self.edit_model = edit_model or image_model
        self.video_model = video_model
        self.json_mode = json_mode
        self.text_repairs = max(0, int(text_repairs))
        self.max_tokens = max_tokens
        self.image_timeout = image_timeout
        self.image_sizes = tuple(image_sizes) if image_sizes else _openai_sizes_for(image_model)
        self.edit_sizes = tuple(image_sizes) if image_sizes else _openai_sizes_for(self.edit_model)
        self.image_quality = image_quality
        self.video_sizes = (
            tuple(video_sizes)
            if video_sizes
            else (SORA_PRO_SIZES if "pro" in (video_model or "") else SORA_SIZES)
        )
        self.video_seconds = tuple(video_seconds)
        self.video_poll_interval = video_poll_interval
        self.video_timeout = video_timeout
        self.client = openai.OpenAI(
            api_key=api_key or "unused",  # local OpenAI-compatible servers ignore the key
            base_url=base_url,
            organization=organization,
            timeout=timeout,
            max_retries=max_retries,
        )

    # -- text ---------------------------------------------------------------------------

    def _response_format(self, schema_name: str, schema: dict) -> dict | None:
        if self.json_mode == "json_object":
            return {"type": "json_object"}
        if self.json_mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        return None

    def _chat(
        self,
        messages: list[dict[str, str]],
        *,
        temperature: float,
        seed: int,
        schema_name: str,
        schema: dict,
    ) -> str:
        import openai

        kwargs: dict[str, Any] = {
            "model": self.text_model,
            "messages": messages,
            "temperature": temperature,
        }
        fmt = self._response_format(schema_name, schema)
        if fmt is not None:
            kwargs["response_format"] = fmt
        if seed:
            kwargs["seed"] = int(seed)
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        try:
            completion = self.client.chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            raise map_openai_error(exc) from exc
        if not completion.choices:
            raise EngineError("openai: the response has no choices", retryable=True)
        choice = completion.choices[0]
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            raise EngineError(f"openai: the model refused: {refusal}", retryable=False)
        if choice.finish_reason == "content_filter":
            raise EngineError("openai: the reply was blocked by the content filter", retryable=False)
        content = choice.message.content
        if not content:
            raise EngineError("openai: the model returned an empty reply", retryable=True)
        return content

    def texts(self, request: TextRequest) -> dict[str, TextResult]:
        """Every platform of ``request`` in one conversation: one call, plus a repair turn for
        each reply that breaks the rules (at most ``text_repairs``)."""
        conversation = TextConversation(request, repairs=self.text_repairs, engine=self.name)
        schema = texts_schema(request)
        while True:
            raw = self._chat(
                conversation.chat_messages,
                temperature=creativity_temperature(request.creativity),
                seed=request.seed,
                schema_name="social_posts",
                schema=schema,
            )
            results = conversation.reply(raw)
            if results is not None:
                return results

    def text(self, request: TextRequest) -> TextResult:
        return one_platform(self.texts, request)

    def ideas(self, request: IdeasRequest) -> list[str]:
        system, user = build_ideas_prompt(request)
        raw = self._chat(
            [{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=0.9,
            seed=0,
            schema_name="post_ideas",
            schema=IDEAS_JSON_SCHEMA,
        )
        return parse_ideas_json(raw, request.count)

    # -- images -------------------------------------------------------------------------

    def _image_kwargs(self, model: str, size: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": model, "size": size, "n": 1, "timeout": self.image_timeout}
        # GPT Image models always answer with b64_json and reject response_format; DALL-E and
        # most compatible servers need it to return base64 instead of a URL.
        if not (model or "").lower().startswith("gpt-image"):
            kwargs["response_format"] = "b64_json"
        if self.image_quality:
            kwargs["quality"] = self.image_quality
        return kwargs

    def _image_bytes(self, response) -> bytes:
        if not response.data:
            raise EngineError("openai: the image response has no data", retryable=True)
        item = response.data[0]
        if item.b64_json:
            try:
                return base64.b64decode(item.b64_json)
            except ValueError as exc:
                raise EngineError("openai: the image is not valid base64", retryable=True) from exc
        if item.url:
            return self._download(item.url)
        raise EngineError("openai: the image response has neither b64_json nor url", retryable=True)

    def _download(self, url: str) -> bytes:
        return download_result(url, provider="openai", seconds=self.image_timeout)

    def image(self, request: ImageRequest) -> ImageResult:
        import openai

        prompt = image_prompt(request)
        try:
            if request.reference is not None:
                size = nearest_size(request.width, request.height, self.edit_sizes)
                response = self.client.images.edit(
                    image=("reference.png", to_png(request.reference), "image/png"),
                    prompt=prompt,
                    **self._image_kwargs(self.edit_model, size),
                )
            else:
                size = nearest_size(request.width, request.height, self.image_sizes)
                response = self.client.images.generate(
                    prompt=prompt, **self._image_kwargs(self.image_model, size)
                )
        except openai.OpenAIError as exc:
            raise map_openai_error(exc) from exc
        return fit_image(self._image_bytes(response), request.width, request.height, request.format)

    def edit_image(self, *, image: bytes, prompt: str, seed: int = 0) -> ImageResult:
        import openai

        width, height = image_size_of(image)
        size = nearest_size(width, height, self.edit_sizes)
        try:
            response = self.client.images.edit(
                image=("image.png", to_png(image), "image/png"),
                prompt=prompt,
                **self._image_kwargs(self.edit_model, size),
            )
        except openai.OpenAIError as exc:
            raise map_openai_error(exc) from exc
        return fit_image(self._image_bytes(response), width, height, image_format_for(image))

    # -- video --------------------------------------------------------------------------

    def video(self, request: VideoRequest) -> VideoResult:
        import openai

        videos = getattr(self.client, "videos", None)
        if videos is None or not hasattr(videos, "create"):
            raise EngineError("video not supported by this engine", retryable=False)
        size = nearest_size(request.width, request.height, self.video_sizes)
        seconds = pick_duration(request.seconds, self.video_seconds)
        kwargs: dict[str, Any] = {
            "model": self.video_model,
            "prompt": image_prompt(request, kind="video"),
            "size": size,
            "seconds": str(seconds),
        }
        if request.reference is not None:
            w, h = parse_size(size)
            ref = fit_image(request.reference, w, h, "PNG")
            kwargs["input_reference"] = ("reference.png", ref.data, "image/png")
        deadline = time.monotonic() + self.video_timeout
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                job = videos.create(**kwargs)
                while job.status in ("queued", "in_progress"):
                    if time.monotonic() > deadline:
                        raise EngineError(
                            f"openai: video {job.id} not finished after {self.video_timeout:g}s",
                            retryable=True,
                        )
                    time.sleep(self.video_poll_interval)
                    job = videos.retrieve(job.id)
                if job.status != "completed":
                    err = job.error
                    message = f"{err.code}: {err.message}" if err else f"status {job.status}"
                    policy = bool(err) and (
                        err.code in _OPENAI_POLICY_CODES
                        or looks_like_policy_refusal(f"{err.code} {err.message}")
                    )
                    raise EngineError(f"openai: video generation failed: {message}", retryable=not policy)
                content = videos.download_content(job.id, variant="video")
                data = content.read() if hasattr(content, "read") else content.content
        except openai.OpenAIError as exc:
            raise map_openai_error(exc) from exc
        return normalize_video(data, request.width, request.height, request.seconds)
