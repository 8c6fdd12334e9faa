"""The generation engine interface.

An engine turns a prompt plus resolved settings into text and media. Engines are pure:
they receive plain data and return plain data (bytes for media), never touching models,
so that the pipeline (``apps.content.services``) owns persistence and status changes and
each engine is testable on its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


class EngineError(Exception):
    """A generation failed. ``retryable`` says whether trying again may help.

    ``EngineError(msg, retryable=True)`` is a ``RetryableEngineError``, so that a task can name
    the retryable ones by type (Celery's ``autoretry_for``) while the engines keep one way to
    raise."""

    def __new__(cls, message: str = "", *, retryable: bool = False):
        made = RetryableEngineError if retryable and cls is EngineError else cls
        return super().__new__(made, message)

    def __init__(self, message: str = "", *, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable


class RetryableEngineError(EngineError):
    """A generation failed in a way that trying again may mend (timeouts, 429, 5xx)."""

    def __init__(self, message: str = "", *, retryable: bool = True):
        super().__init__(message, retryable=True)


@dataclass(frozen=True)
class BrandVoice:
    """What the brand tells every generation (resolved effective settings)."""

    name: str = ""
    voice: str = ""  # free text, e.g. "warm, witty, expert"
    tone: str = "friendly"  # professional, casual, friendly, playful, ...
    system_prompt: str = ""
    caption_style: str = ""
    themes: tuple[str, ...] = ()
    audience: str = ""
    hashtags: tuple[str, ...] = ()  # brand hashtags, with leading '#'
    do: tuple[str, ...] = ()
    dont: tuple[str, ...] = ()
    primary_color: str = "#1E66F5"  # '#RRGGBB'
    secondary_color: str = "#F5A97F"


@dataclass(frozen=True)
class TextRequest:
    """One brief for every platform of a content: an engine writes each of ``platforms`` its own
    way from it (``platform`` is the first of them, for engines that write one post)."""

    prompt: str
    platform: str  # 'instagram', 'x', ... (the first of ``platforms``)
    post_type: str = "feed"  # feed, story, reel, short
    media_type: str = "image"  # image, video
    tone: str = "friendly"
    length: str = "medium"  # short, medium, long
    include_hashtags: bool = True
    hashtag_count: int = 5
    include_emojis: bool = True
    language: str = "en"  # ISO 639-1
    creativity: int = 5  # 1-10
    brand: BrandVoice = field(default_factory=BrandVoice)
    seed: int = 0  # varies output between regenerations
    platforms: tuple[str, ...] = ()  # every platform of the content (``(platform,)`` when empty)
    intent: str = ""  # settings.intent, or '' to detect it from the brief (apps.platforms.facts)
    variation: int = 0  # 0 on a content's first generation, n on its n-th regeneration

    @property
    def all_platforms(self) -> tuple[str, ...]:
        return self.platforms or ((self.platform,) if self.platform else ())

    def for_platform(self, platform: str) -> TextRequest:
        """The same brief aimed at one platform (for an engine that writes one post per call)."""
        return dataclasses.replace(self, platform=platform)


@dataclass(frozen=True)
class TextResult:
    caption: str
    hashtags: list[str]  # each starting with '#'
    first_comment: str = ""
    alt_text: str = ""
    title: str = ""
    sounds: list[str] = field(default_factory=list)  # sound identifiers
    notes: list[str] = field(default_factory=list)  # what the engine adapted, for the variant's adaptations


@dataclass(frozen=True)
class PostDesign:
    """What a designed post carries (the local engine typesets it; providers ignore it): the
    design spec written from the post's own text (``local_media.design.spec_from_text``), where
    it goes, and the brand's assets."""

    spec: Mapping[str, Any]
    platform: str = ""
    post_type: str = "feed"
    language: str = "en"
    logo: bytes | None = None  # the brand's logo (PNG/JPEG bytes)
    photo: bytes | None = None  # the brand's own image, as background or framed picture
    fonts: tuple[str, ...] = ()  # the brand's font families or files, tried in order
    slide: int = 0  # carousel: this picture's index among ``slides``
    slides: int = 1
    music: bool = True  # video: a synthesised music bed (False: silent)


@dataclass(frozen=True)
class ImageRequest:
    prompt: str
    width: int
    height: int
    style: str = "photorealistic"  # photorealistic, illustration
    brand: BrandVoice = field(default_factory=BrandVoice)
    reference: bytes | None = None  # reference image bytes (reference_based mode)
    seed: int = 0
    format: str = "PNG"  # PNG or JPEG
    design: PostDesign | None = None  # a designed post (local engine); None: the picture alone
    #: the variants' ratio this picture is for and the platform whose safe zones it follows
    #: ("" = the content's one shared picture)
    ratio: str = ""
    platform: str = ""


@dataclass(frozen=True)
class ImageResult:
    data: bytes
    width: int
    height: int
    content_type: str  # image/png, image/jpeg
    alt_text: str = ""  # written from what was drawn (or the final image prompt); "" unknown
    notes: tuple[str, ...] = ()  # what was adapted (a style the engine cannot draw, ...)
    design: Mapping[str, Any] | None = None  # the layers of a designed image (for layer edits)


@dataclass(frozen=True)
class VideoRequest:
    prompt: str
    width: int
    height: int
    seconds: float = 6.0  # 5-8
    fps: int = 30
    style: str = "photorealistic"
    brand: BrandVoice = field(default_factory=BrandVoice)
    reference: bytes | None = None
    seed: int = 0
    design: PostDesign | None = None


@dataclass(frozen=True)
class VideoResult:
    data: bytes  # MP4 (H.264)
    width: int
    height: int
    seconds: float
    thumbnail: bytes  # JPEG
    content_type: str = "video/mp4"
    alt_text: str = ""
    notes: tuple[str, ...] = ()
    has_audio: bool = False


@dataclass(frozen=True)
class IdeasRequest:
    topic: str
    count: int = 5
    platform: str = ""
    language: str = "en"
    brand: BrandVoice = field(default_factory=BrandVoice)


class Engine(Protocol):
    """Capabilities every engine offers. The client never chooses a model."""

    name: str

    def text(self, request: TextRequest) -> TextResult: ...

    # Optional: ``texts(request) -> dict[str, TextResult]``, one result per platform of
    # ``request.all_platforms``, each written for its platform (see ``texts_for``).

    def ideas(self, request: IdeasRequest) -> list[str]: ...

    def image(self, request: ImageRequest) -> ImageResult: ...

    def edit_image(self, *, image: bytes, prompt: str, seed: int = 0) -> ImageResult: ...

    def video(self, request: VideoRequest) -> VideoResult: ...


class PredictionEngine(Engine, Protocol):
    """An engine that runs as a provider's predictions (completed by webhook or poll)."""

    def result_from_prediction(
        self,
        prediction: Mapping[str, Any],
        kind: str,
        *,
        request: TextRequest | ImageRequest | VideoRequest | IdeasRequest | None = None,
    ) -> TextResult | dict[str, TextResult] | ImageResult | VideoResult | list[str]: ...


def texts_for(engine: Engine, request: TextRequest) -> tuple[dict[str, TextResult], bool]:
    """Every platform's text from one brief: (results by platform, written per platform).

    An engine with ``texts`` writes each platform its own way (True: the pipeline only fits
    them to the platforms' limits). Without it, ``text`` is called once per platform with the
    request aimed at that platform (False: the pipeline shapes each result for its platform
    first, as it did for the one generic text before)."""
    platforms = request.all_platforms
    native = getattr(engine, "texts", None)
    if native is not None:
        results = dict(native(request))
        missing = [p for p in platforms if p not in results]
        if missing:
            raise EngineError(f"the engine wrote no text for {', '.join(missing)}")
        return {p: results[p] for p in platforms}, True
    return {p: engine.text(request.for_platform(p)) for p in platforms}, False
