"""The picture a provider's image model is asked for: a description of what it should show
(subject, setting, composition, the brand's colours), not the post's brief. A brief says
"Write a friendly post announcing our spring sale, code SPRING20, 20% off at
https://shop.example": an image model given that draws garbled words, a code and a URL. The
description keeps the subject and drops URLs, codes, prices, handles, hashtags, instructions to
the writer and the brand's banned words; it asks for no text unless the brief quotes some to
show."""

from __future__ import annotations

import re

from .base import ImageRequest, VideoRequest
from .local_media.brief import detect_template, find_code
from .local_text import _dont_patterns, _scrub, colour_name, extract_keywords, other_phrases, prompt_facts

_URL = re.compile(
    r"(?:https?://|www\.)\S+?(?=[.,;:!?)]*(?:\s|$))|\b[\w-]+\.(?:com|org|net|io|co|shop|store)\b(?:/\S*?)?(?=[.,;:!?)]*(?:\s|$))",
    re.IGNORECASE,
)
_DANGLING = re.compile(
    r"(?:\s*,)?\s+\b(?:at|for|only|with|from|on|to|and|via|just)\b(?:\s+\b(?:at|for|only|with|from|on|to|via|just)\b)*\s*(?=[,.;:!?]|$)",
    re.IGNORECASE,
)
_PRICE = re.compile(
    r"[$€£¥]\s?\d[\d.,]*|\d[\d.,]*\s?(?:[$€£¥]|usd|eur|gbp|dollars?|euros?)\b|\d{1,3}\s?%\s?(?:off)?",
    re.IGNORECASE,
)
_HANDLES = re.compile(r"[#@]\w+")
_SHOW_TEXT = re.compile(
    r"\b(?:text|words?|saying|that says|reading)\s*[:\-]?\s*[\"“]([^\"”]{1,60})[\"”]", re.IGNORECASE
)

_SETTINGS = {
    "announcement": "shown in its real setting, inviting and well lit",
    "offer": "the products styled attractively on a clean surface",
    "event": "the place of the event with a few people enjoying it",
    "quote": "a calm, uncluttered scene that suits the idea, with generous empty space",
    "product": "the product as the hero on a clean background, soft studio light",
    "hiring": "the team at work in a friendly, real workplace",
    "recipe": "the finished dish on a table, seen from slightly above, natural light",
    "notice": "a calm, neutral still life of the product, no people, no alarming imagery",
}


def _clean(text: str, request: ImageRequest | VideoRequest) -> str:
    code = find_code(text)
    if code:
        text = re.sub(
            rf"\b(?:with\s+|use\s+)?(?:the\s+)?(?:promo\s+)?(?:code|coupon)?\s*[:\-]?\s*{re.escape(code)}\b",
            "",
            text,
            flags=re.IGNORECASE,
        )
    text = _URL.sub("", text)
    text = _PRICE.sub("", text)
    text = _HANDLES.sub("", text)
    text = _scrub(text, _dont_patterns(request.brand.dont))
    text = re.sub(r"\s{2,}", " ", text)
    for _ in range(3):
        text = _DANGLING.sub("", text)
    return re.sub(r"\s+([,.;:!?])", r"\1", text).strip(" ,;:-")


def _composition(request: ImageRequest | VideoRequest) -> str:
    ratio = request.width / max(1, request.height)
    if ratio < 0.7:
        return "Vertical composition, the subject in the middle third, calm space at the top and bottom."
    if ratio > 1.3:
        return "Wide composition, the subject off-centre with room beside it."
    return "Centred composition with some space around the subject."


def _subject(request: ImageRequest | VideoRequest) -> str:
    """What the picture shows: the brief's first descriptive sentence once cleaned (sentences
    with a banned word are left out), else its topic phrase."""
    language = "en"
    cleaned = _clean(request.prompt or "", request)
    dont = _dont_patterns(request.brand.dont)
    facts = [
        f
        for f in (_clean(f, request) for f in prompt_facts(_URL.sub("", request.prompt or ""), language))
        if f and not any(p.search(f) for p in dont)
    ]
    if facts:
        first = facts[0].rstrip(".!?:; ")
        at = (request.prompt or "").lower().find(first.lower())
        head, _, rest = first.partition(" ")
        if at >= 0:  # as the brief writes it (the fact reader capitalises sentences)
            first = (request.prompt or "")[at : at + len(first)]
        elif head in _LOWER_FIRST:
            first = head.lower() + (" " + rest if rest else "")
        return first
    topic, _ = extract_keywords(cleaned, language, request.brand.dont)
    topic = (
        _clean(topic, request)
        or (request.brand.themes[0] if request.brand.themes else "")
        or request.brand.name
    )
    details = [
        p for p in other_phrases(cleaned, language, request.brand.dont, topic)[:3] if _clean(p, request)
    ]
    return topic + (f", with {', '.join(details)}" if details else "")


_LOWER_FIRST = frozenset(["A", "An", "The", "Our", "My", "We", "Its", "This", "These", "Some"])


def visual_description(request: ImageRequest | VideoRequest) -> str:
    """What the picture should show, in plain sentences for an image or video model."""
    template = detect_template(request.prompt or "")
    parts = [
        f"A picture showing {_subject(request)}.",
        f"Setting: {_SETTINGS.get(template, _SETTINGS['announcement'])}.",
        _composition(request),
    ]
    colours = [
        c
        for c in (
            colour_name(request.brand.primary_color, "en"),
            colour_name(request.brand.secondary_color, "en"),
        )
        if c
    ]
    if colours:
        parts.append(
            f"Colour palette leaning on {' and '.join(dict.fromkeys(colours))} "
            f"({request.brand.primary_color}, {request.brand.secondary_color})."
        )
    shown = _SHOW_TEXT.search(request.prompt or "")
    if shown:
        parts.append(f'Show the text "{_clean(shown.group(1), request)}" and no other text.')
    else:
        parts.append("No text, letters, numbers, logos or watermarks in the picture.")
    return " ".join(p for p in parts if p)


def alt_from_prompt(description: str) -> str:
    """Alt text for a provider's picture, from what its final prompt asked for: the subject and
    the setting, said as what the picture was made to show (not as a claim about pixels no one
    has looked at)."""
    subject = re.search(r"A picture showing (.*?)\.(?:\s|$)", description)
    setting = re.search(r"Setting: (.*?)\.(?:\s|$)", description)
    what = subject.group(1) if subject else "the post's subject"
    return f"AI-generated image made to show {what}" + (f", {setting.group(1)}." if setting else ".")
