"""OpenAI adapter (also OpenAI-compatible servers: Ollama, vLLM, LM Studio for text).

Text and ideas go through Chat Completions asking for a JSON object; images through the
Images API (``images.generate`` / ``images.edit``), generated at the nearest size the model
supports and then fitted with Pillow to the exact pixel size asked for; video through the
Videos API (``client.videos``) when the installed SDK has it.

The first half of this module holds the provider-neutral helpers (prompt building, robust
JSON parsing, image fitting, video normalisation) that the Gemini and Replicate adapters
share, so every adapter asks for the same things and returns the same shapes.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
import time
import unicodedata
import warnings
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from PIL import Image, ImageOps

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

# ---------------------------------------------------------------------------------------
# Shared helpers for provider adapters
# ---------------------------------------------------------------------------------------

TEXT_FIELDS = ("caption", "hashtags", "firstComment", "altText", "title", "sounds")
_FIELD_ALIASES = {
    "caption": ("caption", "text", "post"),
    "hashtags": ("hashtags", "hashTags", "tags"),
    "firstComment": ("firstComment", "first_comment", "firstcomment"),
    "altText": ("altText", "alt_text", "alttext", "alt"),
    "title": ("title",),
    "sounds": ("sounds", "sound", "music"),
}

TEXT_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "caption": {"type": "string"},
        "hashtags": {"type": "array", "items": {"type": "string"}},
        "firstComment": {"type": "string"},
        "altText": {"type": "string"},
        "title": {"type": "string"},
        "sounds": {"type": "array", "items": {"type": "string"}},
    },
    "required": list(TEXT_FIELDS),
    "additionalProperties": False,
}

IDEAS_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ideas": {"type": "array", "items": {"type": "string"}}},
    "required": ["ideas"],
    "additionalProperties": False,
}

POLICY_MARKERS = (
    "content_policy",
    "content policy",
    "safety system",
    "moderation",
    "moderation_blocked",
    "nsfw",
    "sensitive",
    "flagged",
    "prohibited",
    "not allowed by our safety",
    "responsible ai",
    "violat",
)

_LENGTH_GUIDE = {
    "short": "short: one or two sentences, at most about 120 characters",
    "medium": "medium: two to four sentences, about 150 to 400 characters",
    "long": "long: five to eight sentences or short paragraphs, about 500 to 1200 characters",
}

_TITLE_PLATFORMS = {"youtube", "pinterest", "tiktok", "linkedin"}


def creativity_temperature(creativity: int) -> float:
    """Map the 1-10 creativity setting to a sampling temperature (0.2 .. 1.1)."""
    c = min(10, max(1, int(creativity or 5)))
    return round(0.2 + (c - 1) * 0.1, 2)


def transport_failure(exc: BaseException) -> str | None:
    """'timeout' or 'connection' for httpx/httpx2 transport errors (SDKs use either), else None."""
    names = {(cls.__module__.split(".")[0], cls.__name__) for cls in type(exc).__mro__}
    if any(mod in ("httpx", "httpx2") and name == "TimeoutException" for mod, name in names):
        return "timeout"
    if any(mod in ("httpx", "httpx2") and name == "TransportError" for mod, name in names):
        return "connection"
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, ConnectionError):
        return "connection"
    return None


def looks_like_policy_refusal(message: str) -> bool:
    low = (message or "").lower()
    return any(marker in low for marker in POLICY_MARKERS)


def _bullets(items: Iterable[str]) -> str:
    return "; ".join(i.strip() for i in items if i and i.strip())


def brand_context(brand) -> list[str]:
    lines: list[str] = []
    if brand.name:
        lines.append(f"Brand: {brand.name}.")
    if brand.voice:
        lines.append(f"Brand voice: {brand.voice}.")
    if brand.caption_style:
        lines.append(f"Caption style: {brand.caption_style}.")
    if brand.audience:
        lines.append(f"Audience: {brand.audience}.")
    if brand.themes:
        lines.append(f"Themes: {_bullets(brand.themes)}.")
    if brand.do:
        lines.append(f"Always do: {_bullets(brand.do)}.")
    if brand.dont:
        lines.append(f"Never do: {_bullets(brand.dont)}.")
    return lines


def build_text_prompt(request: TextRequest) -> tuple[str, str]:
    """Return (system, user) messages asking for the post JSON object."""
    brand = request.brand
    system_parts: list[str] = []
    if brand.system_prompt:
        system_parts.append(brand.system_prompt.strip())
    system_parts.append("You are an expert social media copywriter.")
    system_parts.extend(brand_context(brand))
    system_parts.append(
        "Reply with one JSON object only, no prose and no code fences, with exactly these keys: "
        '"caption" (string), "hashtags" (array of strings, each starting with #), '
        '"firstComment" (string, may be empty), "altText" (string describing the visual for '
        'screen readers), "title" (string, may be empty), "sounds" (array of strings, may be empty).'
    )
    system = "\n".join(system_parts)

    platform = request.platform or "social media"
    user: list[str] = [
        f"Write a {platform} {request.post_type} post ({request.media_type}) about: {request.prompt.strip()}",
        f"Tone: {request.tone}.",
        f"Length of the caption: {_LENGTH_GUIDE.get(request.length, request.length)}.",
        f"Language: write everything in the language with ISO 639-1 code '{request.language}'.",
    ]
    if request.include_emojis:
        user.append("Use a few fitting emojis in the caption.")
    else:
        user.append("Do not use any emojis.")
    if request.include_hashtags and request.hashtag_count > 0:
        tags = f'Give exactly {request.hashtag_count} relevant hashtags in "hashtags"'
        if brand.hashtags:
            tags += f", including the brand hashtags {' '.join(brand.hashtags)}"
        user.append(tags + "; do not put hashtags inside the caption.")
    else:
        user.append('Do not use hashtags: "hashtags" must be an empty array.')
    user.append(f'"altText" describes the {request.media_type} that goes with the post.')
    if request.platform in _TITLE_PLATFORMS or request.media_type == "video":
        user.append('"title" is a short catchy title for the post.')
    else:
        user.append('"title" may be empty.')
    if request.post_type in ("reel", "short", "story") and request.media_type == "video":
        user.append('"sounds" lists up to 3 fitting background sound or music names.')
    else:
        user.append('"sounds" is an empty array.')
    user.append('"firstComment" is an optional first comment that adds value (or empty).')
    if request.seed:
        user.append(f"Variation #{request.seed}: phrase it differently from earlier versions.")
    return system, "\n".join(user)


def build_ideas_prompt(request: IdeasRequest) -> tuple[str, str]:
    brand = request.brand
    system_parts: list[str] = []
    if brand.system_prompt:
        system_parts.append(brand.system_prompt.strip())
    system_parts.append("You are a social media strategist who suggests post ideas.")
    system_parts.extend(brand_context(brand))
    system_parts.append(
        'Reply with one JSON object only, no prose and no code fences: {"ideas": [string, ...]}.'
    )
    where = f" for {request.platform}" if request.platform else ""
    user = (
        f"Suggest {request.count} distinct post ideas{where} about: {request.topic.strip()}.\n"
        f"Each idea is one sentence. Write them in the language with ISO 639-1 code '{request.language}'."
    )
    return "\n".join(system_parts), user


def image_prompt(request: ImageRequest | VideoRequest, *, kind: str = "image") -> str:
    brand = request.brand
    style = (
        "photorealistic photograph, natural light, high detail"
        if request.style == "photorealistic"
        else "clean flat illustration, bold shapes"
    )
    parts = [request.prompt.strip().rstrip(".") + ".", f"Style: {style}."]
    if brand.name:
        parts.append(f"For the brand {brand.name}.")
    parts.append(f"Use the brand colours {brand.primary_color} and {brand.secondary_color} where natural.")
    if brand.dont:
        parts.append(f"Avoid: {_bullets(brand.dont)}.")
    if request.reference is not None:
        parts.append("Follow the palette and composition of the reference image.")
    if kind == "video":
        parts.append(f"A {request.seconds:g} second vertical-safe social media clip, smooth camera motion.")
    else:
        parts.append("No text or watermarks unless asked.")
    return " ".join(parts)


_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json_object(raw: str) -> dict:
    """Find the JSON object in a model reply: plain, fenced, or wrapped in prose."""
    if raw is None:
        raise EngineError("the model returned no content", retryable=True)
    text = raw.strip().lstrip("\ufeff")
    candidates: list[str] = [text]
    candidates.extend(m.group(1).strip() for m in _FENCE_RE.finditer(text))
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, dict):
            return value
    raise EngineError(f"the model reply is not a JSON object: {text[:200]!r}", retryable=True)


def _pick(data: dict, field: str) -> tuple[bool, Any]:
    lowered = {str(k).lower(): v for k, v in data.items()}
    for alias in _FIELD_ALIASES[field]:
        if alias in data:
            return True, data[alias]
        if alias.lower() in lowered:
            return True, lowered[alias.lower()]
    return False, None


def _as_text(value: Any, field: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        raise EngineError(f"the model reply has a non-text {field!r}", retryable=True)
    return value.strip()


def _as_list(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in re.split(r"[\s,]+", value) if v]
    if not isinstance(value, list):
        raise EngineError(f"the model reply has a non-list {field!r}", retryable=True)
    return [str(v).strip() for v in value if str(v).strip()]


def normalize_hashtags(tags: Iterable[str], limit: int) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for raw in tags:
        for piece in str(raw).split():
            word = re.sub(r"[^\w]", "", piece.lstrip("#"), flags=re.UNICODE)
            if not word:
                continue
            key = word.casefold()
            if key in seen:
                continue
            seen.add(key)
            out.append("#" + word)
    return out[: max(0, limit)]


def strip_emojis(text: str) -> str:
    kept = []
    for ch in text:
        cp = ord(ch)
        if cp in (0x200D, 0xFE0F) or 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF:
            continue
        if unicodedata.category(ch) == "So" and cp > 0x2000:
            continue
        kept.append(ch)
    return re.sub(r"[ \t]{2,}", " ", "".join(kept)).strip()


def parse_text_json(raw: str, request: TextRequest) -> TextResult:
    """Parse the model's JSON reply into a TextResult; missing fields raise EngineError."""
    data = extract_json_object(raw)
    values: dict[str, Any] = {}
    missing: list[str] = []
    for field in TEXT_FIELDS:
        found, value = _pick(data, field)
        if not found:
            missing.append(field)
        values[field] = value
    if missing:
        raise EngineError(f"the model reply is missing fields: {', '.join(missing)}", retryable=True)
    caption = _as_text(values["caption"], "caption")
    if not caption:
        raise EngineError("the model reply has an empty caption", retryable=True)
    first_comment = _as_text(values["firstComment"], "firstComment")
    alt_text = _as_text(values["altText"], "altText")
    title = _as_text(values["title"], "title")
    if not request.include_emojis:
        caption, first_comment, title = (
            strip_emojis(caption),
            strip_emojis(first_comment),
            strip_emojis(title),
        )
    hashtags: list[str] = []
    if request.include_hashtags:
        hashtags = normalize_hashtags(_as_list(values["hashtags"], "hashtags"), request.hashtag_count)
    sounds = (
        _as_list(values["sounds"], "sounds")
        if not isinstance(values["sounds"], str)
        else ([values["sounds"].strip()] if values["sounds"].strip() else [])
    )
    return TextResult(
        caption=caption,
        hashtags=hashtags,
        first_comment=first_comment,
        alt_text=alt_text,
        title=title,
        sounds=sounds,
    )


