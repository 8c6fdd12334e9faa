"""Reading a post's brief and text for its design: what the post is for (the template), the
code of an offer, the date of an event, and the spec a design is drawn from (``spec_from_text``):
only the post's own sentences, never invented text."""

from __future__ import annotations

import re
from typing import Any

from ..base import BrandVoice
from .palette import parse_hex
from .patterns import _DATE, _PERCENT, _TIME, find_code
from .typeset import plain

TEMPLATES = ("announcement", "offer", "event", "quote", "product", "hiring", "recipe", "notice")
BACKGROUNDS = ("auto", "abstract", "photo", "gradient", "solid")


_INTENTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "notice",
            r"\b(recall\w*|apolog\w*|sorry|incident|outage|safety (?:notice|warning)|do not (?:eat|use|consume|drink)"
            r"|service (?:disruption|interruption)|important notice|will be closed|rappel|retirada|rückruf)",
        ),
        (
            "hiring",
            r"\b(we(?:'re|’re| are) hiring|hiring|join (?:our|the) team|we(?:'re|’re| are) looking for"
            r"|open (?:role|position)s?|job opening|vacanc\w+|recrut\w+|contratando|wir suchen)",
        ),
        ("recipe", r"\b(recipe|ingredients?|how to make|preheat|whisk|receta|recette|rezept|receita)\b"),
        (
            "offer",
            r"\b(sale|discount|clearance|promo(?: code)?|coupon|code|deal|free shipping|off\b|soldes|oferta"
            r"|rabatt|promoção)|\d+\s?%",
        ),
        (
            "event",
            r"\b(event|webinar|meetup|picnic|festival|conference|livestream|workshop|classes|class schedule"
            r"|schedule|timetable|open day|save the date|join us|tasting|concert|market)\b",
        ),
        (
            "product",
            r"\b(release[sd]?|launch(?:es|ed|ing)?|version|v\d+(?:\.\d+)+|now available|introducing"
            r"|new feature|integration|api)\b",
        ),
        ("quote", r"\b(tip|tips|quote|advice|did you know|reminder|lesson|myth|mantra)\b"),
    )
)


def detect_template(prompt: str) -> str:
    """The layout for what the post is for (a recall never gets a festive layout)."""
    for name, pattern in _INTENTS:
        if pattern.search(prompt or ""):
            return name
    return "announcement"


def find_percent(text: str) -> str:
    m = _PERCENT.search(text or "")
    return re.sub(r"\s+", " ", m.group(1)).upper() if m else ""


def find_date(text: str) -> dict[str, str] | None:
    """{day, month, weekday, time} as the brief writes them (shortened to three letters)."""
    m = _DATE.search(text or "")
    if not m:
        return None
    day = m.group("d1") or m.group("d2")
    month = m.group("m1") or m.group("m2")
    if not day or not 1 <= int(day) <= 31:
        return None
    t = _TIME.search(text or "")
    return {
        "day": str(int(day)),
        "month": month[:3].upper(),
        "weekday": (m.group("wd") or "")[:3].upper(),
        "time": t.group(1) if t else "",
    }


_COMMON = frozenset(
    {
        "your",
        "this",
        "with",
        "from",
        "that",
        "have",
        "will",
        "just",
        "more",
        "here",
        "there",
        "about",
        "what",
        "when",
        "they",
        "them",
        "their",
        "into",
        "only",
        "every",
        "than",
        "some",
        "like",
        "make",
        "take",
        "come",
        "over",
        "again",
        "back",
        "still",
        "also",
        "very",
        "much",
        "each",
        "ours",
        "yours",
        "been",
        "were",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "these",
        "those",
        "onto",
        "upon",
        "within",
        "without",
    }
)


def _content_words(text: str) -> set[str]:
    words = {w.casefold() for w in re.findall(r"[^\W\d_]{4,}|\d+", text or "")}
    return words - _COMMON


def names_the_subject(hook: str, facts: list[str]) -> bool:
    """Whether ``hook`` says something of the brief (shares a word of four letters or more, or
    a number, with its sentences): "Meet the Trailhead 2" does, "Big day for us!" does not."""
    return bool(_content_words(hook) & _content_words(" ".join(facts)))


