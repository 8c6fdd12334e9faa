"""The local engine's words: every platform of a content written from one brief.

- ``brief``: the brief read once (the author's sentences and facts, links, intent, register,
  hashtags).
- ``copy``: the engine's own words per language (hooks, calls to action, first comments).
- ``writers``: one writer per platform.

The author's facts are sacred: every body sentence is the author's, verbatim (an instruction
around it removed, a banned word taken out as a word); the engine adds only lines that state no
fact (a hook, a call to action, a first comment, link wording).
"""

from __future__ import annotations

import dataclasses

from apps.platforms.rules import normalize_platform

from ..base import EngineError, TextRequest, TextResult
from .brief import Brief, read_brief
from .copy import SOUNDS
from .writers import Writing, write

__all__ = ["Brief", "make_text", "make_texts", "read_brief"]


def _sounds(brief: Brief, tone: str) -> list[str]:
    if brief.sober or brief.quiet:
        return list(SOUNDS["sober"])
    pool = list(SOUNDS.get(tone) or SOUNDS["friendly"])
    shift = brief.rng("sounds").randrange(len(pool))
    return pool[shift:] + pool[:shift]


def _alt_text(request: TextRequest) -> str:
    """The picture's description (the pictures' side of the engine writes it)."""
    from ..local_text import make_alt_text

    try:
        return make_alt_text(request)
    except EngineError:
        return ""


def _intent_note(brief: Brief) -> list[str]:
    """The intent read from the brief, for the reviewer (every variant's adaptations, in both
    API families and the admin): what was seen and how sure; none when settings.intent set it."""
    guess = brief.guess
    if guess.evidence == ("settings.intent",):
        return []
    seen = ", ".join(f"'{e}'" for e in guess.evidence[:3]) or "nothing particular"
    if brief.confident:
        return [
            f"intent read from the brief: {guess.intent} (confidence {guess.confidence:.2f}, from {seen}); "
            "set settings.intent and regenerate to change it"
        ]
    return [
        f"intent read from the brief: {guess.intent}, not sure (confidence {guess.confidence:.2f}, from {seen}): "
        "written with no hook and a neutral call to action; set settings.intent and regenerate to choose one"
    ]


def make_texts(request: TextRequest) -> dict[str, TextResult]:
    """One text per platform of ``request.all_platforms``, each written its own way."""
    from ..local_text import LANGUAGES, normalise_tone

    brief = read_brief(request)
    writing = Writing(brief=brief, post_type=request.post_type, media_type=request.media_type)
    # the picture described in the post's language (a German brief under 'en' gets German alt text)
    alt = (
        _alt_text(dataclasses.replace(request, language=brief.language))
        if brief.language in LANGUAGES
        else ""
    )
    sounds = _sounds(brief, normalise_tone(request.tone, request.brand.tone))
    notes = [*brief.notes, *_intent_note(brief)]
    out: dict[str, TextResult] = {}
    for platform in request.all_platforms:
        text = write(writing, normalize_platform(platform))
        out[platform] = dataclasses.replace(text, alt_text=alt, sounds=sounds, notes=[*notes, *text.notes])
    return out


def make_text(request: TextRequest) -> TextResult:
    """The text of ``request.platform`` alone (as written among the content's platforms)."""
    platforms = request.all_platforms
    return make_texts(request)[request.platform if request.platform in platforms else platforms[0]]