def parse_ideas_json(raw: str, count: int) -> list[str]:
    data = extract_json_object(raw)
    ideas = data.get("ideas")
    if not isinstance(ideas, list):
        raise EngineError('the model reply has no "ideas" list', retryable=True)
    out: list[str] = []
    for idea in ideas:
        if isinstance(idea, dict):
            idea = idea.get("idea") or idea.get("title") or idea.get("text") or ""
        text = str(idea).strip()
        if text:
            out.append(text)
    if not out:
        raise EngineError("the model returned no ideas", retryable=True)
    return out[: max(1, count)]


def parse_size(size: str) -> tuple[int, int]:
    w, _, h = size.lower().partition("x")
    return int(w), int(h)


def nearest_size(width: int, height: int, sizes: Sequence[str]) -> str:
    """The supported 'WxH' closest in aspect ratio, then the one needing least upscaling."""
    target = math.log(width / height)

    def score(size: str) -> tuple[float, int, int]:
        w, h = parse_size(size)
        covers = w >= width and h >= height
        # closest aspect first; then the smallest size that covers, else the largest one
        return (round(abs(math.log(w / h) - target), 6), 0 if covers else 1, w * h if covers else -w * h)

    return min(sizes, key=score)


def nearest_aspect(width: int, height: int, ratios: Sequence[str]) -> str:
    """The supported 'W:H' aspect ratio closest to width/height."""
    target = math.log(width / height)

    def score(ratio: str) -> float:
        a, _, b = ratio.partition(":")
        return abs(math.log(float(a) / float(b)) - target)

    return min(ratios, key=score)


