"""The author's facts: what a brief states that no rewrite may change or invent.

Pure functions over text (no models), the lowest layer, so that every engine, adaptation and
the admin read a brief the same way:

- ``split_sentences``: sentences, without ending one at "Dr.", "Co.", "e.g.", "3.5", a URL,
  an e-mail address or an ellipsis inside a sentence (English, Spanish, French, German,
  Portuguese abbreviations).
- ``facts_in``: the facts of a text (URLs, @handles, #hashtags, codes, prices, percentages,
  dates, times, numbers, names), each with its span.
- ``fact_sentences`` / ``missing_facts``: the sentences that carry facts, and the facts of a
  brief a caption does not hold verbatim.
- what the post is for (a recall, a closure, a poll, an offer, ...): ``apps.platforms.intents``,
  which reads these facts.
- ``is_junk_hashtag`` / ``topic_hashtags``: hashtags a person would choose (topics), never
  verbs, pronouns, days, times, numbers, handles or URL parts.

The word lists are data (``data/facts_words.yaml``); the intents' patterns are below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from .text import find_urls

LANGUAGES = ("en", "es", "fr", "de", "pt")
FACT_KINDS = ("url", "handle", "hashtag", "code", "price", "percent", "date", "time", "number", "name")
#: the kinds a short platform (X, Threads, Bluesky) keeps whatever it cuts
CORE_KINDS = frozenset({"url", "code", "date", "time", "price", "percent", "handle"})


@dataclass(frozen=True)
class Fact:
    kind: str  # one of FACT_KINDS
    text: str  # verbatim, as the brief writes it
    start: int
    end: int


@dataclass(frozen=True)
class _Words:
    stopwords: frozenset[str]
    weak: frozenset[str]
    verbs: frozenset[str]
    months: frozenset[str]
    days: frozenset[str]
    junk: frozenset[str]
    instruction: frozenset[str]
    never_end: frozenset[str]
    may_end: frozenset[str]


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    path = Path(__file__).parent / "data" / "facts_words.yaml"
    with path.open(encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.safe_load(fh)
    return data


@lru_cache(maxsize=8)
def words(language: str) -> _Words:
    """The word lists of ``language`` (English's for a language without its own)."""
    lang = language_code(language)
    table = _data()["languages"].get(lang) or _data()["languages"]["en"]

    def low(key: str) -> frozenset[str]:
        return frozenset(str(w).casefold() for w in table[key])

    return _Words(
        stopwords=low("stopwords"),
        weak=low("weak"),
        verbs=low("verbs"),
        months=low("months"),
        days=low("days"),
        junk=low("junk"),
        instruction=low("instruction"),
        never_end=_abbr(table, "never_end"),
        may_end=_abbr(table, "may_end"),
    )


def _abbr(table: dict[str, Any], key: str) -> frozenset[str]:
    return frozenset(str(w).casefold().rstrip(".") for w in table["abbreviations"][key])


def language_code(language: str) -> str:
    return (language or "en").strip().lower().replace("_", "-").split("-")[0] or "en"


def _all_words(key: str) -> frozenset[str]:
    out: set[str] = set()
    for lang in LANGUAGES:
        out |= getattr(words(lang), key)
    return frozenset(out)


#: function words of languages the engines have no words for (a brief in one of them is not
#: mistaken for Spanish or Portuguese because it shares 'da' or 'la' with them)
_OTHER_LANGUAGES = {
    "it": frozenset(
        [
            "il",
            "lo",
            "gli",
            "di",
            "che",
            "per",
            "con",
            "della",
            "del",
            "delle",
            "dei",
            "nostro",
            "nostra",
            "nostri",
            "sono",
            "è",
            "alle",
            "dal",
            "nel",
            "nella",
            "questo",
            "questa",
            "una",
            "uno",
            "ci",
            "vi",
            "anche",
            "più",
        ]
    ),
    "nl": frozenset(
        [
            "de",
            "het",
            "een",
            "en",
            "van",
            "voor",
            "met",
            "onze",
            "ons",
            "is",
            "op",
            "bij",
            "niet",
            "ook",
            "zijn",
            "wij",
            "jullie",
            "naar",
        ]
    ),
}


def detect_language(text: str) -> str:
    """The brief's language among ``LANGUAGES`` by its function words (links, handles, tags and
    codes left out); 'other' when it reads as another language (Italian, Dutch, a script other
    than Latin); '' when nothing tells."""
    plain = text or ""
    for fact in sorted(facts_in(plain), key=lambda f: -f.start):
        if fact.kind in ("url", "handle", "hashtag", "code"):
            plain = plain[: fact.start] + " " + plain[fact.end :]
    tokens = [t.casefold() for t in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", plain)]
    if not tokens:
        return ""
    latin = sum(1 for t in tokens if re.fullmatch(r"[a-zà-ÿß'’-]+", t))
    if latin * 2 < len(tokens):
        return "other"
    scores = {lang: sum(1 for t in tokens if t in words(lang).stopwords) for lang in LANGUAGES}
    best = max(LANGUAGES, key=lambda lang: (scores[lang], lang == "en"))
    other = max(sum(1 for t in tokens if t in stop) for stop in _OTHER_LANGUAGES.values())
    if other > scores[best]:
        return "other"
    return best if scores[best] else ""


# --------------------------------------------------------------------------- sentences

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_HANDLE = re.compile(r"(?<![\w@/.])@[A-Za-z0-9_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?")
_HASHTAG = re.compile(r"(?<![\w#&/])#(?=\w*[^\W\d_])\w+")
_END = re.compile(r"([.!?…]+|\.{3})([\"'”’»)\]]*)(?=\s|$)")


def _protected(text: str) -> list[tuple[int, int]]:
    """Spans where a period never ends a sentence: URLs, e-mail addresses, handles."""
    spans = [(s, e) for s, e in find_urls(text)]
    spans += [m.span() for m in _EMAIL.finditer(text)]
    spans += [m.span() for m in _HANDLE.finditer(text)]
    return spans


def _word_before(text: str, pos: int) -> str:
    """The token that ends at ``pos`` (the period excluded): 'Dr', 'e.g', 'a.m', '3'."""
    m = re.search(r"([\w.°%€$£]+)$", text[:pos])  # '0°C' is a temperature, not an initial
    return m.group(1) if m else ""


def _ends_here(text: str, dot: int, after: int, language: str) -> bool:
    """Does the mark at ``dot`` (its run ending at ``after``) end a sentence?"""
    mark = text[dot:after]
    rest = text[after:].lstrip(" \t")
    if not rest or rest[:1] == "\n":
        return True
    if rest[:1].islower():  # 'e.g. flour', 'wait... what': a sentence starts with a capital
        return False
    if "." not in mark or mark.endswith("..") or mark == "…":
        return True  # '!' and '?' end one; an ellipsis before a capital too
    return not _abbreviation(_word_before(text, dot), rest, language)


def _abbreviation(before: str, rest: str, language: str) -> bool:
    """Is the period after ``before`` (``rest`` following) an abbreviation's, inside a sentence?"""
    key = before.casefold()
    w = words(language)
    never = w.never_end | words("en").never_end
    following = re.match(r"[\w'’]+", rest)
    word_after = following.group(0) if following else ""
    german = language_code(language) == "de"
    return (
        key in never
        or key.rstrip(".") in never
        or re.fullmatch(r"[A-Z]", before) is not None  # an initial: 'J. Smith'
        or (german and key.endswith("str"))  # 'Hauptstr. 5'
        or (
            german and before.isdigit() and len(before) <= 2 and word_after.casefold() in w.months
        )  # '1. Mai'
        or (key in (w.may_end | words("en").may_end) and word_after not in _data()["sentence_starters"])
        or (
            key in ("a.m", "p.m") and re.fullmatch(r"[A-Z]{2,4}T?|UTC|GMT", word_after) is not None
        )  # '3 p.m. UTC'
    )


#: quotations a reader never splits: guillemets, curly and German double quotes, curly single
#: quotes, corner brackets, straight double and single quotes (an apostrophe inside a word,
#: "don't", "where's", is no quote mark)
_QUOTES = re.compile(
    r"«[^»\n]*»|“[^”\n]*”|„[^“”\n]*[“”]|(?<!\w)‘[^’\n]*’(?!\w)|「[^」\n]*」|『[^』\n]*』"
    r"|(?<![\w\"])\"[^\"\n]+\"|(?<![\w'])'(?=[¿¡\w])[^'\n]*?[^\s']'(?!\w)"
)


def quote_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the quotations of ``text`` (the outermost ones), where no sentence ends."""
    spans: list[tuple[int, int]] = []
    for m in _QUOTES.finditer(text or ""):
        spans.append(m.span())
    return spans


#: German words before a day's ordinal ('am 3. Oktober', 'zum 5. Geburtstag', 'bis 24. Dezember')
_DE_ORDINAL_BEFORE = frozenset(
    [
        "am",
        "im",
        "zum",
        "vom",
        "ab",
        "bis",
        "seit",
        "dem",
        "den",
        "der",
        "des",
        "die",
        "das",
        "jeden",
        "jeder",
        "jedes",
        "zur",
        "beim",
        "nach",
    ]
)


def _german_ordinal(line: str, dot: int) -> bool:
    m = re.search(r"(?:^|\s)([\w]+)\s+(\d{1,3})$", line[:dot])
    return m is not None and m.group(1).casefold() in _DE_ORDINAL_BEFORE


def split_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of ``text`` in order, stripped; a line break always ends one; a quotation
    is never split (its own '?' or '.' ends no sentence; a mark just before its closing quote
    ends the sentence after the quote); a German ordinal ('am 3. Oktober') ends none."""
    out: list[str] = []
    protected = _protected(text or "")
    german = language_code(language) == "de"
    for line in re.split(r"\n+", text or ""):
        offset = (text or "").find(line)
        start = 0
        quotes = quote_spans(line)
        for m in _END.finditer(line):
            absolute = offset + m.start()
            if any(s <= absolute < e for s, e in protected):
                continue
            if any(s < m.start() and m.end() < e for s, e in quotes):
                continue  # inside a quotation: "¿dónde está mi camión?" ends nothing
            if any(s < m.start() < e <= m.end() for s, e in quotes) and re.match(
                r"[ \t]*[a-zà-ÿ,;:(—–-]", line[m.end() :]
            ):
                continue  # 'She said “Stop.” and left': the sentence goes on after the quote
            if german and m.group(1) == "." and _german_ordinal(line, m.start()):
                continue
            if not _ends_here(line, m.start(), m.end(1), language):
                continue
            piece = line[start : m.end()].strip()
            if piece:
                out.append(piece)
            start = m.end()
        tail = line[start:].strip()
        if tail:
            out.append(tail)
    return out


#: English names a writer always capitalises: weekdays and holidays always; a month or a
#: weekday's short form only beside a day's number ('12 march', 'thu 12'), since 'may', 'march',
#: 'sun' and 'sat' are also ordinary words
_EN_ALWAYS = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|christmas|easter|hanukkah|"
    r"diwali|ramadan|eid|halloween|thanksgiving)\b"
)
_EN_MONTH = (
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
_EN_BESIDE_DAY = re.compile(
    rf"(?<=\d )({_EN_MONTH})\b|\b({_EN_MONTH}|mon|tue|tues|wed|thu|thurs|fri|sat|sun)(?= \d)"
)


def note_case(text: str, language: str = "en") -> str:
    """A brief typed as notes ('closed 24-26 Dec. back 27 Dec 8am.') written as sentences: a
    lowercase letter after a sentence mark is capitalised where the mark ends a sentence (not
    an abbreviation's period, 'e.g. flour', nor inside a link, an address or a quotation), and
    in English the names always written with a capital ('christmas', '12 march', 'thu 12').
    Facts are untouched: only a letter's case changes."""
    if not text:
        return text
    protected = _protected(text) + quote_spans(text)
    chars = list(text)
    for m in re.finditer(r"([.!?…]+)[\"'”’»)\]]*[ \t]+([a-zà-ÿ])", text):
        if any(s <= m.start() < e or s <= m.start(2) < e for s, e in protected):
            continue  # inside a link, an address, a handle or a quotation, or the start of one
        if "." in m.group(1) and not m.group(1).endswith("..") and m.group(1) != "…":
            head = text[: m.start()]
            closed = head.rstrip(")]\"'”’»")  # 'Fleetly). register': the bracket closed a phrase
            before = _word_before(closed, len(closed))
            dated = (
                re.search(r"\d{1,2}\s+[^\W\d_]{3,4}$", closed) is not None
                and before.casefold() in words(language).months | words("en").months
            )  # '31 Jan. book': a date's short month ends the sentence
            if language_code(language) == "de" and before.isdigit() and len(before) <= 2:
                continue  # 'vom 4. bis 17. August': a German ordinal, never a sentence's end here
            if (
                closed == head
                and not dated
                and (not before or "." in before or _abbreviation(before, text[m.start(2) :], language))
            ):
                continue
        chars[m.start(2)] = chars[m.start(2)].upper()
    out = "".join(chars)
    if language_code(language) == "en":

        def up(m: re.Match[str]) -> str:
            if any(s <= m.start() < e for s, e in protected):
                return m.group(0)
            return m.group(0)[:1].upper() + m.group(0)[1:]

        out = _EN_BESIDE_DAY.sub(up, _EN_ALWAYS.sub(up, out))
    return out


# --------------------------------------------------------------------------- facts

_CURRENCY = r"(?:[$€£¥₹]|R\$|US\$|CHF|USD|EUR|GBP|BRL|kr|zł)"
_AMOUNT = r"\d{1,3}(?:[ ,.]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_PRICE = re.compile(
    rf"{_CURRENCY}\s?(?:{_AMOUNT})(?:\s?-\s?{_CURRENCY}?\s?(?:{_AMOUNT}))?|(?:{_AMOUNT})\s?(?:[€£$]|EUR|USD|GBP|CHF|euros?|dollars?|reais)(?!\w)",
    re.IGNORECASE,
)
_PERCENT = re.compile(
    r"\d+(?:[.,]\d+)?\s?%|\d+(?:[.,]\d+)?\s?(?:percent|per cent|por ciento|pour cent|prozent|por cento)\b",
    re.I,
)
_TIME = re.compile(
    r"(?<![\w:.])(?:\d{1,2}(?::\d{2})?\s?(?:a\.m\.|p\.m\.|am|pm|AM|PM)(?![\w])(?:\s?(?:[A-Z]{2,4}T|UTC|GMT)\b)?"
    r"|\d{1,2}[:h]\d{2}(?:\s?(?:a\.m\.|p\.m\.|am|pm|AM|PM|Uhr|h)(?!\w))?(?:\s?(?:[A-Z]{2,4}T|UTC|GMT))?"
    r"|\d{1,2}\s?(?:Uhr|h)(?!\w)|noon|midnight|mediodía|midi|minuit|Mittag|meio-dia)"
    r"(?:\s?(?:-|–|to|a|à|bis|até)\s?\d{1,2}(?::\d{2})?\s?(?:a\.m\.|p\.m\.|am|pm|AM|PM|Uhr|h)?(?!\w))?",
)
_CODE_AFTER = re.compile(
    r"(?:code|coupon|promo|código|cupón|cupom|Code|Gutschein(?:code)?|Rabattcode|code promo)\s*:?\s*"
    r"[\"“']?([A-Z0-9][A-Za-z0-9_-]{2,24})",
    re.IGNORECASE,
)
_CODE = re.compile(r"(?<![\w#@/.-])(?=[A-Z0-9_-]*[A-Z])(?=[A-Z0-9_-]*\d)[A-Z][A-Z0-9_-]{3,24}(?![\w])")
_NUMERIC_DATE = re.compile(
    r"(?<![\w/.:-])(?:\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}/\d{4}"
    r"|\d{1,2}\.\d{1,2}\.(?:\d{2,4})?)(?![\w/:])"
)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?:st|nd|rd|th|º|ª|er|e)?(?![\w])")


