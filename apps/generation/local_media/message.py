"""The message of a picture, read from the brief's own words: a kicker naming what the post is
for ("WE'RE HIRING", "CLOSED 24 DEC – 1 JAN"), a hero of a few words that carries its point
(the offer, the number, the role, the product), a subline with the supporting fact, chips for
the price, code, date, time, place and phone, and a call to action from the brief's link or
action. Nothing is invented: the hero, the subline, the chips and the call to action are spans
of the brief; the kicker is a label from ``KICKERS`` (or the brief's own dates).

``MUST_HAVE`` declares, once, what a picture of each intent has to show; ``missing_on_picture``
checks a drawn picture's text against it (tests and the pipeline's notes use the same check).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.platforms.facts import note_case
from apps.platforms.facts import words as _language_words

from .atoms import _URL, _WEEKDAYS, Atom, atoms, host_of
from .patterns import _DATE

#: every language's stopwords: a headline cut at its word limit never ends on one
_STOP = frozenset().union(*(_language_words(code).stopwords for code in ("en", "es", "fr", "de", "pt")))

# --------------------------------------------------------------------------- intent


def words_intent(text: str, language: str = "en") -> str:
    """The post's intent as the words engine classifies it (one adapter, so the classifier can
    be re-pointed in one place): ``apps.platforms.intents.detect_intent``."""
    from apps.platforms.intents import detect_intent

    return str(detect_intent(text, language))


_TESTIMONIAL = re.compile(
    r"[\"“„«「『].{12,}?[\"”“»」』]\s*(?:[-–—―]|\bsays\b|\bsaid\b|\bsagt\b)|\btestimonial\b|\breview from\b"
    r"|\bkundenstimme\b|お客様の声|\b(?:customer|client) quote\b|^\s*(?:quote|review)\s*[,:]",
    re.IGNORECASE | re.DOTALL,
)
_CLOSURE = re.compile(
    r"\b(?:closed|closing|we(?:'re| are) closed|holiday hours|reopen\w*|back on|geschlossen|fermé|cerrado)\b"
    r"|休業|休診|休み",
    re.IGNORECASE,
)
_MILESTONE = re.compile(
    r"\b\d[\d,.]*\s?(?:million|billion|thousand|k|m|Mio\.?|Millionen|Tausend)\s+[^\W\d_]{3,}"
    r"|\bmilestone\b|\b\d+(?:st|nd|rd|th) (?:customer|order|anniversary|birthday)\b|万",
    re.IGNORECASE,
)
#: a free trial is an offer even where the words' classifier says news ("clases gratis de prueba")
_FREE_TRIAL = re.compile(
    r"\b(?:free|gratis|gratuit[aeos]?|grátis|kostenlos\w*)\b.{0,30}\b(?:trial|prueba|essai|probe\w*|teste|experimental)\b"
    r"|\b(?:trial|prueba|essai|probe\w*)\b.{0,20}\b(?:free|gratis|gratuit[aeos]?|grátis|kostenlos\w*)\b",
    re.IGNORECASE,
)
_ALLERGY = re.compile(r"\ballerg\w*|\bundeclared\b|\bmay contain\b|\bnuts?\b|\bgluten\b|アレルギー", re.I)


def picture_intent(text: str, language: str = "en") -> str:
    """What the picture is for: the words' intent, refined where a picture differs (a
    testimonial is set as a quote, a closure as dates, a milestone as its number)."""
    intent = words_intent(text, language)
    # the words' classifier reads closures, testimonials and polls from the brief's shape
    if intent in ("recall", "apology", "closure", "testimonial"):
        return intent
    if intent == "poll":
        return "announcement"
    if (_CLOSURE.search(text or "") and _DATE.search(text or "")) or re.search(r"休業|休診", text or ""):
        return "closure"
    if intent == "incident":
        return intent
    if _TESTIMONIAL.search(text or ""):
        return "testimonial"
    if len(re.findall(r"(?:^|\s)(?:\d{1,2}[.)]|step \d+:?|[①-⑩])\s+[^\W\d_]", text or "", re.I)) >= 3:
        return "recipe"
    if intent in ("announcement", "launch", "release") and _MILESTONE.search(text or ""):
        return "milestone"
    return "offer" if intent == "announcement" and _FREE_TRIAL.search(text or "") else intent


#: the layout family of each intent (``layouts.LAYOUTS``' keys the older specs name)
TEMPLATE_OF = {
    "recall": "notice",
    "apology": "notice",
    "incident": "notice",
    "closure": "notice",
    "hiring": "hiring",
    "recipe": "recipe",
    "offer": "offer",
    "event": "event",
    "release": "product",
    "launch": "product",
    "tip": "quote",
    "testimonial": "quote",
    "poll": "announcement",
    "milestone": "announcement",
    "opening": "announcement",
    "podcast": "announcement",
    "fundraiser": "announcement",
    "announcement": "announcement",
}

#: the kicker of each intent per language (upper case is applied when drawn, not to CJK)
KICKERS: dict[str, dict[str, str]] = {
    "en": {
        "hiring": "We're hiring",
        "recall": "Product recall",
        "allergy": "Allergy notice",
        "apology": "An apology",
        "incident": "Service notice",
        "closure": "Closed",
        "offer": "Offer",
        "event": "Save the date",
        "launch": "New",
        "release": "Now available",
        "tip": "Tip",
        "recipe": "Recipe",
        "testimonial": "Kind words",
        "milestone": "Milestone",
        "opening": "Now open",
        "podcast": "New episode",
        "fundraiser": "Fundraiser",
        "announcement": "News",
    },
    "de": {
        "hiring": "Wir stellen ein",
        "recall": "Rückruf",
        "allergy": "Allergiehinweis",
        "apology": "Entschuldigung",
        "incident": "Servicehinweis",
        "closure": "Geschlossen",
        "offer": "Angebot",
        "event": "Termin",
        "launch": "Neu",
        "release": "Jetzt verfügbar",
        "tip": "Tipp",
        "recipe": "Rezept",
        "testimonial": "Kundenstimme",
        "milestone": "Meilenstein",
        "opening": "Neueröffnung",
        "podcast": "Neue Folge",
        "fundraiser": "Spendenaktion",
        "announcement": "Neuigkeiten",
    },
    "ja": {
        "hiring": "採用情報",
        "recall": "回収のお知らせ",
        "allergy": "アレルギー表示",
        "apology": "お詫び",
        "incident": "お知らせ",
        "closure": "休業のお知らせ",
        "offer": "キャンペーン",
        "event": "イベント",
        "launch": "新発売",
        "release": "新登場",
        "tip": "ヒント",
        "recipe": "レシピ",
        "testimonial": "お客様の声",
        "milestone": "達成",
        "opening": "オープン",
        "podcast": "新エピソード",
        "fundraiser": "募金",
        "announcement": "お知らせ",
    },
    "fr": {
        "hiring": "On recrute",
        "recall": "Rappel produit",
        "allergy": "Allergènes",
        "closure": "Fermé",
        "offer": "Offre",
        "event": "Événement",
        "launch": "Nouveau",
        "tip": "Astuce",
        "recipe": "Recette",
        "announcement": "Actualité",
    },
    "es": {
        "hiring": "Estamos contratando",
        "recall": "Retirada de producto",
        "allergy": "Aviso de alérgenos",
        "closure": "Cerrado",
        "offer": "Oferta",
        "event": "Evento",
        "launch": "Nuevo",
        "tip": "Consejo",
        "recipe": "Receta",
        "announcement": "Novedades",
    },
}


def kicker_words() -> set[str]:
    """Every word a kicker may draw (what a picture may say beyond the brief and the brand)."""
    return {
        w.casefold()
        for table in KICKERS.values()
        for label in table.values()
        for w in re.findall(r"[^\W_]+(?:['’][^\W_]+)?", label)
    }


#: what a picture of each intent must show (``Message`` fields, ``kind:`` the brief's atoms of
#: that kind, every one of them), declared once and checked by ``missing_on_picture``
MUST_HAVE: dict[str, tuple[str, ...]] = {
    "recall": ("hero", "hazard", "instruction"),
    "closure": ("kind:date", "reopening"),
    "testimonial": ("quote", "attribution"),
    "recipe": ("steps",),
    "event": ("kind:date", "kind:time", "place"),
    "hiring": ("role", "place", "kind:pay", "apply"),
    "offer": ("hero", "kind:code", "kind:percent", "kind:price"),
    "milestone": ("hero",),
    "launch": ("hero",),
    "release": ("hero",),
}

# --------------------------------------------------------------------------- the message


@dataclass
class Message:
    intent: str
    kicker: str = ""
    hero: str = ""
    sub: str = ""
    chips: list[str] = field(default_factory=list)
    cta: str = ""
    quote: str = ""
    attribution: str = ""
    steps: list[str] = field(default_factory=list)
    role: str = ""
    place: str = ""
    apply: str = ""
    hazard: str = ""
    instruction: str = ""
    reopening: str = ""
    big: str = ""  # the oversized typographic figure (a number, a price, a date), "" none
    icon_words: list[str] = field(default_factory=list)
    atoms: list[Atom] = field(default_factory=list)


_SENT = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")

_FILLER = re.compile(
    r"^(?:(?:big|great|exciting|good|some) news[:!,.]?\s*|we(?:'re| are)? (?:so |very |really )?(?:excited|thrilled|proud|happy|pleased)"
    r" to (?:announce|share|say|introduce|welcome)(?: that)?\s*|(?:today|finally|guess what)[,:!]?\s*|"
    r"(?:introducing|announcing|meet)\s+(?:the\s+|our\s+(?:new\s+)?)?|psst[.!,]?\s*|hey[,!]?\s*|"
    r"(?:quick |pro |today's |our )?tip(?: of the \w+)?[:!.]\s*|did you know\??[:,]?\s*(?:that\s+)?|tipp[:!]\s*)",
    re.IGNORECASE,
)
_CLAUSE = re.compile(
    r"\s*[,;:–—]\s+|\s+-\s+|\s+(?:with|and|because|so that|which|while|from|until|to celebrate|—)\s+"
)
_FUNCTION = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "with",
        "by",
        "from",
        "our",
        "your",
        "we",
        "you",
        "is",
        "are",
        "be",
        "this",
        "that",
        "as",
        "der",
        "die",
        "das",
        "und",
        "mit",
        "für",
        "von",
        "zu",
        "im",
        "am",
        "ein",
        "eine",
        "unser",
        "unsere",
    ]
)


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for piece in (s.strip() for s in _SENT.split(text or "") if s and s.strip()):
        if (
            out
            and re.search(r"(?:^|\s)\d{1,2}\.$", out[-1])
            and (
                piece[:1].islower()
                or re.match(r"(?:jan|feb|m[äa]r|apr|mai|jun|jul|aug|sep|okt|nov|dez)", piece, re.I)
            )
        ):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _trim_words(phrase: str, limit: int = 6) -> str:
    """``phrase`` cut to ``limit`` words at most, never ending on a function word, with the
    sentence's closing punctuation removed; an unbreakable atom is never cut."""
    phrase = phrase.strip().rstrip(".,;:!").strip()
    if _spaceless(phrase):
        return phrase[:22] if len(phrase) > 22 else phrase
    words = phrase.split()
    cut_short = len(words) > limit
    if len(words) > limit:
        cut = words[limit][:1].isupper() and words[limit - 1][:1].isupper()
        words = words[:limit]
        while cut and len(words) > 2 and words[-1][:1].isupper():
            words.pop()  # a name is never cut in two ("... opens on Rue" of "Rue Verte")
    while len(words) > 1 and (
        words[-1].casefold().strip(",.") in _FUNCTION
        or (cut_short and words[-1].casefold().strip(",.") in _STOP)
        or (cut_short and words[-1].casefold() in ("desde", "hasta", "ab", "bis", "depuis"))
    ):
        words.pop()  # a phrase cut at its limit: 'Nuevo horario de verano desde el' -> '... de verano'

    return " ".join(words).rstrip(",;:")


