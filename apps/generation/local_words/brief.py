"""A brief read once for every platform: the author's sentences (the instruction around them
removed, banned words taken out as words), their facts, the links, the intent and its
register, and the hashtags a person would choose."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

from apps.platforms.facts import (
    CORE_KINDS,
    Fact,
    facts_in,
    is_junk_hashtag,
    note_case,
    split_sentences,
    topic_hashtags,
)
from apps.platforms.intents import INTENTS, SOBER_INTENTS, IntentGuess, classify_intent, reading_language
from apps.platforms.text import find_urls

from ..base import BrandVoice, EngineError, TextRequest
from .copy import Copy, copy_for
from .voice import Voice, read_voice

#: tone words that make a post sober: no emojis, no questions, no hype
SOBER_TONES = frozenset(
    {"empathetic", "serious", "sober", "somber", "sombre", "solemn", "compassionate", "formal", "respectful"}
)
_EMOJI = re.compile(
    "[\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2b06\u2934\u2935\u2b05\u2b07\u3030\u303d]\ufe0f?"
)
_INSTRUCTION = re.compile(
    r"^\s*(?:please\s+)?(?:can you\s+)?(?:write|create|make|generate|draft|compose|give me|post)\b[^.!?:]*?"
    r"\b(?:announcing|about|on|for|featuring|showing|introducing|promoting|celebrating|sharing|covering|"
    r"that says|saying)\s+",
    re.IGNORECASE,
)
_SETTINGS_TAIL = re.compile(
    r"[,;]?\s*\b(?:(?:with|using|add|include|and)\s+(?:a|an|\d+|some|lots of|many|no|a few)?\s*(?:\w+\s+){0,2}"
    r"(?:hashtags?|emojis?)|in an? \w+(?:\s\w+)? (?:tone|voice))\b[^.!?]*",
    re.IGNORECASE,
)
_SETTINGS_SENTENCE = re.compile(
    r"^\s*(?:please\s+)?(?:use|add|include|keep|make|write|mention|avoid)\b.*\b"
    r"(?:tone|hashtags?|emojis?|words|characters|caption|post|voice|style)\b",
    re.IGNORECASE,
)
#: the first words of an instruction to the reader (a recall's "Do not eat them" goes first)
_INSTRUCTIONS_TO_READER = re.compile(
    r"^\s*(?:please\s+)?(?:do not|don't|stop|return|check|contact|call|throw|dispose|bring|avoid|keep away|"
    r"no (?:lo )?consum|devuelv|no coma|ne (?:le )?consommez|rapportez|bitte nicht|nicht verzehren|"
    r"bringen sie|não consum|devolva)",
    re.IGNORECASE,
)


@dataclass
class Brief:
    """What every platform's text is written from."""

    request: TextRequest
    language: str  # ISO 639-1 code of the brief
    copy: Copy | None  # the engine's own words in that language (None: the author's words only)
    sentences: list[str]  # the author's sentences, in their order (sober: instructions first)
    facts: list[Fact]
    urls: list[str]
    intent: str
    sober: bool  # a recall, an apology, an incident: no emojis, no hype, no bait
    quiet: bool  # a sober tone word: no emojis and no questions
    emojis: bool
    sign_off: str
    hashtags: list[str] = field(default_factory=list)
    guess: IntentGuess = field(default_factory=lambda: IntentGuess("announcement", 1.0))
    voice: Voice = field(default_factory=Voice)
    notes: list[str] = field(default_factory=list)  # adaptation notes ('no words of ours in this language')

    @property
    def confident(self) -> bool:
        """Sure enough of the intent to use its hooks and calls to action."""
        return self.guess.confident or self.sober

    @property
    def copy_intent(self) -> str:
        """The intent whose stock lines are used: the detected one when sure, else the neutral
        'announcement'."""
        return self.intent if self.confident else "announcement"

    @property
    def brand(self) -> BrandVoice:
        return self.request.brand

    def rng(self, *parts: object) -> random.Random:
        """A generator seeded from the request and ``parts``: the same request writes the same text."""
        key = repr((self.request, parts)).encode("utf-8")
        return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))

    def facts_of(self, sentence: str) -> list[Fact]:
        return facts_in(sentence, self.language)

    def is_fact_sentence(self, sentence: str) -> bool:
        return bool(self.facts_of(sentence))

    def core_score(self, sentence: str) -> int:
        """How much a short platform needs ``sentence``: its core facts (codes, dates, times,
        prices, links, handles) weigh most, any fact counts."""
        found = self.facts_of(sentence)
        return 3 * sum(1 for f in found if f.kind in CORE_KINDS) + len(found)