def _month_pattern() -> re.Pattern[str]:
    months = sorted(_all_words("months"), key=len, reverse=True)
    days = sorted(_all_words("days"), key=len, reverse=True)
    month = "(?:" + "|".join(re.escape(m) for m in months) + r")\.?"
    day = "(?:" + "|".join(re.escape(d) for d in days) + ")"
    num = r"\d{1,2}(?:st|nd|rd|th|er|º|\.)?"
    year = r"(?:,?\s\d{4})?"
    with_month = (
        rf"(?:{num}(?:\s?(?:-|–)\s?{num})?\s(?:of\s|de\s)?{month}{year}"
        rf"|{month}\s{num}(?:\s?(?:-|–)\s?{num})?{year})"
    )
    return re.compile(rf"(?<!\w)(?:{day},?\s)?{with_month}(?!\w)|(?<!\w){day}(?!\w)", re.IGNORECASE)


_DATE = _month_pattern()


def _sentence_starts(text: str, language: str) -> set[int]:
    starts = {0}
    position = 0
    for sentence in split_sentences(text, language):
        at = text.find(sentence, position)
        if at >= 0:
            lead = re.match(r"[\s¡¿\"“(«•*-]*", sentence)
            starts.add(at + (lead.end() if lead else 0))
            position = at + len(sentence)
    for m in re.finditer(r"\n\s*[¡¿\"“(«•*-]*|:\s+", text):
        starts.add(m.end())
    return starts