def fit_image(data: bytes, width: int, height: int, fmt: str = "PNG") -> ImageResult:
    """Scale to cover and centre-crop to exactly width x height, encoded as PNG or JPEG."""
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as exc:  # noqa: BLE001 - any decoder error means the provider sent junk
        raise EngineError(f"the provider returned an unreadable image: {exc}", retryable=True) from exc
    img = ImageOps.exif_transpose(img)
    fmt = (fmt or "PNG").upper()
    if fmt in ("JPG", "JPEG"):
        fmt = "JPEG"
        img = img.convert("RGB")
    else:
        fmt = "PNG"
        has_alpha = img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info)
        img = img.convert("RGBA" if has_alpha else "RGB")
    if img.size != (width, height):
        img = ImageOps.fit(img, (width, height), Image.Resampling.LANCZOS, centering=(0.5, 0.5))
    out = io.BytesIO()
    if fmt == "JPEG":
        img.save(out, "JPEG", quality=92, optimize=True)
    else:
        img.save(out, "PNG", optimize=False)
    return ImageResult(
        data=out.getvalue(),
        width=width,
        height=height,
        content_type="image/jpeg" if fmt == "JPEG" else "image/png",
    )


def image_size_of(data: bytes) -> tuple[int, int]:
    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except Exception as exc:  # noqa: BLE001
        raise EngineError(f"the input image is unreadable: {exc}", retryable=False) from exc