def _spaceless(text: str) -> bool:
    return bool(re.search(r"[\u3040-\u30ff\u3400-\u9fff]", text))


def _clauses(sentence: str) -> list[str]:
    sentence = _FILLER.sub("", sentence.strip()).strip()
    if _spaceless(sentence):
        return [p for p in re.split(r"[、。！？!?]", sentence) if p.strip()]
    return [c for c in _CLAUSE.split(sentence) if c and c.strip()]


def _first_clause(text: str) -> str:
    for s in sentences(text):
        for clause in _clauses(s):
            if len(re.findall(r"[^\W_]{3,}|\d+", clause)) >= 1 and clause.strip():
                return clause
    return ""


def _capitalised_run(text: str) -> str:
    m = re.search(r"(?:[A-Z][\w'’-]*|\d+(?:\.\d+)*)(?:\s+(?:[A-Z][\w'’-]*|\d+(?:\.\d+)*))+", text)
    return m.group(0) if m else ""


def _sentence_with(text: str, pattern: str) -> str:
    rx = re.compile(pattern, re.IGNORECASE)
    return next((s for s in sentences(text) if rx.search(s)), "")


def _short_sentence_with(text: str, pattern: str) -> str:
    """The first sentence matching ``pattern`` of eight words at most, else the first matching."""
    rx = re.compile(pattern, re.IGNORECASE)
    hits = [s for s in sentences(text) if rx.search(s)]
    linked = [s for s in hits if _URL.search(s)]  # "Book at x.com" over "Bring your own mat"
    return next((s for s in linked + hits if len(s.split()) <= 8), hits[0] if hits else "")


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:] if word else word