def _names(text: str, language: str, taken: list[tuple[int, int]]) -> list[Fact]:
    """Proper names: runs of capitalised words ('Crumb & Co', 'Priya Raman', 'AeroPress'). The
    first word of a sentence counts when it has a capital inside or starts a run of them; in
    German (every noun capitalised) a lone capitalised word is not a name."""
    w = words(language)
    common = w.stopwords | w.verbs | words("en").stopwords | _all_words("days") | _all_words("months")
    starts = _sentence_starts(text, language)
    german = language_code(language) == "de"
    runs: list[list[re.Match[str]]] = [[]]
    for m in re.finditer(r"[^\W\d_][\w'’]*(?:-[^\W\d_][\w'’]*)*|&", text):
        tok = m.group(0)
        run = runs[-1]
        contiguous = bool(run) and re.fullmatch(r"[ \t]+", text[run[-1].end() : m.start()]) is not None
        capital = any(c.isupper() for c in tok)
        if tok == "&" and contiguous:
            run.append(m)
        elif capital and not (m.start() in starts and tok.casefold() in common):
            if not contiguous or m.start() in starts:
                runs.append([])
            runs[-1].append(m)
        else:
            runs.append([])  # 'We', 'Join', 'Our' open a sentence, they name nothing
    out: list[Fact] = []
    for run in runs:
        while run and run[-1].group(0) == "&":
            run.pop()
        if not run:
            continue
        tok = run[0].group(0)
        inner_cap = any(c.isupper() for c in tok[1:])
        lone = len(run) == 1
        if lone and (((run[0].start() in starts or german) and not inner_cap) or tok.casefold() in common):
            continue
        s, e = run[0].start(), run[-1].end()
        if not any(a < e and s < b for a, b in taken):
            out.append(Fact("name", text[s:e], s, e))
    return out