def to_png(data: bytes) -> bytes:
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.format == "PNG":
                return data
            out = io.BytesIO()
            img.convert("RGBA" if img.mode in ("RGBA", "LA", "P") else "RGB").save(out, "PNG")
            return out.getvalue()
    except Exception as exc:  # noqa: BLE001
        raise EngineError(f"the input image is unreadable: {exc}", retryable=False) from exc


def image_format_for(data: bytes) -> str:
    try:
        with Image.open(io.BytesIO(data)) as img:
            return "JPEG" if img.format == "JPEG" else "PNG"
    except Exception:  # noqa: BLE001
        return "PNG"


def _thumbnail_jpeg(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.convert("RGB").save(out, "JPEG", quality=88)
    return out.getvalue()


def normalize_video(data: bytes, width: int, height: int, max_seconds: float) -> VideoResult:
    """Make a provider clip fit the request: exact size, at most ``max_seconds``, H.264 MP4.

    A clip that already is H.264 at the right size and not too long is kept byte for byte;
    anything else is decoded, scaled to cover and centre-cropped, trimmed and re-encoded
    (audio, if any, is re-encoded to AAC and trimmed alongside). A JPEG thumbnail is taken
    from the middle of the kept part.
    """
    import av  # PyAV; imported lazily so text-only deployments do not load FFmpeg

    try:
        src = av.open(io.BytesIO(data), mode="r")
    except Exception as exc:  # noqa: BLE001
        raise EngineError(f"the provider returned an unreadable video: {exc}", retryable=True) from exc
    try:
        if not src.streams.video:
            raise EngineError("the provider returned a file without a video stream", retryable=True)
        vstream = src.streams.video[0]
        rate = vstream.average_rate or vstream.guessed_rate or Fraction(24, 1)
        duration = None
        if vstream.duration is not None and vstream.time_base is not None:
            duration = float(vstream.duration * vstream.time_base)
        elif src.duration is not None:
            duration = src.duration / 1_000_000
        passthrough = (
            vstream.codec_context.name == "h264"
            and vstream.codec_context.width == width
            and vstream.codec_context.height == height
            and duration is not None
            and duration <= max_seconds + 0.05
        )
        thumb_at = min(max_seconds, duration or max_seconds) / 2
        if passthrough:
            thumbnail = None
            frames = 0
            for frame in src.decode(vstream):
                frames += 1
                if thumbnail is None and (frame.time or 0) >= thumb_at:
                    thumbnail = _thumbnail_jpeg(frame.to_image())
            if frames == 0:
                raise EngineError("the provider returned an empty video", retryable=True)
            if thumbnail is None:
                src.seek(0)
                thumbnail = _thumbnail_jpeg(next(src.decode(vstream)).to_image())
            return VideoResult(
                data=data,
                width=width,
                height=height,
                seconds=round(duration if duration else frames / float(rate), 3),
                thumbnail=thumbnail,
            )
        return _transcode(src, width, height, max_seconds, rate, thumb_at)
    finally:
        src.close()


def _transcode(
    src, width: int, height: int, max_seconds: float, rate: Fraction, thumb_at: float
) -> VideoResult:
    import av

    vstream = src.streams.video[0]
    astream = src.streams.audio[0] if src.streams.audio else None
    out_buf = io.BytesIO()
    dst = av.open(out_buf, mode="w", format="mp4")
    ov = dst.add_stream("libx264", rate=rate)
    ov.width, ov.height, ov.pix_fmt = width, height, "yuv420p"
    ov.options = {"crf": "20", "preset": "veryfast"}
    oa = resampler = None
    if astream is not None and astream.codec_context.sample_rate:
        sample_rate = astream.codec_context.sample_rate
        layout = astream.codec_context.layout.name if astream.codec_context.layout else "stereo"
        oa = dst.add_stream("aac", rate=sample_rate, layout=layout)
        resampler = av.AudioResampler(format="fltp", layout=layout, rate=sample_rate)
    frames = 0
    samples = 0
    thumbnail = None
    streams = [vstream] + ([astream] if oa is not None else [])
    try:
        for packet in src.demux(*streams):
            for frame in packet.decode():
                t = frame.time if frame.time is not None else 0.0
                if t >= max_seconds - 1e-6:
                    continue
                if packet.stream.type == "video":
                    img = ImageOps.fit(frame.to_image(), (width, height), Image.Resampling.BILINEAR)
                    if thumbnail is None and t >= thumb_at:
                        thumbnail = _thumbnail_jpeg(img)
                    new = av.VideoFrame.from_image(img.convert("RGB"))
                    new.pts = frames
                    new.time_base = Fraction(1, 1) / rate
                    frames += 1
                    for pkt in ov.encode(new):
                        dst.mux(pkt)
                else:
                    for rframe in resampler.resample(frame):
                        rframe.pts = samples
                        rframe.time_base = Fraction(1, rframe.sample_rate)
                        samples += rframe.samples
                        for pkt in oa.encode(rframe):
                            dst.mux(pkt)
        if frames == 0:
            raise EngineError("the provider returned an empty video", retryable=True)
        for pkt in ov.encode(None):
            dst.mux(pkt)
        if oa is not None:
            for pkt in oa.encode(None):
                dst.mux(pkt)
    finally:
        dst.close()
    if thumbnail is None:
        src.seek(0)
        first = next(src.decode(vstream))
        thumbnail = _thumbnail_jpeg(ImageOps.fit(first.to_image(), (width, height)))
    return VideoResult(
        data=out_buf.getvalue(),
        width=width,
        height=height,
        seconds=round(frames / float(rate), 3),
        thumbnail=thumbnail,
    )


def pick_duration(requested: float, allowed: Sequence[int]) -> int:
    """The shortest allowed clip length that covers the request (else the longest)."""
    options = sorted(int(a) for a in allowed)
    for option in options:
        if option >= requested - 1e-6:
            return option
    return options[-1]


# ---------------------------------------------------------------------------------------
# OpenAI adapter
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
    requested: ``json_object`` (OpenAI, vLLM, Ollama), ``json_schema`` (strict schema; OpenAI,
    LM Studio, vLLM) or ``none`` (prompt only).
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
        json_mode: str = "json_object",
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
        self, system: str, user: str, *, temperature: float, seed: int, schema_name: str, schema: dict
    ) -> str:
        import openai

        kwargs: dict[str, Any] = {
            "model": self.text_model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
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

    def text(self, request: TextRequest) -> TextResult:
        system, user = build_text_prompt(request)
        raw = self._chat(
            system,
            user,
            temperature=creativity_temperature(request.creativity),
            seed=request.seed,
            schema_name="social_post",
            schema=TEXT_JSON_SCHEMA,
        )
        return parse_text_json(raw, request)

    def ideas(self, request: IdeasRequest) -> list[str]:
        system, user = build_ideas_prompt(request)
        raw = self._chat(
            system, user, temperature=0.9, seed=0, schema_name="post_ideas", schema=IDEAS_JSON_SCHEMA
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
        import httpx

        try:
            response = httpx.get(url, timeout=self.image_timeout, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise EngineError(f"openai: downloading the result failed: {exc!r}", retryable=True) from exc
        if response.status_code >= 400:
            raise EngineError(
                f"openai: downloading the result failed with {response.status_code}",
                retryable=response.status_code == 429 or response.status_code >= 500,
            )
        return response.content

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
