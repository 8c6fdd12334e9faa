"""The local engine's picture descriptions (alt text) and content ideas, in English, Spanish,
French, German and Portuguese, and the caption data they read. (Captions are written by
``local_words`` from the author's own sentences since issue 19; the template captions that
lived here are gone.)

A caption is assembled from sentences in the requested language: a hook chosen by tone, body
sentences about the subject, sentences about the brand (themes, audience, things to mention)
and a call to action. The subject comes from the prompt: its words minus the language's
stopwords, with the longest run of meaningful words as the main topic. Every choice is made by
a random generator seeded from the whole request, so the same request gives the same text and
another seed gives another text.

The words and sentences are data, one file per language (``data/captions/<code>.yaml``: the
copy, stopwords, weak words, colour names) and what the languages share
(``data/captions/common.yaml``: tones, emojis, sounds, reference colours), loaded once.
English puts the subject anywhere; the other languages name it headline-style ("Neu bei uns:
Yoga-Studio"), where no article, gender or case is needed.
"""

from __future__ import annotations

import hashlib
import random
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from apps.platforms.text import find_urls

from .base import BrandVoice, EngineError, IdeasRequest, TextRequest

CAPTIONS_DIR = Path(__file__).resolve().parent / "data" / "captions"
LENGTHS = ("short", "medium", "long")
#: what every language file holds (``complement``, ``determiners`` and ``determiner_skips`` are optional)
_LANGUAGE_KEYS = ("copy", "link", "colours", "prompt_words", "stopwords", "weak_words", "quantifiers")
_COPY_BY_TONE = ("hooks", "cta")

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Captions:
    """The caption data of every language, as the code reads it."""

    languages: tuple[str, ...]
    tones: tuple[str, ...]
    tone_aliases: Mapping[str, str]
    emojis: Mapping[str, list[str]]  # by tone
    sounds: Mapping[str, list[str]]  # by tone
    colour_names: Mapping[RGB, Mapping[str, str]]  # reference colour -> language -> name
    copy: Mapping[str, dict[str, Any]]  # by language
    link: Mapping[str, str]
    prompt_words: Mapping[str, frozenset[str]]
    stopwords: Mapping[str, frozenset[str]]  # the prompt words included
    weak_words: Mapping[str, frozenset[str]]  # casefolded
    complement: Mapping[str, str]  # a regular expression's alternation: "de|del"
    determiners: frozenset[str]
    determiner_skips: frozenset[str]
    quantifiers: frozenset[str]  # of every language


def _read(name: str) -> dict[str, Any]:
    path = CAPTIONS_DIR / f"{name}.yaml"
    with path.open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict):
        raise RuntimeError(f"{path} holds no mapping")
    return data


@lru_cache(maxsize=1)
def load_captions() -> Captions:
    """The parsed ``data/captions/*.yaml`` (loaded once); a file that lacks a part fails here,
    at import, rather than in the middle of a generation."""
    common = _read("common")
    languages = tuple(common["languages"])
    tones = tuple(common["tones"])
    files = {lang: _read(lang) for lang in languages}
    for lang, data in files.items():
        missing = [key for key in _LANGUAGE_KEYS if key not in data]
        missing += [
            f"copy.{key}.{tone}" for key in _COPY_BY_TONE for tone in tones if tone not in data["copy"][key]
        ]
        missing += [f"colours.{name}" for name in common["colours"] if name not in data["colours"]]
        if missing:
            raise RuntimeError(f"{CAPTIONS_DIR / lang}.yaml has no {', '.join(missing)}")
    english = files.get("en", {})
    return Captions(
        languages=languages,
        tones=tones,
        tone_aliases=dict(common["tone_aliases"]),
        emojis={tone: list(common["emojis"][tone]) for tone in tones},
        sounds={tone: list(common["sounds"][tone]) for tone in tones},
        colour_names={
            (rgb[0], rgb[1], rgb[2]): {lang: files[lang]["colours"][name] for lang in languages}
            for name, rgb in common["colours"].items()
        },
        copy={lang: data["copy"] for lang, data in files.items()},
        link={lang: data["link"] for lang, data in files.items()},
        prompt_words={lang: frozenset(data["prompt_words"]) for lang, data in files.items()},
        stopwords={
            lang: frozenset(data["stopwords"]) | frozenset(data["prompt_words"])
            for lang, data in files.items()
        },
        weak_words={
            lang: frozenset(w.casefold() for w in data["weak_words"]) for lang, data in files.items()
        },
        complement={
            lang: "|".join(data["complement"]) for lang, data in files.items() if data.get("complement")
        },
        determiners=frozenset(english.get("determiners", ())),
        determiner_skips=frozenset(english.get("determiner_skips", ())),
        quantifiers=frozenset(w for data in files.values() for w in data["quantifiers"]),
    )