_FACT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("url", _EMAIL),
    ("handle", _HANDLE),
    ("hashtag", _HASHTAG),
    ("code", _CODE),
    ("price", _PRICE),
    ("percent", _PERCENT),
    ("time", _TIME),
    ("date", _DATE),
    ("date", _NUMERIC_DATE),
    ("number", _NUMBER),
)


def facts_in(text: str, language: str = "en") -> list[Fact]:
    """The facts of ``text`` in order of position; a span belongs to one fact (a URL's digits
    are no number, a price's figure no number)."""
    text = text or ""
    found: list[Fact] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if end <= start or any(a < end and start < b for a, b in taken):
            return
        taken.append((start, end))
        found.append(Fact(kind, text[start:end], start, end))

    spans: list[tuple[str, int, int]] = [("url", s, e) for s, e in find_urls(text)]
    for kind, pattern in _FACT_PATTERNS[:3]:
        spans += [(kind, *m.span()) for m in pattern.finditer(text)]
    spans += [
        ("code", *m.span(1))
        for m in _CODE_AFTER.finditer(text)
        if any(c.isdigit() for c in m.group(1)) or m.group(1).isupper()
    ]
    for kind, pattern in _FACT_PATTERNS[3:]:
        spans += [(kind, *m.span()) for m in pattern.finditer(text)]
    for kind, start, end in spans:
        add(kind, start, end)
    found += _names(text, language, taken)
    return sorted(found, key=lambda f: f.start)


