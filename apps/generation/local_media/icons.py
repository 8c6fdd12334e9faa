"""Icons for the designed posts: Lucide's open icons (ISC licence, vendored in
``data/icons/lucide`` with their LICENSE), chosen by the brief's nouns and the post's intent and
rendered by resvg in one of the brand's colours."""

from __future__ import annotations

import io
import re
from functools import lru_cache
from pathlib import Path

from PIL import Image

from .palette import RGB

ICON_DIR = Path(__file__).resolve().parent.parent / "data" / "icons" / "lucide"

#: a word of the brief (its stem: "shipments" starts with "shipment") -> the icon that shows it
NOUNS: dict[str, str] = {
    "tooth": "smile",
    "teeth": "smile",
    "dentist": "smile",
    "dental": "smile",
    "whitening": "sparkles",
    "smile": "smile",
    "brush": "toothbrush",
    "toothbrush": "toothbrush",
    "floss": "toothbrush",
    "zahn": "smile",
    "zähne": "smile",
    "歯": "smile",
    "truck": "truck",
    "freight": "truck",
    "shipment": "package",
    "shipping": "truck",
    "delivery": "truck",
    "parcel": "package",
    "package": "package",
    "container": "container",
    "ride": "bike",
    "e-bike": "bike",
    "ebike": "bike",
    "fahrrad": "bike",
    "ship": "ship",
    "port": "ship",
    "warehouse": "warehouse",
    "flight": "plane",
    "plane": "plane",
    "track": "map-pin",
    "map": "map-pin",
    "route": "map-pin",
    "fracht": "truck",
    "lieferung": "truck",
    "soup": "soup",
    "stew": "soup",
    "curry": "soup",
    "bowl": "soup",
    "salad": "salad",
    "vegan": "leaf",
    "plant": "sprout",
    "lentil": "bean",
    "bean": "bean",
    "kitchen": "chef-hat",
    "chef": "chef-hat",
    "cook": "cooking-pot",
    "recipe": "cooking-pot",
    "dinner": "utensils",
    "lunch": "utensils",
    "brunch": "utensils",
    "menu": "utensils",
    "restaurant": "utensils",
    "food": "utensils",
    "bread": "wheat",
    "sourdough": "wheat",
    "bakery": "croissant",
    "croissant": "croissant",
    "cake": "cake-slice",
    "cookie": "cookie",
    "pizza": "pizza",
    "sandwich": "sandwich",
    "coffee": "coffee",
    "café": "coffee",
    "cafe": "coffee",
    "wine": "wine",
    "beer": "beer",
    "milk": "milk",
    "egg": "egg",
    "apple": "apple",
    "carrot": "carrot",
    "ice": "ice-cream-cone",
    "hummus": "bean",
    "tofu": "leaf",
    "suppe": "soup",
    "eintopf": "soup",
    "küche": "chef-hat",
    "rezept": "cooking-pot",
    "料理": "cooking-pot",
    "hire": "briefcase",
    "hiring": "briefcase",
    "job": "briefcase",
    "role": "briefcase",
    "career": "briefcase",
    "engineer": "code",
    "developer": "code",
    "team": "users",
    "nurse": "stethoscope",
    "hygienist": "smile",
    "workshop": "calendar-days",
    "class": "calendar-days",
    "event": "calendar-days",
    "webinar": "calendar-days",
    "meetup": "users",
    "festival": "party-popper",
    "party": "party-popper",
    "concert": "music",
    "market": "store",
    "shop": "shopping-bag",
    "store": "store",
    "sale": "badge-percent",
    "discount": "badge-percent",
    "offer": "tag",
    "code": "ticket",
    "gift": "gift",
    "voucher": "gift",
    "recall": "triangle-alert",
    "allergy": "triangle-alert",
    "allergen": "triangle-alert",
    "sesame": "triangle-alert",
    "closed": "calendar-x",
    "closure": "calendar-x",
    "holiday": "calendar-x",
    "christmas": "tree-pine",
    "open": "store",
    "opening": "store",
    "reopen": "store",
    "quote": "quote",
    "review": "star",
    "tip": "lightbulb",
    "advice": "lightbulb",
    "launch": "rocket",
    "milestone": "trophy",
    "record": "trophy",
    "million": "trophy",
    "award": "award",
    "podcast": "podcast",
    "episode": "mic",
    "music": "music",
    "charity": "hand-heart",
    "donate": "hand-heart",
    "fundraiser": "heart-handshake",
    "volunteer": "heart-handshake",
    "app": "zap",
    "feature": "zap",
    "software": "cpu",
    "api": "code",
    "dashboard": "chart-line",
    "analytics": "chart-line",
    "growth": "trending-up",
    "data": "database",
    "cloud": "server",
    "live": "zap",
    "car": "car",
    "bike": "bike",
    "gym": "dumbbell",
    "fitness": "dumbbell",
    "course": "graduation-cap",
    "school": "graduation-cap",
    "clinic": "stethoscope",
    "doctor": "stethoscope",
    "pharmacy": "pill",
    "baby": "baby",
    "dog": "dog",
    "pet": "paw-print",
    "hair": "scissors",
    "fashion": "shirt",
    "home": "house",
    "house": "house",
    "office": "building-2",
    "repair": "wrench",
    "paint": "paintbrush",
    "photo": "camera",
    "phone": "phone",
    "email": "mail",
    "summer": "sun",
    "winter": "snowflake",
    "flower": "flower-2",
    "garden": "sprout",
    "news": "newspaper",
    "採用": "briefcase",
    "休業": "calendar-x",
    "休診": "calendar-x",
    "セール": "badge-percent",
    "新": "sparkles",
    "コーヒー": "coffee",
    "パン": "croissant",
    "イベント": "calendar-days",
    "sunrise": "sun",
    "beach": "sun",
    "yoga": "heart",
    "pilates": "heart",
    "inspektion": "wrench",
    "werkstatt": "wrench",
    "mechanic": "wrench",
    "matcha": "leaf",
    "tea": "coffee",
    "茶": "leaf",
}
#: the icon of an intent when no noun of the brief has one
INTENT_ICONS: dict[str, str] = {
    "hiring": "briefcase",
    "recall": "triangle-alert",
    "apology": "heart-handshake",
    "incident": "info",
    "closure": "calendar-x",
    "offer": "badge-percent",
    "event": "calendar-days",
    "launch": "rocket",
    "release": "sparkles",
    "tip": "lightbulb",
    "recipe": "cooking-pot",
    "testimonial": "quote",
    "milestone": "trophy",
    "opening": "store",
    "podcast": "podcast",
    "fundraiser": "hand-heart",
    "announcement": "megaphone",
}
#: sober intents never get a festive icon from the brief's nouns
_SOBER = frozenset({"recall", "apology", "incident"})