def _mend(facts: list[str]) -> list[str]:
    """Sentence pieces split at an ordinal or an abbreviation ("Am 1." + "Mai eröffnet ...",
    "... since 10:40 a.m." + "CET.") put back together: a piece of one or two words joins the
    sentence it belongs to (the next one after a number, else the previous one)."""
    out: list[str] = []
    carry = ""
    for piece in facts:
        fact = f"{carry} {piece}".strip() if carry else piece
        carry = ""
        after_abbreviation = bool(out) and bool(
            re.search(r"(?:str|St|Nr|No|Dr|Av|Ave|Rd)\.$", out[-1]) and re.match(r"\d", fact)
        )
        if len(fact.split()) < 3 or after_abbreviation or fact[:1].islower():
            if len(fact.split()) < 3 and re.search(r"\d\.$", fact):
                carry = fact
                continue
            if out:
                out[-1] = f"{out[-1]} {fact}"
                continue
        out.append(fact)
    if carry:
        out.append(carry)
    return out


def spec_from_text(
    *,
    prompt: str,
    hook: str,
    facts: list[str],
    cta: str = "",
    brand: BrandVoice,
    template: str = "",
    background: str = "auto",
    language: str = "en",
    intent: str = "",
) -> dict[str, Any]:
    """The design of a post from its brief and its written text: nothing on it is invented.
    ``intent``: the one a person set (settings.intent, issue 31), which the picture's message
    is read for; '' reads it from the brief, as the words do."""
    from .icons import pick_icon
    from .message import TEMPLATE_OF, read_message

    msg = read_message(prompt, language, intent=intent)
    if msg.hero:
        template = TEMPLATE_OF.get(msg.intent, template)
    # a recall, an apology or a closure never gets a festive layout, whatever else the brief says
    template = "notice" if detect_template(prompt) == "notice" else template or detect_template(prompt)
    # a link cannot be tapped on a picture (the caption carries it)
    facts = [plain(f) for f in facts if plain(f) and not re.search(r"https?://|www\.", f)]
    hook = plain(hook) if not re.search(r"https?://|www\.", hook or "") else ""
    facts = _mend(facts)
    first = facts[0] if facts else ""
    second = facts[1] if len(facts) > 1 else ""
    if first and not names_the_subject(hook, facts):
        # "A quick update." says nothing on a picture: the brief's own sentences lead
        headline, sub = first, second
    else:
        headline, sub = hook or first, first if first and first.lower() != (hook or "").lower() else ""
    steps: list[str] = []
    if template == "notice" and first:
        headline, sub = first, second
    elif template == "quote" and first:
        # "Did you know?" leads into the tip itself: both are the card's text
        headline = f"{first} {second}" if first.endswith("?") and second else first
        sub = ""
    elif template == "recipe":
        if len(facts) >= 3:  # the dish, then its steps
            headline, steps = first, facts[1:5]
        else:
            steps = facts[:4]
        sub = ""
    everything = " ".join([prompt, *facts])
    more = [f for f in facts if f not in (headline, sub)][:5]
    spec: dict[str, Any] = {
        "template": template if template in TEMPLATES else "announcement",
        "headline": headline,
        "sub": sub,
        "steps": steps,
        "more": more,
        "cta": plain(cta),
        "badge": (find_code(everything) or find_percent(everything)) if template == "offer" else "",
        "date": find_date(everything) if template == "event" else None,
        "colours": {
            "primary": _hex(brand.primary_color, "#1E66F5"),
            "secondary": _hex(brand.secondary_color, "#F5A97F"),
        },
        "background": background if background in BACKGROUNDS else "auto",
        "brandName": brand.name,
        "prompt": prompt,
    }
    if msg.hero:
        spec["message"] = {
            "intent": msg.intent,
            "kicker": msg.kicker,
            "hero": msg.hero,
            "sub": msg.sub,
            "chips": msg.chips,
            "cta": msg.cta,
            "quote": msg.quote,
            "attribution": msg.attribution,
            "steps": msg.steps,
            "big": msg.big,
            "icon": pick_icon(msg.icon_words, msg.intent),
        }
        # the older layers (layer edits, the alt text) read the headline and the subline
        spec["headline"], spec["sub"] = msg.hero, msg.sub
        if msg.cta:
            spec["cta"] = msg.cta
    return spec


def _hex(value: str, default: str) -> str:
    rgb = parse_hex(value, parse_hex(default, (0, 0, 0)))
    return "#{:02X}{:02X}{:02X}".format(*rgb)