_JOINERS = r"(?:and|or|y|o|et|ou|und|oder|e)"


def _rephrase_banned(text: str, dont: tuple[str, ...]) -> str:
    """A banned word goes as a word (never its sentence): 'Cheap bread today.' -> 'Bread today.',
    'waterproof and cheap, made ...' -> 'waterproof, made ...'. Only the words around a removed
    one are tidied; the rest stays as the author wrote it."""
    hole = "\x00"
    for raw in dont:
        item = (raw or "").strip()
        if item:
            pattern = re.compile(r"(?<![\w#@/.])#?" + re.escape(item) + r"(?![\w])", re.IGNORECASE)
            text = pattern.sub(hole, text)
    if hole not in text:
        return text
    text = re.sub(rf"[ \t]+{_JOINERS}[ \t]+{hole}(?=[ \t]*(?:[,.;:!?]|$))", hole, text)
    text = re.sub(rf"{hole}[ \t]+{_JOINERS}[ \t]+", hole, text)  # 'cheap and cheerful' -> 'cheerful'
    text = re.sub(
        rf"\b((?:a|an|the|our|your|un|una|le|la|el|ein|eine|um|uma)[ \t]*){hole}[ \t]*,[ \t]*",
        r"\1",
        text,
        flags=re.I,
    )
    text = re.sub(rf"[ \t]*{hole}[ \t]*([,.;:!?])", r"\1", text)
    text = re.sub(rf"[ \t]*{hole}[ \t]*", " ", text)
    text = re.sub(r",([,.;:!?])", r"\1", text)
    return re.sub(r"^[\s,;:-]+", "", text).strip()


def _capitalise_first(text: str) -> str:
    """The first letter upper-cased, nothing else touched ('crumb Co opens' -> 'Crumb Co opens');
    a sentence that opens with a link, a handle, a tag, a code or a figure stays as written."""
    if any(start == len(text) - len(text.lstrip()) for start, _ in find_urls(text)):
        return text
    first = text.split(" ", 1)[0]
    if first[:2].lower() in ("e.", "i.") or any(c.isdigit() for c in first):
        return text  # 'e.g.', 'i.e.', 'iPhone15'
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :] if ch.islower() else text
        if ch.isdigit() or ch in "@#":
            return text
    return text


def _without_instruction(sentence: str) -> str:
    """The sentence without the instruction around it ("Write a post about ...", "... with 30
    hashtags", "... in a warm tone")."""
    text = _SETTINGS_TAIL.sub("", _INSTRUCTION.sub("", sentence)).rstrip(" ,;:-")
    if text != sentence and text and text[-1] not in ".!?…":
        text += "."
    return text


#: a testimonial typed as a note: 'customer quote, Mark Olsen, fleet manager at Northline: "..."'
_QUOTE_NOTE = re.compile(
    r"^\s*(?:customer quote|client quote|quote|testimonial|review|kundenstimme|zitat|testimonio|"
    r"cita|depoimento|citação|témoignage|citation)\s*[,:]\s*(?P<who>[^:\"“„«]{3,120}?)\s*:\s*"
    r"(?P<quote>[\"“„«].+[\"”“»])\s*$",
    re.IGNORECASE,
)