def fact_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of ``text`` that carry at least one fact, in order."""
    return [s for s in split_sentences(text, language) if facts_in(s, language)]


def missing_facts(
    brief: str, caption: str, language: str = "en", *, kinds: frozenset[str] | None = None
) -> list[str]:
    """The facts of ``brief`` (of ``kinds``, every kind by default) that ``caption`` does not
    hold verbatim, each once, in order."""
    out: list[str] = []
    for fact in facts_in(brief, language):
        if kinds is not None and fact.kind not in kinds:
            continue
        if fact.text not in caption and fact.text not in out:
            out.append(fact.text)
    return out


# --------------------------------------------------------------------------- hashtags

_URL_PARTS = re.compile(r"(?:https?|www|utm|html?|php|aspx?)\w*|\w*(?:https?|www)\w*|com|org|net|io|co", re.I)


def is_junk_hashtag(tag: str, language: str = "en") -> bool:
    """A tag no person would choose: a stopword, pronoun or verb, a day, month or time, a
    number, a vague word on its own, a URL's part, or under three letters."""
    body = (tag or "").lstrip("#").strip()
    low = body.casefold()
    letters = sum(c.isalpha() for c in body)
    lang = language_code(language)
    return (
        len(body) < 3
        or re.fullmatch(r"\w+", body) is None
        or letters < 3
        or sum(c.isdigit() for c in body) > letters
        or re.fullmatch(r"\d{1,2}(?:am|pm|h|uhr|\d{2})?(?:[a-z]{2,4}t|utc|gmt)?", low) is not None
        or re.fullmatch(r"(?:am|pm)[a-z]{0,4}", low) is not None
        or re.search(r"\d(?:am|pm)", low) is not None
        or _URL_PARTS.fullmatch(low) is not None
        or any(_listed(low, code) for code in {lang, "en"})
        or (
            lang == "en" and not body[:1].isupper() and re.fullmatch(r"[a-z]+(?:ed|ing|ly)", body) is not None
        )
        or (
            lang in ("es", "pt") and re.fullmatch(r"[a-zà-ú]+(?:amos|emos|imos)", low) is not None
        )  # 'abrimos'
        or (lang == "fr" and len(low) > 5 and re.fullmatch(r"[a-zà-ÿ]+ons", low) is not None)  # 'ouvrons'
    )


