"""What content asks of the generation app, without importing it.

Content sits below generation (docs/architecture.md): generation reads and writes content
through its models and services, and content never imports generation. The few things
content's own services need from the engines (queue a generation, the languages the engine
writes, ideas, an image edit) go through this port, which ``apps.generation`` plugs in when
Django starts (``GenerationConfig.ready``)."""

from __future__ import annotations

from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured


class GenerationPort(Protocol):
    def enqueue(self, content_id: str) -> None:
        """Queue the generation of a `pending` content."""

    def languages(self) -> tuple[str, ...] | None:
        """Languages the configured engine writes (None: any ISO 639-1 code)."""

    def ideas(self, *, brand: Any, profile: Any = None, topic: str = "", count: int = 5) -> dict[str, Any]:
        """Content ideas in the brand's voice: {"topic": ..., "ideas": [...]}; a RuleViolation
        when none can be made."""

    def edit_image(self, content_id: Any, prompt: str) -> Any:
        """Edit the content's current image (the edited MediaAsset; None when the content left
        `review` meanwhile); a RuleViolation when the engine cannot make the edit."""

    def redesign(self, content_id: Any, design: str | None, actor: Any = None) -> Any:
        """Draw the content's pictures again in the layout ``design`` (one of ``DESIGNS``; None:
        the one after the current), text kept (the new MediaAssets; None when the content left
        `review` meanwhile); a RuleViolation when its pictures have no layouts to choose from."""


#: the layouts of a designed picture (the local engine's poster variants), in the order shown
DESIGNS: tuple[str, ...] = ("panel", "light", "type")

_plugged: dict[str, GenerationPort] = {}


def plug(port: GenerationPort) -> None:
    _plugged["generation"] = port


def generation() -> GenerationPort:
    try:
        return _plugged["generation"]
    except KeyError:
        raise ImproperlyConfigured(
            "apps.generation is not in INSTALLED_APPS: content cannot generate"
        ) from None