def _quote_note(prompt: str) -> str:
    """A testimonial typed as a note written as one: the quotation, then who said it ('"We cut
    check calls by half." — Mark Olsen, fleet manager at Northline'); anything else unchanged."""
    m = _QUOTE_NOTE.match(prompt or "")
    if not m:
        return prompt
    return f"{m.group('quote').strip()} — {m.group('who').strip().rstrip(',')}"


def author_sentences(prompt: str, language: str, dont: tuple[str, ...]) -> list[str]:
    """The brief's sentences fit to print: an instruction around them removed ("Write a post
    about ..."), sentences that only set the output ("Use a warm tone.") dropped, banned words
    taken out, the first letter capitalised; every fact kept as written."""
    out: list[str] = []
    for raw in split_sentences(note_case(_quote_note(prompt or ""), language), language):
        sentence = _without_instruction(raw)
        facts = facts_in(sentence, language)
        if not facts and _SETTINGS_SENTENCE.match(sentence):
            continue
        if not facts and re.fullmatch(
            r"(?i)\s*(?:" + "|".join(_instruction_words(language)) + r")\b.*", sentence
        ):
            continue
        sentence = _capitalise_first(_rephrase_banned(sentence, dont))
        if re.fullmatch(r"(?:\s*#\w+)+\s*", sentence):
            continue  # the author's tags alone: they go with the hashtags
        if sentence and re.search(r"\w", sentence):
            out.append(sentence)
    return out


def _instruction_words(language: str) -> list[str]:
    """Verbs that open an instruction to the writer in ``language`` ("Escribe ...", "Erstelle ...")."""
    return {
        "es": ["escribe", "crea", "redacta", "genera", "haz"],
        "fr": ["écris", "écrivez", "rédige", "rédigez", "crée", "créez", "génère"],
        "de": ["schreibe", "schreib", "erstelle", "verfasse", "generiere"],
        "pt": ["escreva", "escreve", "crie", "cria", "redija", "gere"],
    }.get(language, ["write me", "draft me"])


def _sign_off(brand: BrandVoice) -> tuple[bool, str]:
    """(emojis forbidden, sign-off) from the brand's system prompt and caption style."""
    text = f"{brand.system_prompt}\n{brand.caption_style}".lower()
    no_emoji = bool(re.search(r"\b(no|without|never use|avoid|zero)\s+emojis?\b|emoji-free", text))
    sign = re.search(
        r"(?:sign[- ]?off|end|finish)\s+(?:every caption\s+|each caption\s+|captions?\s+)?with\s+"
        r"[\"“']([^\"”']+)[\"”']",
        brand.system_prompt or "",
        re.IGNORECASE,
    )
    return no_emoji, (sign.group(1).strip() if sign else "")


def _ordered(sentences: list[str], sober: bool) -> list[str]:
    """Sober posts: what happened (the first sentence, which the instructions refer to), then
    the instructions to the reader, then the rest."""
    if not sober or len(sentences) < 2:
        return sentences
    lead, rest = sentences[0], sentences[1:]
    first = [s for s in rest if _INSTRUCTIONS_TO_READER.match(s)]
    return [lead, *first, *[s for s in rest if s not in first]]