def _hero_offer(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    m = re.search(
        r"(\d{1,3}\s?%\s?(?:off|Rabatt)(?:\s+(?:all\s+|every\s+|our\s+|on\s+|auf\s+)?[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)?)?)",
        text,
        re.I,
    )
    if m:
        hero = m.group(1)
        tail = hero.split()
        while len(tail) > 2 and (
            tail[-1].casefold() in _FUNCTION or tail[-1].casefold() in ("with", "until", "code")
        ):
            tail.pop()
        msg.hero = " ".join(tail)
    elif "price" in kinds:
        # the price and the few words that say what it buys: "first month for £29"
        price = kinds["price"]
        before = re.search(rf"([^.,;:!?]*?)\s*{re.escape(price)}", text)
        words = (before.group(1).split() if before else [])[-4:]
        while words and words[0].casefold() in _FUNCTION | {"get", "gets", "their", "his", "her"}:
            words.pop(0)
        msg.hero = _cap(" ".join([*words, price]))
    msg.big = kinds.get("percent") or kinds.get("price", "")


def _hero_hiring(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    url = kinds.get("url", "")
    m = re.search(
        r"(?:hiring|looking for|join us as|suchen|recrute|buscamos)\s+(?:an?\s+|eine?n?\s+|un(?:e)?\s+)?"
        r"([\w'’/+#.-]+(?:\s[\w'’/+#.-]+){0,5}?)(?=\s+(?:in|at|to|for|who|based|im|in der|à|en|–|-)\b|[,.(!]|$)",
        text,
        re.I,
    )
    msg.role = m.group(1).strip() if m else _capitalised_run(lead)
    msg.hero = _trim_words(msg.role, 6)
    msg.apply = _sentence_with(text, r"\bapply|bewirb|bewerb|postul|send (?:us )?your|応募") or (
        host_of(url) if url else ""
    )
    msg.apply = msg.apply.rstrip(".")
    if msg.apply and len(msg.apply.split()) <= 9:
        msg.cta = msg.apply


def _hero_launch(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    m = re.search(
        r"(?:introducing|meet|launch(?:es|ed|ing)?|announcing|unveil\w*|presenting|say hello to|"
        r"now available:?|is here|ist da|neu:?)\s+(?:the\s+|our\s+(?:new\s+)?|new\s+|unser(?:e|en)?\s+(?:neue[n]?\s+)?)?"
        r"([^.,;:!?]+)",
        text,
        re.I,
    )
    name = _capitalised_run(m.group(1)) if m else ""
    msg.hero = _trim_words(name or (m.group(1) if m else _first_clause(text)), 6)


def _hero_milestone(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    m = _MILESTONE.search(text)
    msg.hero = _trim_words(m.group(0), 4) if m else _trim_words(_first_clause(text))
    num = re.match(r"[\d,.]+\s?(?:million|billion|thousand|k|m|Mio\.?|Millionen)?", msg.hero, re.I)
    msg.big = num.group(0).strip() if num else ""


def _hero_testimonial(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    m = re.search(r"[\"“„«「『](.{12,}?)[\"”“»」』]", text, re.S)
    msg.quote = m.group(1).strip() if m else _first_clause(text)
    after = text[m.end() :] if m else ""
    a = re.match(r"\s*(?:[-–—―]|says|said|sagt)\s*([^.!?\n]{2,60})", after, re.I)
    msg.attribution = a.group(1).strip().rstrip(",") if a else ""
    msg.hero = msg.quote


def _hero_recipe(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    parts = re.split(r"(?:^|\s)(?:\d{1,2}[.)]|step \d+:?|[①-⑩])\s+", text, flags=re.I)
    steps = [p.strip() for p in parts[1:]] if len(parts) > 2 else []
    if steps:
        lead = parts[0]
    if not steps:
        all_s = sentences(text)
        steps = all_s[1:] if len(all_s) > 2 else all_s
    msg.steps = [s.rstrip() for s in steps if s.strip()]
    title = re.split(r"(?:\s*[:.!]\s*|\s+(?:in|for)\s+\d)", lead)[0]
    title = re.sub(r"^(?:our|my|the|a|an|how to make)\s+", "", title, flags=re.I)
    msg.hero = _trim_words(title, 6)


def _hero_notice(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    intent = msg.intent
    instr = re.search(
        r"(?:do not|don't|please do not|nicht)\s+[^.,;:!?]+|(?:return|bring)\s+(?:it|them)\s+[^.,;:!?]+",
        text,
        re.I,
    )
    msg.instruction = (
        _trim_words(re.split(r"\s+(?:if|unless|when|wenn|falls)\s+", instr.group(0))[0], 8) if instr else ""
    )
    msg.hazard = _sentence_with(
        text, r"may contain|contains|undeclared|allerg|risk|hazard|enthält|kann .* enthalten"
    )
    if intent == "closure":
        re_m = re.search(
            r"(?:(?:we\s+)?re-?open(?:s|ing)?|back(?:\s+on)?|open again|wieder (?:geöffnet|da|für sie da))\s*(?:on\s+|am\s+|from\s+|ab\s+)?"
            r"([^.,;!?]*\d[^.,;!?]*)",
            text,
            re.I,
        )
        if re_m:
            msg.reopening = _trim_words(re.sub(r"^we\s+", "", re_m.group(0), flags=re.I), 6)
        de = re.search(r"\b(?:ab|am)\s+\d{1,2}\.\s*[^\W\d_]+[^.!?]*\bwieder\b[^.!?]*", text, re.I)
        if de:
            msg.reopening = _trim_words(de.group(0), 9)
        ja = re.search(r"[^。、]*(?:から|より)[^。、]*(?:営業|診療|再開)[^。、]*", text)
        if ja:
            msg.reopening = ja.group(0)
        msg.hero = msg.reopening or _trim_words(_first_clause(text))
    elif intent == "recall":
        msg.hero = msg.instruction or _trim_words(_first_clause(text))
    else:
        msg.hero = _trim_words(_first_clause(text))


def _hero_event(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    clause = _first_clause(text)
    clause = re.sub(
        r"^(?:join us (?:for|at)|come (?:to|along to)|join)\s+(?:our\s+|the\s+|a\s+)?",
        "",
        clause,
        flags=re.I,
    )
    clause = re.split(r"\s+(?:on|this|next|at|am|um)\s+", clause)[0]
    msg.hero = _trim_words(_cap(clause), 6)


def _hero_other(msg: Message, text: str, kinds: dict[str, str], lead: str) -> None:
    msg.hero = _trim_words(_first_clause(text), 6)


_HEROES = {
    "offer": _hero_offer,
    "hiring": _hero_hiring,
    "launch": _hero_launch,
    "release": _hero_launch,
    "milestone": _hero_milestone,
    "testimonial": _hero_testimonial,
    "recipe": _hero_recipe,
    "recall": _hero_notice,
    "apology": _hero_notice,
    "incident": _hero_notice,
    "closure": _hero_notice,
    "event": _hero_event,
}


#: a brief written as notes opens with a label naming the kind of post, then ":" or " - "
_LABEL = re.compile(r"^(?P<label>[^:.!?\n\"“„«]{2,70}?)(?:\s*:\s+|\s+[-–—]\s+)(?P<body>\S.*)$", re.S)
_LABEL_WORDS = re.compile(
    r"^(?:poll|umfrage|encuesta|enquete|enquête|sondage|(?:quick |pro |today's )?tips?|tipp|dica|consejo|astuce|"
    r"webinar|workshop|event|(?:customer |client )?(?:quote|review|testimonial)|kundenstimme|launching|launch|"
    r"new|neu|nuevo|nueva|novo|nova|nouveau|nouvelle|reminder|update|offer|angebot|oferta|offre)\b",
    re.IGNORECASE,
)


def split_label(text: str) -> tuple[str, str]:
    """A note's leading label and what follows it ("poll: what stops you ..." -> "poll", "what
    stops you ..."), or ``("", text)``: a label is a few words, the brief's first, then ":" or
    " - ", and either the brief is written in lower case or it names a kind of post."""
    m = _LABEL.match(text or "")
    if not m:
        return "", text
    label, body, sep = (
        m.group("label").strip(),
        m.group("body"),
        text[len(m.group("label")) : m.start("body")],
    )
    if len(label.split(",")[0].split()) > 6 or (sep.strip() != ":" and body[:1].isdigit()):
        return "", text  # "closed 24 Dec - 1 Jan" is a range, not a label
    if not (text[:1].islower() or _LABEL_WORDS.match(label)):
        return "", text
    return label, body


def _label_kicker(label: str) -> str:
    """The words naming the kind of post: the label up to its first comma, date or number
    ("webinar thu 12 march 4pm" -> "webinar")."""
    words: list[str] = []
    for w in label.split(",", maxsplit=1)[0].split():
        if re.search(r"\d", w) or (_WEEKDAYS.match(w) and words):
            break
        words.append(w)
    return _cap(" ".join(words)) if 0 < len(words) <= 4 else ""


def _note_hero(body: str) -> str:
    """The hero of a labelled note: the first sentence after the label, when short enough to be
    one, else its first clause."""
    first = sentences(body)[0] if sentences(body) else body
    if len(first.split()) <= 10:
        return _trim_words(first, 10)
    return _trim_words(_first_clause(body), 6)


def _cta(text: str, kinds: dict[str, str]) -> str:
    """The call to action: the brief's action sentence (one with its link first), else its
    link's host."""
    action = _short_sentence_with(
        text,
        r"^(?:book|apply|order|call|visit|sign up|register|reserve|shop|use|join|try|download|rsvp|send|"
        r"email|bring|return|contact|buchen|bewirb|bestell|jetzt|ruf|besuch|melde|予約|応募|ご予約|お申し込み)",
    )
    url = kinds.get("url", "")
    if action and " or " in action and len(action.split()) > 6:
        action = action.split(" or ")[0]
    if action and len(action.split()) <= 8:
        if url and url in action and url != host_of(url):
            action = action.replace(url, host_of(url))  # a link cannot be tapped on a picture
        return action.rstrip(".!")
    elif action and url and url in action:
        verb = action.split()[0]
        return f"{_cap(verb)} at {host_of(url)}" if " at " in action else host_of(url)
    elif url:
        return host_of(url)
    elif action and _spaceless(action):
        return action.rstrip("。!！")

    return ""


def _kicker(msg: Message, text: str, language: str, note: str, dates: list[str]) -> str:
    intent = msg.intent
    table = KICKERS.get(language[:2], KICKERS["en"]) if language[:2] in KICKERS else {}
    key = "allergy" if intent == "recall" and _ALLERGY.search(text) else intent
    label = table.get(key, "") if table else ""
    named = _label_kicker(note) if note else ""
    if named and intent != "closure":
        label = named
    if intent == "closure" and dates:
        return f"{label} {_dash(dates[0])}".strip() if label else _dash(dates[0])
    if intent == "event" and dates:
        when = (
            _dash(dates[0])
            if language[:2] != "en"
            else re.sub(r"\b[a-z]+", lambda w: _cap(w.group(0)), dates[0])
        )
        return f"{named} · {when}" if named else when
    return label


def _chips(msg: Message, text: str) -> list[str]:
    """The atoms not already said, each with the word that tells what it is where the brief has
    one: "Until 31 Jan", "Instead of £95" (an old price, never a second one), "Emergencies 0113 ..."."""
    shown = _dash(f"{msg.hero} {msg.kicker} {msg.cta}").casefold()
    chips: list[str] = []
    for a in msg.atoms:
        if a.kind == "url" or _dash(a.text).casefold() in shown or a.text in chips:
            continue
        if a.kind == "place" and msg.intent not in ("event", "hiring", "opening", "closure"):
            continue
        head = text[: a.start]
        before = re.search(
            r"(?:until|till|by|from|before|ends|bis|ab|vom|jusqu'au|hasta|del|du|dal)\s+$", head, re.I
        )
        was = re.search(
            r"(?:instead of|was|were|statt|anstatt|en lugar de|en vez de|au lieu de|em vez de|antes)\s+$",
            head,
            re.I,
        )
        sos = re.search(
            r"\b(emergenc(?:y|ies)|notf[aä]ll\w*|urgencias|urgences|urgências)\b[^.!?]{0,40}$", head, re.I
        )
        back = re.search(
            r"(?:reopen(?:s|ing)?(?: on)?|back(?: on)?|wieder (?:offen|geöffnet|da)(?: ab| am)?|"
            r"reabrimos(?: el| a| dia)?|volvemos(?: el)?|réouverture(?: le)?|de retour(?: le)?)\s+$",
            head,
            re.I,
        )
        if before and a.kind == "date":
            chips.append(f"{_cap(before.group(0).strip())} {a.text}")
        elif back and a.kind == "date":
            chips.append(f"{_cap(back.group(0).strip())} {a.text}")  # 'Reabrimos 2 de maio', not a bare date
        elif was and a.kind == "price":
            chips.append(f"{_cap(was.group(0).strip())} {a.text}")
        elif sos and a.kind == "phone":
            chips.append(f"{_cap(sos.group(1))} {a.text}")
        else:
            chips.append(a.text)
    return chips


_NOTE_HEROES = ("launch", "release", "event", "tip", "poll", "announcement", "opening", "podcast")


def read_message(brief: str, language: str = "en", *, intent: str = "") -> Message:
    """The picture's message from the brief (see the module's description)."""
    # a brief typed as notes read as sentences ('... for shippers. no login needed' ->
    # '... No login needed'): the sublines and chips a designer signs start with a capital
    text = note_case(re.sub(r"\s+", " ", brief or "").strip(), language)
    intent = intent or picture_intent(text, language)
    found = atoms(text)
    msg = Message(intent=intent, atoms=found)
    kinds = {a.kind: a.text for a in reversed(found)}  # the first of each kind
    lead = sentences(text)[0] if sentences(text) else text
    dates = [a.text for a in found if a.kind == "date"]

    msg.cta = _cta(text, kinds)

    # ---- the hero and the facts each intent needs (a note's label is never the hero)
    label, body = split_label(text)
    if label and intent in _NOTE_HEROES:
        msg.hero = _note_hero(body)
    else:
        _HEROES.get(intent, _hero_other)(msg, body if label else text, kinds, lead)
    if intent == "testimonial" and label and not msg.attribution and "," in label:
        msg.attribution = label.split(",", 1)[1].strip()  # "customer quote, Mark Olsen, ...:"
    if intent == "recipe" and msg.steps:
        lead = re.split(r"(?:^|\s)(?:\d{1,2}[.)]|step \d+:?|[①-⑩])\s+", text, flags=re.I)[0]
    if not msg.hero:
        msg.hero = _trim_words(_first_clause(text), 6)
    msg.hero = _cap(msg.hero)
    if intent in ("hiring", "event") or "place" in MUST_HAVE.get(intent, ()):
        msg.place = kinds.get("place", "")

    # ---- the kicker: the intent's label (a note's own label; a closure's dates; an event's date)
    msg.kicker = _kicker(msg, text, language, label, dates)
    # ---- the chips: the unbreakable facts the hero and the kicker do not already say
    msg.chips = _chips(msg, text)[:5]

    # ---- the subline: the brief's sentence that supports the hero best
    used = {msg.hero.casefold()}
    rest = [s for s in sentences(text) if s.casefold().rstrip(".!") not in used]
    if intent == "testimonial":
        msg.sub = msg.attribution
    elif intent == "recall":
        msg.sub = msg.hazard or (rest[0] if rest else "")
    elif intent == "recipe":
        msg.sub = ""
    else:
        msg.sub = _subline(text, msg)
    if msg.sub and len(msg.sub.split()) > 22:
        msg.sub = _trim_words(_first_clause(msg.sub), 18)
    if msg.sub and intent != "testimonial":
        msg.sub = _cap(msg.sub)  # 'ab Montag neu auf der Karte' set under the dish
    if msg.sub:  # a fact the subline already says is not set twice ('7:00' under 'Clases a las 7:00')
        said = _dash(msg.sub).casefold()
        msg.chips = [c for c in msg.chips if _dash(c).casefold() not in said]
    msg.icon_words = re.findall(r"[^\W\d_]{3,}", text.casefold())
    return msg


def _mostly_atoms(text: str, msg: Message) -> bool:
    rest = text
    for a in msg.atoms:
        rest = rest.replace(a.text, "")
    if _spaceless(rest):
        return len(re.findall(r"[\u3040-\u30ff\u3400-\u9fff]", rest)) < 4
    words = [w for w in re.findall(r"[^\W\d_]{3,}", rest) if w.casefold() not in _FUNCTION]
    return len(words) < 2


def _subline(text: str, msg: Message) -> str:
    """The brief's sentence that supports the hero: the first that does not hold the hero, is
    not the call to action and says more than the chips; else a clause of the lead sentence."""
    hero, cta = msg.hero.casefold(), msg.cta.casefold().rstrip(".")
    all_s = sentences(text)
    for s in all_s:
        low = s.casefold()
        if (hero and hero in low) or (cta and (cta in low or low.rstrip(".!") in cta)):
            continue
        if _mostly_atoms(s, msg) or len(s.split()) > 24:
            continue
        return s
    for s in all_s[:1]:
        after = s.split(": ", 1)[1] if ": " in s else ""
        if after and hero not in after.casefold() and 2 < len(after.split()) <= 14:
            return after  # "Cargo E: 120 km range, room for two kids." -> what follows the name
        for clause in _clauses(s):
            low = clause.casefold()
            if hero in low or low in hero or _mostly_atoms(clause, msg) or len(clause.split()) < 2:
                continue
            if msg.kicker and low.strip(" ,;:") == msg.kicker.casefold():
                continue
            return clause.strip().rstrip(",;:")
    return ""


# --------------------------------------------------------------------------- the check


def required(msg: Message) -> list[str]:
    """The texts a picture of ``msg`` must show, from ``MUST_HAVE`` (empty ones skipped: a brief
    that names no place needs none)."""
    out: list[str] = []
    for need in MUST_HAVE.get(msg.intent, ()):
        if need.startswith("kind:"):
            kind = need[5:]
            kinds = ("price",) if kind == "pay" else (kind,)
            out += [a.text for a in msg.atoms if a.kind in kinds]
        elif need == "steps":
            out += msg.steps
        else:
            value = str(getattr(msg, need, "") or "")
            if value:
                out.append(value)
    return list(dict.fromkeys(out))


def _dash(date: str) -> str:
    """A day range set with an en dash ("24-26 Dec" -> "24–26 Dec")."""
    return re.sub(r"(\d)\s?-\s?(\d)", "\\1–\\2", date)


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", _dash(text or "").casefold()).strip(".,;:!?。、")


def missing_on_picture(msg: Message, drawn: list[str]) -> list[str]:
    """What ``MUST_HAVE`` asks of ``msg`` that the drawn texts (every text block of every slide)
    do not show."""
    seen = _norm(" ".join(drawn))
    return [need for need in required(msg) if _norm(need) not in seen]