def pick_icon(words: list[str], intent: str) -> str:
    """The icon for the brief: its first noun that has one (the intent's icon for a sober post,
    or when none has)."""
    if intent not in _SOBER:
        for word in words:
            for key, icon in NOUNS.items():
                if (
                    word == key
                    or (len(key) >= 4 and word.startswith(key))
                    or (not key.isascii() and key in word)
                ):
                    return icon
    return INTENT_ICONS.get(intent, "megaphone")


@lru_cache(maxsize=64)
def _svg(name: str) -> str:
    path = ICON_DIR / f"{name}.svg"
    if not path.is_file():
        path = ICON_DIR / "megaphone.svg"
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=128)
def icon_image(name: str, size: int, colour: RGB, stroke: float = 2.0) -> Image.Image:
    """The icon ``name`` as an RGBA image ``size`` pixels square, drawn in ``colour``."""
    import resvg_py

    hexc = "#{:02x}{:02x}{:02x}".format(*colour)
    svg = _svg(name).replace("currentColor", hexc)
    svg = re.sub(r'stroke-width="[\d.]+"', f'stroke-width="{stroke}"', svg, count=1)
    data = resvg_py.svg_to_bytes(svg_string=svg, width=size, height=size)
    img = Image.open(io.BytesIO(bytes(data)))
    img.load()
    return img.convert("RGBA")
