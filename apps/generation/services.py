"""What generation does for content's services, through the port they call
(``apps.content.ports``): queue a generation, the engine's languages, ideas, an image edit, a new
design."""

from __future__ import annotations

from apps.brands.services import effective_settings
from apps.content.models import Content
from apps.core.errors import RuleViolation
from apps.media.models import MediaAsset

from . import image_edits
from .base import EngineError, IdeasRequest
from .engines import get_engine
from .enqueue import enqueue_generation
from .voice import voice_from


def engine_languages() -> tuple[str, ...] | None:
    """Languages the configured engine writes (None: any ISO 639-1 code, as provider models do)."""
    try:
        return getattr(get_engine(), "languages", None)
    except Exception:  # a misconfigured provider fails at generation time with its own reason
        return None


def ideas_generate(*, brand, profile=None, topic: str = "", count: int = 5) -> dict:
    """Content ideas in the brand's voice; without a topic, from the brand's themes."""
    values, _ = effective_settings(brand=brand, profile=profile)
    voice = voice_from(values, brand)
    subject = (topic or "").strip() or ", ".join(voice.themes)
    if not subject:
        raise RuleViolation(
            "Give a topic, or set themes in the brand's generation settings.",
            problems={"topic": "Required when the brand has no themes."},
        )
    try:
        ideas = get_engine().ideas(
            IdeasRequest(
                topic=subject,
                count=count,
                platform=profile.platform if profile else "",
                language=values.get("language") or "en",
                brand=voice,
            )
        )
    except EngineError as exc:
        raise RuleViolation(f"No ideas could be made: {exc}", problems={"topic": str(exc)}) from None
    return {"topic": subject, "ideas": list(ideas)}


def image_edit(content_id, prompt: str) -> MediaAsset | None:
    """Edit the content's current image with the image model (``image_edits``)."""
    try:
        return image_edits.edit_image(content_id, prompt)
    except EngineError as exc:
        raise RuleViolation(f"The image could not be edited: {exc}", problems={"prompt": str(exc)}) from None


def image_redesign(content_id, design: str | None, *, actor=None) -> list[MediaAsset] | None:
    """The content's pictures drawn again in ``design`` (None: the next layout; ``designs``)."""
    from .designs import design_apply, design_next

    try:
        if design is None:
            content = Content.objects.filter(pk=content_id).first()
            if content is None:
                return None
            design = design_next(content)
        return design_apply(content_id, design, actor=actor)
    except EngineError as exc:
        raise RuleViolation(f"The picture could not be drawn: {exc}", problems={"design": str(exc)}) from None


class Port:
    """``apps.content.ports.GenerationPort``, plugged in by ``GenerationConfig.ready``."""

    def enqueue(self, content_id: str) -> None:
        enqueue_generation(content_id)

    def languages(self) -> tuple[str, ...] | None:
        return engine_languages()

    def ideas(self, *, brand, profile=None, topic: str = "", count: int = 5) -> dict:
        return ideas_generate(brand=brand, profile=profile, topic=topic, count=count)

    def edit_image(self, content_id, prompt: str) -> MediaAsset | None:
        return image_edit(content_id, prompt)

    def redesign(self, content_id, design: str | None, actor=None) -> list[MediaAsset] | None:
        return image_redesign(content_id, design, actor=actor)
