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

WORDS_DIR = Path(__file__).resolve().parent.parent / "data" / "words"
#: which family of copy each platform writes with
FAMILY = {
    "instagram": "social",
    "facebook": "social",
    "threads": "social",
    "linkedin": "pro",
    "x": "short",
    "bluesky": "short",
    "tiktok": "video",
    "youtube": "video",
    "pinterest": "pin",
}
#: emojis that suit each intent (sober intents have none)
EMOJIS = {
    "opening": ["🎉", "✨", "🥳"],
    "event": ["📅", "🎟️", "✨"],
    "offer": ["🛍️", "🎁", "✨"],
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
SOUNDS = {
    "sober": ["sound:soft-piano-70bpm", "sound:ambient-pad-60bpm"],
    "professional": ["sound:corporate-piano-96bpm", "sound:minimal-tech-110bpm", "sound:ambient-pulse-90bpm"],
    "casual": ["sound:lofi-chill-85bpm", "sound:indie-acoustic-100bpm", "sound:summer-house-120bpm"],
    "friendly": ["sound:upbeat-pop-118bpm", "sound:ukulele-sunny-104bpm", "sound:acoustic-claps-112bpm"],
    "playful": ["sound:funky-bass-124bpm", "sound:quirky-pizzicato-130bpm", "sound:retro-8bit-140bpm"],
    "inspirational": ["sound:cinematic-rise-80bpm", "sound:epic-strings-92bpm"],
    "educational": ["sound:lofi-chill-85bpm", "sound:ambient-pulse-90bpm"],
}


@dataclass(frozen=True)
class Copy:
    """One language's words, as the writers read them."""

    language: str
    data: dict[str, Any]

    def _pool(self, section: str, intent: str, key: str) -> list[str]:
        table = self.data.get(section, {})
        by_intent = table.get(intent) or table.get("announcement") or {}
        return list(by_intent.get(key) or by_intent.get("all") or [])

    def pick(self, section: str, intent: str, key: str, rng: random.Random, brand: str = "") -> str:
        """One line of ``section`` for ``intent`` and ``key`` (a family or a platform); lines
        naming the brand only when it has a name."""
        pool = [line for line in self._pool(section, intent, key) if brand or "{brand}" not in line]
        if not pool:
            return ""
        return pool[rng.randrange(len(pool))].replace("{brand}", brand)

    def word(self, key: str, **values: str) -> str:
        text = self.data.get(key, "")
        if isinstance(text, dict):
            return ""
        return str(text).format(**values) if values else str(text)

    def link_line(self, platform: str, url: str) -> str:
        lines = self.data.get("link_line", {})
        template = lines.get(platform) or lines.get(FAMILY.get(platform, "")) or "{url}"
        return str(template).format(url=url)

    def label(self, intent: str) -> str:
        return str(self.data.get("labels", {}).get(intent, ""))

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
