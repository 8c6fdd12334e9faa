"""The embedded ``local`` engine: real captions, images and videos made on the CPU, offline.

Text is the author's brief arranged for each platform, with hooks and calls to action in five
languages (``local_words``; the picture's alt text and ideas in ``local_text``); images are drawn with Pillow and
videos encoded with PyAV/libx264 (``local_media``). Results are deterministic for a given
request and seed, which makes the engine usable in tests and as the default when no AI
provider is configured.
"""

from __future__ import annotations

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
from .local_media import edit_image as _edit_image
from .local_media import make_post_image, make_video
from .local_text import LANGUAGES, make_ideas
from .local_words import make_text, make_texts

__all__ = ["EngineError", "LocalEngine"]


class LocalEngine:
    """Offline engine satisfying the ``Engine`` protocol."""

    name = "local"
    #: ISO 639-1 codes the templates are written in
    languages = LANGUAGES

    def text(self, request: TextRequest) -> TextResult:
        return make_text(request)

    def texts(self, request: TextRequest) -> dict[str, TextResult]:
        """Every platform of ``request`` written its own way from the one brief."""
        return make_texts(request)

    def ideas(self, request: IdeasRequest) -> list[str]:
        return make_ideas(request)

    def image(self, request: ImageRequest) -> ImageResult:
        """A designed post when the request carries its text (``request.design``), else the
        abstract composition; alt text written from what was drawn."""
        data, content_type, alt, notes, design = make_post_image(request)
        return ImageResult(
            data=data,
            width=request.width,
            height=request.height,
            content_type=content_type,
            alt_text=alt,
            notes=notes,
            design=design,
        )

    def edit_image(self, *, image: bytes, prompt: str, seed: int = 0) -> ImageResult:
        """Apply the edits named in ``prompt`` in order (brighter, black and white, crop to 4:5,
        add text "...", ...). Keeps the input's format (JPEG stays JPEG, anything else PNG)."""
        data, width, height, content_type = _edit_image(image, prompt)
        return ImageResult(data=data, width=width, height=height, content_type=content_type)

    def video(self, request: VideoRequest) -> VideoResult:
        made = make_video(request)
        return VideoResult(
            data=made.data,
            width=request.width,
            height=request.height,
            seconds=made.seconds,
            thumbnail=made.thumbnail,
            alt_text=made.alt_text,
            notes=made.notes,
            has_audio=made.has_audio,
        )
