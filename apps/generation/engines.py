"""Engine selection: settings decide the engine and its models; the client never does."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings

from .base import Engine, EngineError


def _kwargs(prefix: str, names: dict[str, str]) -> dict:
    """Collect constructor arguments from settings named GENERATION_<PREFIX>_<NAME>."""
    out = {}
    for arg, setting in names.items():
        value = getattr(settings, f"{prefix}_{setting}", None)
        if value not in (None, ""):
            out[arg] = value
    return out


def _repairs() -> dict:
    return {"text_repairs": int(getattr(settings, "GENERATION_TEXT_REPAIRS", 2))}


@lru_cache(maxsize=4)
def _build(name: str) -> Engine:
    if name == "local":
        from .local import LocalEngine

        return LocalEngine()
    if name == "openai":
        from .openai_engine import OpenAIEngine

        return OpenAIEngine(
            **_kwargs(
                "OPENAI",
                {
                    "api_key": "API_KEY",
                    "base_url": "BASE_URL",
                    "text_model": "TEXT_MODEL",
                    "image_model": "IMAGE_MODEL",
                    "video_model": "VIDEO_MODEL",
                    "json_mode": "JSON_MODE",
                },
            ),
            **_repairs(),
        )
    if name == "gemini":
        from .gemini_engine import GeminiEngine

        return GeminiEngine(
            **_kwargs(
                "GEMINI",
                {
                    "api_key": "API_KEY",
                    "base_url": "BASE_URL",
                    "text_model": "TEXT_MODEL",
                    "image_model": "IMAGE_MODEL",
                    "video_model": "VIDEO_MODEL",
                    "json_schema": "JSON_SCHEMA",
                },
            ),
            **_repairs(),
        )
    if name == "replicate":
        from .replicate_engine import ReplicateEngine

        kwargs = _kwargs(
            "REPLICATE",
            {
                "api_token": "API_TOKEN",
                "base_url": "BASE_URL",
                "text_model": "TEXT_MODEL",
                "image_model": "IMAGE_MODEL",
                "video_model": "VIDEO_MODEL",
                "webhook_secret": "WEBHOOK_SECRET",
                "webhook_url": "WEBHOOK_URL",
            },
        )
        return ReplicateEngine(**kwargs, **_repairs())
    raise EngineError(f"Unknown GENERATION_ENGINE '{name}': use local, openai, gemini or replicate.")


def get_engine() -> Engine:
    return _build(settings.GENERATION_ENGINE)


__all__ = ["Engine", "EngineError", "get_engine"]
