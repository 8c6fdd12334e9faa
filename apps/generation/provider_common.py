"""Provider-neutral helpers shared by the OpenAI, Gemini and Replicate adapters: prompt
building, robust JSON parsing, image fitting and video normalisation, so that every adapter
asks for the same things and returns the same shapes."""

from __future__ import annotations

import io
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from PIL import Image, ImageOps

from .base import (
    EngineError,
    IdeasRequest,
    ImageRequest,
    ImageResult,
    VideoRequest,
    VideoResult,
)

FIELD_ALIASES = {
    "caption": ("caption", "text", "post"),
    "hashtags": ("hashtags", "hashTags", "tags"),
    "firstComment": ("firstComment", "first_comment", "firstcomment"),
    "altText": ("altText", "alt_text", "alttext", "alt"),
    "title": ("title",),
    "sounds": ("sounds", "sound", "music"),
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


#: the most a provider's result download may be (a generated video is tens of MB)
DOWNLOAD_MAX_BYTES = 500_000_000


def download_result(url: str, *, provider: str, seconds: float) -> bytes:
    """A provider's result named by URL, through the checked way out (apps.core.outbound: public
    addresses only, each redirect hop checked, at most DOWNLOAD_MAX_BYTES within ``seconds``)."""
    import requests

    from apps.core import outbound

    rules = outbound.default_rules(schemes=("https",))
    try:
        response = outbound.fetch(
            outbound.checked_session(rules),
            url,
            max_bytes=DOWNLOAD_MAX_BYTES,
            seconds=seconds,
            timeout=(10, min(60.0, seconds)),
        )
    except outbound.UnsafeURL as exc:
        raise EngineError(
            f"{provider}: refused to download the result: {exc.message}", retryable=False
        ) from None
    except outbound.TooLarge as exc:
        raise EngineError(f"{provider}: the result is too large: {exc}", retryable=False) from None
    except TimeoutError as exc:
        raise EngineError(f"{provider}: downloading the result timed out: {exc}", retryable=True) from None
    except requests.RequestException as exc:
        raise EngineError(f"{provider}: downloading the result failed: {exc!r}", retryable=True) from exc
    if response.status_code >= 400:
        raise EngineError(
            f"{provider}: downloading the result failed with {response.status_code}",
            retryable=response.status_code in (408, 429) or response.status_code >= 500,
        )
    return response.content


def looks_like_policy_refusal(message: str) -> bool:
    low = (message or "").lower()
    return any(marker in low for marker in POLICY_MARKERS)


def _bullets(items: Iterable[str]) -> str:
    return "; ".join(i.strip() for i in items if i and i.strip())


def sentence(text: str) -> str:
    """``text`` ending with one full stop: 'warm' -> 'warm.', 'Crumb & Co.' stays (never 'Co..')."""
    text = text.strip()
    return text if not text or text[-1] in ".!?…" else text + "."


def brand_context(brand) -> list[str]:
    lines: list[str] = []
    if brand.name:
        lines.append(sentence(f"Brand: {brand.name}"))
    if brand.voice:
        lines.append(sentence(f"Brand voice: {brand.voice}"))
    if brand.caption_style:
        lines.append(sentence(f"Caption style: {brand.caption_style}"))
    if brand.audience:
        lines.append(sentence(f"Audience: {brand.audience}"))
    if brand.themes:
        lines.append(sentence(f"Themes: {_bullets(brand.themes)}"))
    if brand.do:
        lines.append(sentence(f"Always do: {_bullets(brand.do)}"))
    if brand.dont:
        lines.append(sentence(f"Never do: {_bullets(brand.dont)}"))
    return lines


def _system_intro(brand, role: str) -> list[str]:
    """The brand's own system prompt first, then the role, then the brand context."""
    parts = [brand.system_prompt.strip()] if brand.system_prompt else []
    return [*parts, role, *brand_context(brand)]


def build_ideas_prompt(request: IdeasRequest) -> tuple[str, str]:
    brand = request.brand
    system_parts = _system_intro(brand, "You are a social media strategist who suggests post ideas.")
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
    """The final prompt of a provider's picture: what it should show (``visual_description``:
    subject, setting, composition, brand colours, no text unless asked; no URLs, codes, prices or
    banned words), the style, and the reference when there is one."""
    from .visual_prompt import visual_description

    style = (
        "photorealistic photograph, natural light, high detail"
        if request.style in ("photorealistic", "")
        else "clean flat illustration, bold shapes"
    )
    parts = [visual_description(request), f"Style: {style}."]
    if request.reference is not None:
        parts.append("Follow the palette and composition of the reference image.")
    if isinstance(request, VideoRequest):
        parts.append(f"A {request.seconds:g} second vertical-safe social media clip, smooth camera motion.")
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


def parse_ideas_json(raw: str, count: int) -> list[str]:
    data = extract_json_object(raw)
    ideas = data.get("ideas")
    if not isinstance(ideas, list):
        raise EngineError('the model reply has no "ideas" list', retryable=True)
    out: list[str] = []
    for item in ideas:
        idea = (
            (item.get("idea") or item.get("title") or item.get("text") or "")
            if isinstance(item, dict)
            else item
        )
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
        img: Image.Image = Image.open(io.BytesIO(data))
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


def _flush(dst, *encoders) -> None:
    """Mux what each encoder still holds (an absent one, None, holds nothing)."""
    for encoder in encoders:
        if encoder is not None:
            for pkt in encoder.encode(None):
                dst.mux(pkt)


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
                    assert resampler is not None and oa is not None  # audio is demuxed only with its encoder
                    for rframe in resampler.resample(frame):
                        rframe.pts = samples
                        rframe.time_base = Fraction(1, rframe.sample_rate)
                        samples += rframe.samples
                        for pkt in oa.encode(rframe):
                            dst.mux(pkt)
        if frames == 0:
            raise EngineError("the provider returned an empty video", retryable=True)
        _flush(dst, ov, oa)
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