_CAPTIONS = load_captions()
LANGUAGES = _CAPTIONS.languages
TONES = _CAPTIONS.tones
TONE_ALIASES = _CAPTIONS.tone_aliases
STOPWORDS = _CAPTIONS.stopwords
COLOUR_NAMES = _CAPTIONS.colour_names
EMOJIS = _CAPTIONS.emojis
SOUNDS = _CAPTIONS.sounds
T = _CAPTIONS.copy  # the copy of each language: hooks by tone and by intent, bodies, calls to action, ...
LINK = _CAPTIONS.link  # the sentence that carries the prompt's link(s)
_WEAK_WORDS = _CAPTIONS.weak_words

VIDEO_PLATFORMS = {"tiktok", "youtube"}
THREAD_PLATFORMS = {"x", "twitter", "threads", "bluesky", "mastodon"}
_DO_VERBS = re.compile(
    r"^\s*(?:always\s+)?(?:mention|include|highlight|feature|promote|emphasi[sz]e|talk about|reference|say)\s+(.+)$",
    re.IGNORECASE,
)
_EMOJI_RE = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2728]\ufe0f?")


# --------------------------------------------------------------------------- helpers


def normalise_language(language: str) -> str:
    code = (language or "en").strip().lower().replace("_", "-").split("-")[0]
    if code not in LANGUAGES:
        raise EngineError(
            f"language {language!r} is not available in the local engine; it writes: {', '.join(LANGUAGES)}"
        )
    return code


def normalise_tone(tone: str, fallback: str = "friendly") -> str:
    t = (tone or "").strip().lower()
    if t in TONES:
        return t
    if t in TONE_ALIASES:
        return TONE_ALIASES[t]
    f = (fallback or "").strip().lower()
    return f if f in TONES else TONE_ALIASES.get(f, "friendly")


def normalise_length(length: str) -> str:
    value = (length or "medium").strip().lower()
    if value not in LENGTHS:
        raise EngineError(f"caption length must be one of {', '.join(LENGTHS)}, got {length!r}")
    return value


def _rng(*parts: object) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256(repr(parts).encode("utf-8")).digest()[:8], "big"))


def _dont_patterns(dont: tuple[str, ...]) -> list[re.Pattern]:
    out = []
    for raw in dont:
        item = (raw or "").strip()
        if item:
            out.append(re.compile(r"(?<![\w#])#?" + re.escape(item) + r"(?!\w)", re.IGNORECASE))
    return out


def _violates(text: str, patterns: list[re.Pattern]) -> bool:
    return any(p.search(text) for p in patterns)


def _scrub(text: str, patterns: list[re.Pattern]) -> str:
    for p in patterns:
        text = p.sub("", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r" ([,.!?:;])", r"\1", text)
    return text.strip()


def _tokens(text: str) -> list[str]:
    return re.findall(r"[^\W\d_][\w'’-]*|\d+[\w-]*", text or "")


def prompt_urls(prompt: str) -> list[str]:
    """The links written in the prompt, in order, without duplicates."""
    return list(dict.fromkeys(prompt[s:e] for s, e in find_urls(prompt or "")))


def _without_urls(text: str) -> str:
    for s, e in reversed(find_urls(text or "")):
        text = text[:s] + " . " + text[e:]  # a link ends a phrase, it never joins one
    return text


def _is_name(token: str, sentence_start: bool) -> bool:
    """A name keeps its case: 'Lisbon', 'AeroPress', 'NASA' (a capital first word of a
    sentence is a name only when it has another capital inside)."""
    if not token[:1].isupper():
        return any(c.isupper() for c in token[1:])
    return (not sentence_start) or any(c.isupper() for c in token[1:])


