"""What a content item is written for (issue 31): the intent its generation used, recorded on
the content with the classifier's confidence and its source, and a reviewer's change of it.

One classifier serves the words and the pictures (``apps.platforms.intents``). When the settings
(post > profile > brand) name an intent, the engines write for it: it is recorded as ``set``
(confidence 1.0, as the engines take it). Otherwise each engine reads the brief with the same
classifier, and the content records what it read (``detected``): the intent when the classifier
is sure, '' when it is not (the writers then use no hook and a neutral call to action), with its
confidence either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.brands.services import effective_settings
from apps.core.errors import InvalidSubject
from apps.platforms.intents import INTENTS, classify_brief

from ..models import Content
from .history import history_record

DETECTED, SET = "detected", "set"
#: the fields `content_intent_record` writes
INTENT_FIELDS = ("intent", "intent_confidence", "intent_source")


@dataclass(frozen=True)
class IntentReading:
    """The intent a generation writes for ('' when unsure), how sure, and where it came from."""

    value: str
    confidence: float
    source: str  # DETECTED or SET


def intent_reading(*, prompt: str, values: dict) -> IntentReading:
    """The intent the engines write ``prompt`` for under the effective settings ``values``."""
    asked = str(values.get("intent") or "").strip().lower()
    if asked:
        return IntentReading(asked, 1.0, SET)
    guess = classify_brief(prompt, str(values.get("language") or "en"))
    return IntentReading(guess.intent if guess.confident else "", round(guess.confidence, 2), DETECTED)


def content_intent_reading(content: Content) -> IntentReading:
    """``intent_reading`` of ``content`` under its effective settings (post > profile > brand)."""
    values, _ = effective_settings(brand=content.brand, profile=content.profile, post=content.settings)
    return intent_reading(prompt=content.prompt, values=values)


def content_intent_record(*, content: Content, save: bool = True) -> IntentReading:
    """Record on ``content`` the intent its (next) generation writes for."""
    reading = content_intent_reading(content)
    content.intent, content.intent_confidence, content.intent_source = (
        reading.value,
        reading.confidence,
        reading.source,
    )
    if save:
        content.save(update_fields=[*INTENT_FIELDS, "updated_at"])
    return reading


def check_intent(intent: object) -> str:
    """A reviewer's intent: one of INTENTS, or '' to have the brief read again (a 400 otherwise)."""
    if not isinstance(intent, str) or (intent and intent not in INTENTS):
        raise InvalidSubject(
            f"Unknown intent {str(intent)[:40]!r}.",
            "intent",
            f"Must be one of {', '.join(INTENTS)}, or empty to read it from the brief again.",
        )
    return intent


def describe(value: str, confidence: float | None, source: str) -> str:
    """The recorded intent in words (the admin, the history): 'offer (set)', 'closure (detected,
    0.90)', 'unsure (detected, 0.45)'."""
    if not source:
        return "none recorded"
    name = value or "unsure"
    if source == SET:
        return f"{name} (set)"
    return f"{name} ({source}, {confidence:.2f})" if confidence is not None else f"{name} ({source})"


def content_intent_set(*, content: Content, intent: str, actor=None) -> Content:
    """A reviewer's intent for ``content`` (locked by the caller): stored in its post settings
    (source ``set``, the engines write for it) or, empty, taken out of them so that the brief
    is read again; recorded, and in the content's history when it changed."""
    intent = check_intent(intent)
    before = describe(content.intent, content.intent_confidence, content.intent_source)
    settings = dict(content.settings or {})
    if intent:
        settings["intent"] = intent
    else:
        settings.pop("intent", None)
    content.settings = settings
    content_intent_record(content=content, save=False)
    content.save(update_fields=["settings", *INTENT_FIELDS, "updated_at"])
    after = describe(content.intent, content.intent_confidence, content.intent_source)
    if after != before:
        asked = f"set to {intent}" if intent else "read from the brief again"
        history_record(
            content=content, actor=actor, action="intent", note=f"Intent {asked}: {before} → {after}."
        )
    return content
