"""What each sentence of a brief is for, ranked, and the cut that keeps what matters.

Every sentence gets roles (the news, an instruction or safety action, a call to action with a
link or handle, a poll's options, a deadline, a price, a quote and its attribution, context, a
pleasantry); its rank is its most important role's. A platform that cannot hold everything
shortens inside sentences first (a parenthesis, "hosted by …"), then drops the lowest-ranked
sentences, the later first on a tie: an instruction, a link, a handle, a poll's options, a
deadline or a price is never dropped while a pleasantry or context remains. What is dropped
(pleasantries aside) is the overflow a platform that takes a first comment posts there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from apps.platforms.facts import facts_in, quote_spans

#: rank of each role: lower is kept longer
RANKS = {
    "news": 0,
    "instruction": 1,
    "poll": 1,
    "cta": 2,
    "deadline": 2,
    "when": 2,
    "price": 3,
    "safety": 3,
    "quote": 3,
    "detail": 5,
    "context": 6,
    "pleasantry": 9,
}
#: roles a post exists to say: never dropped while context or a pleasantry remains
MUST_KEEP = frozenset({"news", "instruction", "poll", "cta", "deadline", "when", "price", "safety"})

_PLEASANTRY = re.compile(
    r"\b(?:thank(?:s| you)|we(?:'re| are) (?:so |truly |very )?sorry|sorry for|apologi[sz]e|see you|can't wait|"
    r"look forward|enjoy|cheers|happy (?:holidays|new year|listening|shopping)|have a (?:great|lovely|good)|"
    r"danke|vielen dank|es tut uns leid|wir freuen uns|bis bald|frohe|schöne|gracias|lo sentimos|nos vemos|"
    r"hasta pronto|feliz|felices|obrigad[oa]|lamentamos|até breve|boas festas|merci|désolés|à bientôt|joyeuses?|"
    r"buen verano|buenas vacaciones|schönen urlaub|schönen sommer|bom verão|boas férias|happy summer|bon été)\b",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"^\s*(?:please\s+)?(?:do not|don't|never|stop|unplug|switch off|turn off|return|check|contact|call|throw|dispose|"
    r"bring|avoid|keep away|update|install|remove|no (?:lo )?consum|devuelv|no coma|no use|desenchuf|deja de|"
    r"ne (?:le )?consommez|rapportez|débranchez|bitte nicht|nicht verzehren|bringen sie|stecken sie|trennen sie|"
    r"hören sie auf|laden sie|não consum|devolva|deslig|pare de|não use)\b",
    re.IGNORECASE,
)
#: a hazard is a safety instruction's reason: kept with it ('The battery can overheat …')
_HAZARD = re.compile(
    r"\b(?:overheat\w*|fire|burns?|injur\w*|choking|allerg\w*|undeclared|contaminat\w*|risk of|hazard|"
    r"überhitz\w*|brandgefahr|verletz\w*|allergen\w*|sobrecalent\w*|riesgo|incendio|quemadura|alérg\w*|"
    r"sobreaquec\w*|risco|incêndio|surchauff\w*|risque)\b",
    re.IGNORECASE,
)
_CTA_VERB = re.compile(
    r"^\s*(?:please\s+)?(?:apply|book|register|reserve|order|sign up|listen|watch|read|vote|call|visit|join|"
    r"download|try|get|shop|grab|rsvp|subscribe|follow|tell us|reply|comment|send|email|message|dm|"
    r"bewirb|bewerbt|reservier|buch|meld|hör|lies|lest|schau|kommt|stimm|ruf|schreib|bestell|"
    r"vota|reserva|lee|escucha|inscr|llama|pide|escríbe|marca|candidat|ouve|lê|liga|encomend|vot|"
    r"postulez|réservez|écoutez|lisez|inscrivez|votez|appelez)",
    re.IGNORECASE,
)
_DEADLINE = re.compile(
    r"\b(?:by|until|till|before|deadline|closes|ends|bis(?: zum)?|spätestens|hasta(?: el)?|antes del?|até|"
    r"avant|jusqu'au|jusqu’au|fin)\b",
    re.IGNORECASE,
)
_OPTION = re.compile(r"(?:^|\s)(?:[A-Da-d]|[1-4])\)\s+\S|(?:^|\s)[A-D]:\s+\S")
_PARENTHESIS = re.compile(r"\s*\([^()]*\)")
_HOSTED = re.compile(
    r",?\s*\b(?:hosted|moderated|presented|organi[sz]ed|sponsored|powered) by\b[^,.;:!?]*|"
    r",?\s*\b(?:moderiert|präsentiert|organisiert) von\b[^,.;:!?]*|"
    r",?\s*\b(?:presentado|moderado|organizado|apresentado) por\b[^,.;:!?]*",
    re.IGNORECASE,
)
CORE = frozenset({"url", "handle", "code", "price", "percent", "date", "time"})
_CORE = CORE
ALL_FACTS = frozenset({*CORE, "name", "number", "hashtag"})


@dataclass(frozen=True)
class Part:
    """One sentence of the brief with its roles."""

    index: int
    text: str
    roles: frozenset[str]

    @property
    def rank(self) -> int:
        return min(RANKS[r] for r in self.roles)

    @property
    def must_keep(self) -> bool:
        return bool(self.roles & MUST_KEEP)


def roles_of(sentence: str, index: int, language: str) -> frozenset[str]:
    """The roles of ``sentence`` (the ``index``-th of the brief)."""
    found = facts_in(sentence, language)
    kinds = {f.kind for f in found}
    roles: set[str] = set()
    if len(_OPTION.findall(sentence)) >= 2:
        roles.add("poll")
    if _INSTRUCTION.match(sentence):
        roles.add("instruction")
    if _HAZARD.search(sentence):
        roles.add("safety")  # the reason of a safety instruction
    if kinds & {"url", "handle"} or _CTA_VERB.match(sentence):
        roles.add("cta")
    if "date" in kinds and _DEADLINE.search(sentence):
        roles.add("deadline")
    if kinds & {"date", "time"}:
        roles.add("when")
    if kinds & {"price", "percent", "code"}:
        roles.add("price")
    if any(e - s >= 12 for s, e in quote_spans(sentence)):
        roles.add("quote")
    if not roles and _PLEASANTRY.search(sentence) and not (kinds & _CORE):
        roles.add("pleasantry")
    if index == 0 and "pleasantry" not in roles:
        roles.add("news")
    if not roles:
        roles.add("detail" if found else "context")  # a name or a figure is more than decoration
    return frozenset(roles)


def parts_of(sentences: list[str], language: str) -> list[Part]:
    return [Part(i, s, roles_of(s, i, language)) for i, s in enumerate(sentences)]


def shorten(sentence: str, language: str, keep: frozenset[str] = CORE) -> str:
    """``sentence`` without what a reader does not miss: a parenthesis and a "hosted by …"
    that hold no fact of the kinds ``keep`` (a link, handle, code, price, date or time; every
    fact, names too, in the news sentence, which every platform keeps whole)."""

    def drop(m: re.Match[str]) -> str:
        return m.group(0) if any(f.kind in keep for f in facts_in(m.group(0), language)) else ""

    out = _PARENTHESIS.sub(drop, sentence)
    out = _HOSTED.sub(drop, out)
    out = re.sub(r"\s+([,.;:!?])", r"\1", out)
    out = re.sub(r"[ \t]{2,}", " ", out).strip()
    return out if re.search(r"\w", out) else sentence


def _keep(part: Part) -> frozenset[str]:
    return ALL_FACTS if "news" in part.roles else CORE


@dataclass(frozen=True)
class Cut:
    kept: list[Part]  # in the brief's order, some shortened
    overflow: list[Part]  # dropped, pleasantries aside, in the brief's order

    @property
    def text(self) -> str:
        return " ".join(p.text for p in self.kept)


def cut(
    parts: list[Part],
    fits: Callable[[list[str]], bool],
    language: str,
    *,
    drop_below: int | None = None,
    always_shorten: bool = False,
) -> Cut:
    """The parts that fit: all when they do; else each shortened inside (least important
    first), then the lowest-ranked dropped one at a time (the later first on a tie), never the
    last one. ``drop_below``: parts ranked above it go even when everything fits (X keeps the
    news and what must stay, not context), unless nothing would remain; ``always_shorten``:
    parentheses and 'hosted by …' go even when everything fits (X's one line)."""
    kept = list(parts)
    dropped: list[Part] = []
    if drop_below is not None:
        lean = [p for p in kept if p.rank <= drop_below]
        if lean:
            dropped += [p for p in kept if p.rank > drop_below]
            kept = lean

    def texts() -> list[str]:
        return [p.text for p in kept]

    if always_shorten:
        kept = [Part(p.index, shorten(p.text, language, _keep(p)), p.roles) for p in kept]

    if not fits(texts()):
        for part in sorted(kept, key=lambda p: (-p.rank, -p.index)):
            short = shorten(part.text, language, _keep(part))
            if short != part.text:
                kept[kept.index(part)] = Part(part.index, short, part.roles)
                if fits(texts()):
                    break
    while not fits(texts()) and len(kept) > 1:
        victim = max(kept, key=lambda p: (p.rank, p.index))
        kept.remove(victim)
        dropped.append(victim)
    overflow = sorted((p for p in dropped if "pleasantry" not in p.roles), key=lambda p: p.index)
    return Cut(kept=kept, overflow=overflow)