def noun_phrases(prompt: str, language: str, dont: tuple[str, ...] = ()) -> list[list[str]]:
    """Runs of meaningful words of the prompt (stopwords, numbers, links and punctuation end a
    run; a model number after a name stays with it), names in their own case and other words
    in lower case."""
    stop = STOPWORDS[language] | STOPWORDS["en"]
    banned = {d.strip().lower() for d in dont if d.strip()}
    text = _without_urls(prompt or "")
    runs: list[list[str]] = [[]]
    sentence_start = True
    for m in re.finditer(r"[^\W\d_][\w'’-]*|\d+[\w-]*|[.!?;:,()\[\]\n\"“”]", text):
        token = m.group(0)
        if not token[:1].isalnum():
            runs.append([])
            sentence_start = token in ".!?:\n"
            continue
        token = token.strip("'’-")
        low = token.lower()
        start, sentence_start = sentence_start, False
        if token.isdigit() and len(token) <= 4 and runs[-1] and any(c.isupper() for c in runs[-1][-1]):
            runs[-1].append(token)  # a model number belongs to its name: 'Trailhead 2', 'iPhone 15'
            continue
        if low in stop or len(low) < 2 or low in banned or low[:1].isdigit():
            runs.append([])
            continue
        runs[-1].append(token if _is_name(token, start) else low)
    for run in runs:
        while run and run[-1].isdigit():  # a number that ends a phrase is not part of a name
            run.pop()
    return [r for r in runs if r]


_INSTRUCTION = re.compile(
    r"^\s*(?:please\s+)?(?:can you\s+)?(?:write|create|make|generate|draft|compose|give me|post)\b.*?"
    r"\b(?:announcing|about|on|for|featuring|showing|introducing|promoting|celebrating|sharing|covering)\s+",
    re.IGNORECASE,
)
_SETTINGS_TAIL = re.compile(
    r"[,;]?\s*\b(?:with|using|in|and|add|include)\s+(?:a|an|\d+|some|lots of|many|no)?\s*(?:\w+\s+){0,2}"
    r"(?:hashtags?|emojis?|tone|words|characters|voice|style)\b.*$",
    re.IGNORECASE,
)


def prompt_facts(prompt: str, language: str) -> list[str]:
    """The prompt's descriptive sentences, fit to print: the instruction around them removed
    ("Write a post about ..."), settings dropped ("with 30 hashtags"), links left to the link
    sentence. In every language: a prompt that starts with an instruction verb of its language
    ("Escribe ...", "Erstelle ...") is an instruction, not a fact."""
    instruction_verbs = _CAPTIONS.prompt_words.get(language, frozenset()) if language != "en" else frozenset()
    out: list[str] = []
    for raw in re.split(r"(?<=[.!?])\s+|\n+", prompt or ""):
        text = raw.strip()
        if not text or find_urls(text):
            continue
        text = _INSTRUCTION.sub("", text)
        text = _SETTINGS_TAIL.sub("", text).strip(" ,;:-")
        if len(_tokens(text)) < 3 or re.match(
            r"(?i)(write|create|make|generate|draft|use|add|include|keep)\b", text
        ):
            continue
        if _tokens(text)[0].lower() in instruction_verbs:
            continue
        text = re.sub(r"^(?:our|my)\s+new\s+", "Our new ", text, flags=re.IGNORECASE)
        text = _capitalise(text)
        if text[-1] not in ".!?":
            text += "."
        out.append(text)
    return out