def _listed(low: str, language: str) -> bool:
    w = words(language)
    return any(
        low in group for group in (w.stopwords, w.verbs, w.days, w.months, w.junk, w.weak, w.instruction)
    )


def _camel(words_: list[str]) -> str:
    return "#" + "".join(w if any(c.isupper() for c in w) else w[:1].upper() + w[1:] for w in words_)


_WEEKDAY_ABBREVIATIONS = frozenset(
    {
        "mon",
        "tue",
        "tues",
        "wed",
        "weds",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "mo",
        "di",
        "mi",
        "do",
        "fr",
        "sa",
        "so",
    }
)


def _phrases(text: str, language: str) -> list[list[str]]:
    """Runs of content words (names in their case), split at stopwords, verbs, numbers,
    facts that are no topic (URLs, handles, codes, times, dates) and punctuation."""
    w, en = words(language), words("en")
    blocked = [
        f
        for f in facts_in(text, language)
        if f.kind not in ("name", "hashtag")
        and not (f.kind == "date" and " " not in f.text and re.search(r"[A-Z][\w'’]*\s$", text[: f.start]))
    ]  # 'Black Friday', 'Cyber Monday' are names, not dates alone
    cleaned = list(text)
    for f in blocked:
        size = f.end - f.start
        cleaned[f.start : f.end] = " . ".ljust(size) if size >= 3 else "." * size  # a fact ends a phrase
    plain = "".join(cleaned)
    plain = _HASHTAG.sub(" . ", plain)
    runs: list[list[str]] = [[]]
    for m in re.finditer(r"[^\W\d_][\w'’]*(?:-[^\W\d_][\w'’]*)*|\d+\w*|[^\w\s]", plain):
        tok = m.group(0).strip("'’")
        low = tok.casefold()
        if tok == "&" and runs[-1] and runs[-1][-1][:1].isupper():
            continue  # 'Crumb & Co' -> #CrumbCo
        after_name = bool(runs[-1]) and runs[-1][-1][:1].isupper() and language_code(language) == "en"
        if (
            not tok
            or not tok[:1].isalpha()
            or len(tok) < 2
            or (after_name and tok[:1].islower() and re.fullmatch(r"[a-z]+[^s]s", tok) is not None)
            or low in w.stopwords
            or low in en.stopwords
            or low in w.verbs
            or low in en.verbs
            or (
                (low in w.days or low in w.months)
                and not (tok[:1].isupper() and runs[-1] and runs[-1][-1][:1].isupper())
            )
            or low in w.instruction
            or low in _WEEKDAY_ABBREVIATIONS  # 'Webinar Thurs 12 June': no #WebinarThurs
            or (tok[:1].islower() and low in en.weak and not runs[-1])
        ):
            runs.append([])
            continue
        runs[-1].append(tok)
    return [r for r in runs if r]