def _sober_text(sentence: str) -> str:
    text = _EMOJI.sub("", sentence)
    text = re.sub(r"!+", ".", text)
    text = re.sub(r"¡", "", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _hashtags(request: TextRequest, language: str, sentences: list[str], *, sober: bool) -> list[str]:
    """Brand and profile tags, the author's own #tags, the brief's topics, the brand's themes."""
    out: list[str] = []
    seen: set[str] = set()
    banned = {d.strip().casefold() for d in request.brand.dont if d.strip()}

    def add(tag: str, *, trusted: bool = False) -> None:
        tag = tag.strip()
        if not tag:
            return
        tag = tag if tag.startswith("#") else "#" + re.sub(r"[^\w]", "", tag.title())
        body = tag[1:]
        if not re.fullmatch(r"\w+", body or "") or body.casefold() in seen:
            return
        if any(b in body.casefold() for b in banned):
            return
        if not trusted and is_junk_hashtag(tag, language):
            return
        seen.add(body.casefold())
        out.append(tag)

    for tag in request.brand.hashtags:
        add(tag, trusted=True)
    for fact in facts_in(request.prompt, language):
        if fact.kind == "hashtag":  # the author's own tags, as written
            add(fact.text, trusted=True)
    text = " ".join(sentences)
    names = {f.text.casefold().replace(" ", "") for f in facts_in(text, language) if f.kind == "name"}
    for tag in topic_hashtags(text, language, 30):
        if sober and re.sub(r"[^\w]", "", tag[1:]).casefold() not in {re.sub(r"[^\w]", "", n) for n in names}:
            continue  # a sober post carries the names concerned, never topics
        add(tag)
    for theme in () if sober else request.brand.themes:
        words = re.findall(r"[^\W\d_][\w'-]*", theme or "")
        if 1 <= len(words) <= 3:
            add("#" + "".join(w[:1].upper() + w[1:] for w in words))
    return out


def brief_language(request: TextRequest) -> str:
    """The language to write in: ``settings.language`` when it names another language than
    English, else the brief's own (a Spanish brief under the default 'en' gets Spanish words; a
    brief in none of the engine's languages gets no words of the engine)."""
    return reading_language(request.prompt, request.language)  # what content records reads too


def read_brief(request: TextRequest) -> Brief:
    """The brief of ``request``, read once for every platform."""
    language = brief_language(request)
    brand = request.brand
    region = request.language if "-" in (request.language or "").replace("_", "-") else language
    voice = read_voice(brand, region)
    copy = copy_for(language)
    notes: list[str] = []
    if copy is None:
        notes.append(
            f"The local engine has no words of its own in '{language}': the author's sentences are "
            "kept as written, with no hook and no call to action."
        )
    else:
        copy = copy.with_voice(voice)
    sentences = author_sentences(request.prompt, language, (*brand.dont, *voice.avoid))
    if not sentences:
        raise EngineError("the prompt has nothing to write about (only instructions or banned words)")
    asked = (request.intent or "").strip().lower()
    guess = (
        IntentGuess(asked, 1.0, ("settings.intent",)) if asked else classify_intent(request.prompt, language)
    )
    intent = guess.intent
    if intent not in INTENTS:
        raise EngineError(f"unknown intent {intent!r}: use one of {', '.join(INTENTS)}")
    sober = intent in SOBER_INTENTS
    tone_words = {w.casefold() for w in re.findall(r"[\w-]+", f"{request.tone} {brand.tone} {brand.voice}")}
    quiet = sober or bool(tone_words & SOBER_TONES)
    no_emoji, sign_off = _sign_off(brand)
    no_emoji = no_emoji or voice.no_emoji or voice.no_hype
    sign_off = voice.sign_off or sign_off
    if sober:
        sentences = [_sober_text(s) for s in sentences]
    elif voice.no_exclamation:
        sentences = [re.sub(r"!+", ".", s).replace("¡", "") for s in sentences]
    ordered = _ordered(sentences, sober)
    text = " ".join(ordered)
    urls = list(dict.fromkeys(text[s:e] for s, e in find_urls(text)))
    return Brief(
        request=request,
        language=language,
        copy=copy,
        sentences=ordered,
        facts=facts_in(text, language),
        urls=urls,
        intent=intent,
        sober=sober,
        quiet=quiet,
        emojis=request.include_emojis and not no_emoji and not quiet,
        sign_off=sign_off,
        hashtags=_hashtags(request, language, ordered, sober=sober) if request.include_hashtags else [],
        guess=guess,
        voice=voice,
        notes=notes,
    )