def extract_keywords(prompt: str, language: str, dont: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """(topic phrase, keywords) from the prompt, stopwords of the language (and English) removed.
    The topic is the phrase that carries the most (names weigh more), at most four words."""
    runs = noun_phrases(prompt, language, dont)
    keywords: list[str] = []
    seen: set[str] = set()
    for run in runs:
        for word in run:
            if word.casefold() not in seen:
                seen.add(word.casefold())
                keywords.append(word)
    if not runs:
        return "", []
    weak = _WEAK_WORDS.get(language, set()) | _WEAK_WORDS["en"]

    def weight(run: list[str]) -> tuple[int, int]:
        strong = [w for w in run if w.casefold() not in weak]
        return (2 * len(strong) + sum(1 for w in strong if w[:1].isupper()) - runs.index(run), 0)

    # English: the strongest phrase (names weigh more). Other languages: the first phrase, as
    # German capitalises every noun and the word lists are thinner there.
    best = (
        max(runs, key=weight)
        if language == "en"
        else next((r for r in runs if any(w.casefold() not in weak for w in r)), runs[0])[:3]
    )
    while len(best) > 1 and best[0].casefold() in weak and len(best) > 4:
        best = best[1:]
    topic = " ".join(best[:4])
    return topic, keywords


def with_determiner(prompt: str, topic: str) -> str:
    """English: the topic with the determiner the prompt gave it ("the Kyoto ceramics
    workshop", "our single-origin Ethiopian Yirgacheffe", "a senior backend engineer"), so
    that a template never reads "Say hello to Kyoto ceramics workshop". A bare topic (a name,
    a plural, a mass noun: "ceramic planters", "better sourdough") stays bare."""
    m = re.search(r"(?<![\w-])" + re.escape(topic) + r"(?![\w-])", prompt or "", re.IGNORECASE)
    if not m:
        return topic
    after = re.match(r"\s*([\w'’-]+)", prompt[m.end() :])
    if after and after.group(1).lower() not in STOPWORDS["en"]:
        return topic  # 'the Trailhead 2 hiking boots': the determiner belongs to a longer phrase
    before = re.findall(r"[\w'’-]+|[^\w\s]", prompt[: m.start()])
    while before and before[-1].lower() in _CAPTIONS.determiner_skips:
        before.pop()
    if before and before[-1].lower() in _CAPTIONS.determiners:
        det = before[-1].lower()
        if det in ("a", "an"):
            det = "an" if topic[:1].lower() in "aeiou" else "a"
        return f"{det} {topic}"
    return topic


def _with_complement(prompt: str, topic: str, language: str) -> str:
    """Spanish, French, Portuguese: 'menú' followed by 'de temporada' in the prompt is the
    'menú de temporada' (the complement names the thing)."""
    joiner = _CAPTIONS.complement.get(language)
    if not joiner or len(topic.split()) > 2:
        return topic
    m = re.search(
        re.escape(topic) + r"\s+(?:" + joiner + r")\s+([^\W\d_][\w'’-]*)", prompt or "", re.IGNORECASE
    )
    if not m or m.group(1).lower() in STOPWORDS[language]:
        return topic
    return prompt[m.start() : m.end()]


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _fill(template: str, language: str, **values: str) -> str:
    values = {k: v for k, v in values.items()}
    if "topic" in values:
        values["Topic"] = _capitalise(values["topic"])
        values.setdefault("the_topic", values["topic"])
        values["The_topic"] = _capitalise(values["the_topic"])
    if "t" in values:
        values["T"] = _capitalise(values["t"])
    text = template.format(**values)
    if language == "fr":  # elision: "de abeilles" -> "d'abeilles", "que il" -> "qu'il"
        text = re.sub(
            r"\b([dD]e|[qQ]ue) (?=[aeiouyéèêàâîôûAEIOUYÉÈÊÀÂÎÔÛ])", lambda m: m.group(1)[:-1] + "'", text
        )
    return text


def _join(items: list[str], conj: str) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {conj} " + items[-1]


def colour_name(hex_value: str, language: str) -> str:
    text = (hex_value or "").lstrip("#")
    try:
        rgb = (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))
    except ValueError:
        return ""
    ref = min(COLOUR_NAMES, key=lambda c: sum((a - b) ** 2 for a, b in zip(c, rgb, strict=True)))
    return COLOUR_NAMES[ref][language]


def _hashtag(words: str) -> str:
    """'small batches' -> '#SmallBatches', 'Lisbon' -> '#Lisbon', 'coffee' -> '#coffee'."""
    parts = [re.sub(r"[^\w]", "", unicodedata.normalize("NFC", w)) for w in re.split(r"[\s-]+", words)]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    if len(parts) == 1:
        return "#" + parts[0]
    return "#" + "".join(p[:1].upper() + p[1:] for p in parts)


# --------------------------------------------------------------------------- text