def _name_tags(text: str, language: str) -> list[tuple[str, str]]:
    """(a proper name's words, its tag) for names of two or three words: #LastMilePodcast (a
    generic word before the name left out: 'ein Glas Mango-Lassi' -> #MangoLassi)."""
    name_junk = words(language).junk | words("en").junk
    whole: list[tuple[str, str]] = []
    for fact in facts_in(text, language):
        parts = re.findall(r"[^\W\d_][\w'’]*", fact.text)
        parts = [p for p in parts if p.casefold() not in _WEEKDAY_ABBREVIATIONS]
        while parts and parts[0].casefold() in name_junk:
            parts = parts[1:]
        if fact.kind == "name" and 2 <= len(parts) <= 4 and all(p[:1].isupper() for p in parts):
            whole.append((" ".join(parts), _camel([p.replace("'", "").replace("’", "") for p in parts])))
    return whole


def topic_hashtags(text: str, language: str = "en", count: int = 5) -> list[str]:  # noqa: C901, PLR0912
    """At most ``count`` hashtags a person would choose for ``text``: the author's own #tags
    first, then its noun phrases in its language (two or three words whole, longer ones by
    their last two words, single words when they name something), never junk."""
    out: list[str] = []
    seen: set[str] = set()

    def add(tag: str) -> None:
        key = tag.casefold()
        if any(key[1:] in other for other in seen):
            return  # '#MilePodcast' inside '#LastMilePodcast'
        if key not in seen and not is_junk_hashtag(tag, language):
            seen.add(key)
            out.append(tag)

    for m in _HASHTAG.finditer(text or ""):
        add(m.group(0))
    whole = _name_tags(text or "", language)
    w = words(language)
    weak = w.weak | words("en").weak
    junk = w.junk | words("en").junk
    names = {part for f in facts_in(text or "", language) if f.kind == "name" for part in f.text.split()}
    german = language_code(language) == "de"
    lead = re.match(r"\s*([^\W\d_][\w']*(?: [\w']+){0,2}?)\s*(?::|,|\s[-–—]\s)", text or "")
    label = {t.casefold() for t in re.findall(r"\w+", lead.group(1))} if lead else set()
    singles: list[str] = []
    for phrase in _phrases(text or "", language):
        run = phrase
        while (
            run
            and not run[-1][:1].isupper()
            and (
                run[-1].casefold() in weak
                or re.fullmatch(r"[a-z]+ed", run[-1])  # 'tools provided' -> #Tools
                or (
                    len(run) > 1 and run[-2].endswith("s") and re.fullmatch(r"[a-z]+ing", run[-1]) is not None
                )  # 'calls asking' -> #Calls ('teeth whitening' stays)
                or run[-1].casefold() in junk
            )
        ):
            run = run[:-1]
        while len(run) > 1 and (run[0].casefold() in weak or run[0].casefold() in junk):
            run = run[1:]  # 'usual price' -> #Price (junk), 'ein Glas Mango-Lassi' -> #MangoLassi
        if german:  # every noun is capitalised: adjectives and adverbs are not topics
            run = [t for t in run if t[:1].isupper()] if any(t[:1].isupper() for t in run) else []
        if not run:
            continue
        joined = " ".join(run)
        if lead and joined.casefold() == lead.group(1).strip().casefold():
            continue  # the note's label ('customer quote, ...:') says what kind of post it is
        named = next((tag for name, tag in whole if joined in name or name in joined), "")
        if named:  # part of a proper name: the name whole ('Mile Podcast' -> #LastMilePodcast)
            add(named)
            continue
        if len(run) > 3:
            run = run[-2:]
        if len(run) == 1:
            word = run[0]
            if (len(word) < 4 and not word.isupper()) or is_junk_hashtag(word, language):
                continue  # checked in its own case: 'recalling' is no topic
            if word.casefold() in label:
                continue  # the note's label ('poll:', 'dica:', 'new release:') says what kind of post, not about what
            if word not in names and language_code(language) != "en":
                # a common noun alone outside English ('#Clases', '#Dica', '#Vollzeit',
                # '#Bewerbung', '#Blick'): readers found none worth a tag
                continue
            if re.search(rf"(?i)\b(?:what|who|which|that|it|this)\s+{re.escape(word)}\b", text or ""):
                continue  # 'what stops you': a verb after its subject
            if re.search(rf"(?i)(?:^|\s)[A-Da-d1-4][).]\s+(?:I\s+)?{re.escape(word)}\b", text or ""):
                continue  # a poll's answer ('C) nerves', 'D) I forget') is no topic
            if word not in names:
                singles.append(_camel(run))  # a common noun alone: only when there is little else
                continue
        add(_camel(run))
    for _name, tag in whole:
        add(tag)
    for tag in singles:
        if len(out) >= 2:
            break
        add(tag)
    return out[: max(0, count)]
