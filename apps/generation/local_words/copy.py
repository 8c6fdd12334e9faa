"""The local engine's own words (``data/words/<language>.yaml``): hooks, calls to action and
first comments by intent and platform family, link wording. They never state a fact; a
language without a file gets none (the author's words stand alone)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from apps.platforms.intents import SHAPE_INTENTS

from .voice import Voice, apply_substitutions

WORDS_DIR = Path(__file__).resolve().parent.parent / "data" / "words"
#: which family of copy each platform writes with
FAMILY = {
    "instagram": "social",
    "facebook": "social",
    "threads": "social",
    "linkedin": "pro",
    "x": "short",
    "bluesky": "short",
    "mastodon": "short",
    "tiktok": "video",
    "youtube": "video",
    "pinterest": "pin",
}
#: emojis that suit each intent (sober intents have none)
EMOJIS = {
    "opening": ["🎉", "✨", "🥳"],
    "event": ["📅", "🎟️", "✨"],
    "offer": ["🎁", "✨", "🏷️"],
    "hiring": ["💼", "🙌", "🚀"],
    "fundraiser": ["💛", "🤝", "🌱"],
    "recipe": ["🍳", "😋", "🥄"],
    "podcast": ["🎧", "🎙️", "✨"],
    "tip": ["💡", "📌", "✅"],
    "launch": ["✨", "🚀", "🎉"],
    "release": ["🚀", "🛠️", "✨"],
    "announcement": ["📣", "✨", "👋"],
}
#: sound identifiers by register: sober posts get calm ones only
#: sound suggestions a person can act on: the mood and tempo, then the phrase to type into the
#: platform's sound library (TikTok, Reels and Shorts each search their own; no id resolves
#: across them, so none is given). The local engine's synthesised music bed plays the same mood.
SOUNDS = {
    "sober": ['Soft piano, 70 BPM: search "soft piano"', 'Calm ambient pad, 60 BPM: search "ambient calm"'],
    "professional": [
        'Calm corporate piano, 96 BPM: search "corporate piano"',
        'Minimal tech pulse, 110 BPM: search "minimal technology"',
        'Ambient pulse, 90 BPM: search "ambient corporate"',
    ],
    "casual": [
        'Lo-fi chill, 85 BPM: search "lofi chill"',
        'Indie acoustic, 100 BPM: search "indie acoustic"',
        'Summer house, 120 BPM: search "summer house"',
    ],
    "friendly": [
        'Upbeat acoustic pop, 112 BPM: search "upbeat acoustic"',
        'Sunny ukulele, 104 BPM: search "happy ukulele"',
        'Acoustic claps, 112 BPM: search "feel good claps"',
    ],
    "playful": [
        'Funky bass, 124 BPM: search "funky bass"',
        'Quirky pizzicato, 130 BPM: search "quirky pizzicato"',
        'Retro 8-bit, 140 BPM: search "8 bit"',
    ],
    "inspirational": [
        'Cinematic rise, 80 BPM: search "inspiring cinematic"',
        'Epic strings, 92 BPM: search "uplifting strings"',
    ],
    "educational": [
        'Lo-fi chill, 85 BPM: search "lofi study"',
        'Ambient pulse, 90 BPM: search "ambient focus"',
    ],
}


@dataclass(frozen=True)
class Copy:
    """One language's words, as the writers read them."""

    language: str
    data: dict[str, Any]
    voice: Voice | None = None  # the brand's voice every line is written in (``with_voice``)

    def with_voice(self, voice: Voice) -> Copy:
        return Copy(language=self.language, data=self.data, voice=voice)

    def _pool(self, section: str, intent: str, key: str) -> list[str]:
        table = self.data.get(section, {})
        if intent in SHAPE_INTENTS and intent not in table:
            return []  # a closure, a poll, a testimonial say what to do themselves: no stock line
        by_intent = table.get(intent) or table.get("announcement") or {}
        return list(by_intent.get(key) or by_intent.get("all") or [])

    def pick(
        self,
        section: str,
        intent: str,
        key: str,
        rng: random.Random,
        brand: str = "",
    ) -> str:
        """One line of ``section`` for ``intent`` and ``key`` (a family or a platform); lines
        naming the brand only when it has a name; in the brand's locale and register, and only
        lines its voice accepts (no hype for a calm brand, no basket for a clinic)."""
        voice = self.voice
        pool = [
            self.voiced(line) for line in self._pool(section, intent, key) if brand or "{brand}" not in line
        ]
        if voice is not None:
            pool = [line for line in pool if voice.accepts(line)]
        if not pool:
            return ""
        return pool[rng.randrange(len(pool))].replace("{brand}", brand)

    def voiced(self, line: str) -> str:
        """``line`` in the brand's locale ('equipa' in Portugal) and register (du/Sie, tu/você)."""
        voice = self.voice
        if voice is None or not line:
            return line
        if voice.locale:
            line = apply_substitutions(line, dict(self.data.get("locales", {}).get(voice.locale) or {}))
        registers = self.data.get("registers", {})
        if voice.formality:
            table = registers.get(f"{voice.formality}@{voice.locale}") or registers.get(voice.formality) or {}
            line = apply_substitutions(line, dict(table))
        if voice.no_exclamation:
            line = re.sub(r"!+", ".", line).replace("¡", "")
        return line

    def word(self, key: str, **values: str) -> str:
        text = self.data.get(key, "")
        if isinstance(text, dict):
            return ""
        return self.voiced(str(text).format(**values) if values else str(text))

    def link_line(self, platform: str, url: str) -> str:
        lines = self.data.get("link_line", {})
        template = lines.get(platform) or lines.get(FAMILY.get(platform, "")) or "{url}"
        return self.voiced(str(template).format(url=url))

    def label(self, intent: str) -> str:
        return self.voiced(str(self.data.get("labels", {}).get(intent, "")))

    @property
    def prepositions(self) -> re.Pattern[str]:
        return re.compile(
            r"(?:\b(?:" + str(self.data.get("link_prepositions") or "at") + r")\b\s*:?\s*|:\s*)$", re.I
        )


@lru_cache(maxsize=8)
def copy_for(language: str) -> Copy | None:
    path = WORDS_DIR / f"{language}.yaml"
    if not path.exists():
        return None
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return Copy(language=language, data=data)