def _pick(rng: random.Random, pool: list[str], creativity: int) -> str:
    """Low creativity keeps to the first (safest) templates; high creativity uses all of them."""
    share = 0.4 + 0.06 * max(1, min(10, creativity))
    k = max(1, min(len(pool), round(len(pool) * share)))
    return pool[rng.randrange(k)]


def _system_directives(brand: BrandVoice) -> tuple[bool, str]:
    """(emojis forbidden, sign-off) read from the brand's system prompt and caption style."""
    text = f"{brand.system_prompt}\n{brand.caption_style}".lower()
    no_emoji = bool(re.search(r"\b(no|without|never use|avoid|zero)\s+emojis?\b|emoji-free", text))
    sign = re.search(
        r"(?:sign[- ]?off|end|finish)\s+(?:every caption\s+|each caption\s+|captions?\s+)?with\s+"
        r"[\"“']([^\"”']+)[\"”']",
        brand.system_prompt or "",
        re.IGNORECASE,
    )
    return no_emoji, (sign.group(1).strip() if sign else "")


def other_phrases(prompt: str, language: str, dont: tuple[str, ...], topic: str) -> list[str]:
    """The prompt's noun phrases besides the topic that end on a real noun ('small batches',
    'Lisbon roastery'; never 'bright and floral' or 'brewed best')."""
    weak = _WEAK_WORDS.get(language, set()) | _WEAK_WORDS["en"]
    out: list[str] = []
    for run in noun_phrases(prompt, language, dont):
        phrase = " ".join(run)
        if (
            run[-1].casefold() in weak
            or phrase.casefold() in topic.casefold()
            or re.search(r"(?:ed|ing)$", run[-1])
        ):
            continue
        if phrase.casefold() not in {o.casefold() for o in out}:
            out.append(phrase)
    return out


@dataclass
class _Writer:
    """What one caption is written with: the request read once, the copy of its language and
    intent, and the random generator every choice draws from (in a fixed order: the emojis'
    shuffle, the hook, the bodies' shuffle, the call to action, the first comment, the title,
    the sounds), so that the same request gives the same text."""

    request: TextRequest
    language: str
    length: str
    tone: str
    rng: random.Random
    dont: list[re.Pattern]
    emojis: bool
    sign_off: str
    values: dict[str, str]
    copy: dict[str, Any]
    tone_emojis: list[str]

    @property
    def brand(self) -> BrandVoice:
        return self.request.brand

    @property
    def phrases(self) -> dict[str, Any]:
        """The copy of the request's language."""
        return T[self.language]

    def choose(self, pool: list[str], **extra: str) -> str:
        """A template of ``pool`` filled in: the one drawn first unless it breaks the brand's
        don'ts, then the others in order; the first one scrubbed when they all break them."""
        candidates = list(pool)
        first = _pick(self.rng, candidates, self.request.creativity)
        order = [first] + [c for c in candidates if c != first]
        for template in order:
            sentence = _fill(template, self.language, **self.values, **extra)
            if not _violates(sentence, self.dont):
                return sentence
        return _scrub(_fill(first, self.language, **self.values, **extra), self.dont)

    def fill(self, template: str, **values: str) -> str:
        return _fill(template, self.language, **values)

    def allowed(self, text: str) -> bool:
        return not _violates(text, self.dont)


def _subject(request: TextRequest, language: str, dont: list[re.Pattern]) -> tuple[str, list[str]]:
    """(topic, keywords) of the prompt; a prompt without one writes about the brand's first
    allowed theme, then the brand's name."""
    brand = request.brand
    topic, keywords = extract_keywords(request.prompt, language, brand.dont)
    if topic:
        return topic, keywords
    themes = [t for t in brand.themes if t and not _violates(t, dont)]
    if themes:
        return themes[0], [themes[0]]
    if brand.name:
        return brand.name, [brand.name]
    raise EngineError("the prompt has no subject to write about (only stopwords or banned words)")


def _intent(request: TextRequest, language: str, facts: list[str]) -> dict[str, Any] | None:
    """What the post is for (hiring, a sale, an event), which picks hooks, calls to action and
    first comments a person would write for it; a hook without the subject needs the prompt's
    facts."""
    from apps.platforms.intents import classify_intent

    asked = (request.intent or "").strip().lower()
    guess = classify_intent(request.prompt or "", language)
    intent = asked or (guess.intent if guess.confident else "")
    entry = T[language].get("intents", {}).get(intent)
    if entry is None or (entry.get("needs_facts") and not facts):
        return None
    return dict(entry)


def _writer(request: TextRequest) -> tuple[_Writer, str, list[str], list[str], dict[str, Any] | None]:
    """The writer of ``request`` and what it writes about: (writer, topic, keywords, facts, intent)."""
    language = normalise_language(request.language)
    length = normalise_length(request.length)
    tone = normalise_tone(request.tone, request.brand.tone)
    L = T[language]
    rng = _rng("text", request)
    dont = _dont_patterns(request.brand.dont)
    no_emoji_directive, sign_off = _system_directives(request.brand)

    topic, keywords = _subject(request, language, dont)
    if language == "en":
        the_topic = with_determiner(request.prompt, topic)
    else:
        topic = the_topic = _with_complement(request.prompt, topic, language)
    facts = [f for f in prompt_facts(request.prompt, language) if not _violates(f, dont)]
    intent = _intent(request, language, facts)
    copy = {key: (intent or {}).get(key) or L[key] for key in ("hooks", "cta", "comments", "titles")}
    if not intent:
        copy["hooks"], copy["cta"] = L["hooks"][tone], L["cta"][tone]
    tone_emojis = list(EMOJIS[tone])
    rng.shuffle(tone_emojis)
    writer = _Writer(
        request=request,
        language=language,
        length=length,
        tone=tone,
        rng=rng,
        dont=dont,
        emojis=request.include_emojis and not no_emoji_directive,
        sign_off=sign_off,
        values={"topic": topic, "the_topic": the_topic},
        copy=copy,
        tone_emojis=tone_emojis,
    )
    return writer, topic, keywords, facts, intent


def _alt_text(w: _Writer, topic: str) -> str:
    """The picture described: the subject, two more of the prompt's phrases, the brand's colours."""
    brand, L = w.brand, w.phrases
    colours = _join(
        [
            c
            for c in {
                colour_name(brand.primary_color, w.language): 0,
                colour_name(brand.secondary_color, w.language): 0,
            }
            if c
        ],
        L["and"],
    )
    others = other_phrases(w.request.prompt, w.language, brand.dont, topic)
    extra = w.fill(L["alt_extra"], k2=others[0], k3=others[1]) if len(others) > 1 else ""
    media = "video" if w.request.media_type == "video" else "image"
    return _scrub(w.fill(L["alt"][media], extra=extra, colours=colours, **w.values), w.dont)


def make_alt_text(request: TextRequest) -> str:
    """The description of the content's picture (its subject, two more of the prompt's phrases,
    the brand's colours)."""
    w, topic, _keywords, _facts, _intent = _writer(request)
    return _alt_text(w, topic)


def make_ideas(request: IdeasRequest) -> list[str]:
    language = normalise_language(request.language)
    count = int(request.count)
    if not 1 <= count <= 50:
        raise EngineError(f"ideas count must be between 1 and 50, got {request.count!r}")
    brand = request.brand
    dont = _dont_patterns(brand.dont)
    L = T[language]
    topic, keywords = extract_keywords(request.topic, language, brand.dont)
    subjects: list[str] = []
    for s in [topic, *keywords, *brand.themes]:
        if s and s.lower() not in {x.lower() for x in subjects} and not _violates(s, dont):
            subjects.append(s)
    if not subjects:
        raise EngineError("the topic has no subject to find ideas for")
    rng = _rng("ideas", request)
    templates = list(L["ideas"])
    rng.shuffle(templates)
    platform = (request.platform or "").lower()
    prefix = ""
    if platform in VIDEO_PLATFORMS:
        prefix = L["formats"]["video"]
    elif platform in THREAD_PLATFORMS:
        prefix = L["formats"]["thread"]
    ideas: list[str] = []
    # The main subject goes through every template first, then the other keywords and themes.
    for subject in subjects:
        for template in templates:
            idea = prefix + _fill(template, language, t=subject)
            if not _violates(idea, dont) and idea not in ideas:
                ideas.append(idea)
            if len(ideas) == count:
                return ideas
    if len(ideas) < count:
        raise EngineError(
            f"only {len(ideas)} distinct ideas could be found for this topic (asked for {count})"
        )
    return ideas
