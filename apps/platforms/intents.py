"""What a post is for, read from its brief: one classifier for the words, the caption data and
the pictures (issue 31).

``classify_intent`` reads the shape of a brief (a closure has closed and reopening dates, a poll
options or a call to vote, a testimonial a quote with a name, an offer a discount, a code or a
reduced price) before its words, and says how sure it is (``IntentGuess``; below ``CONFIDENT`` a
writer uses no hook and a neutral call to action). ``detect_intent`` is its intent alone. Pure
functions over text, above the brief's facts (``apps.platforms.facts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .facts import Fact, detect_language, facts_in, language_code, quote_spans, split_sentences

#: intent -> patterns over the brief (every language), tried in this order on a tie; the sober
#: ones first: a recall that also offers a refund is a recall.
INTENT_PATTERNS: dict[str, str] = {
    "recall": r"\brecall(?:s|ed|ing)?\b|do not (?:eat|consume|drink|use)|don'?t (?:eat|consume|drink|use)\b|"
    r"undeclared|allergen|retirad[oa] del mercado|no (?:lo )?consum|rappel\b|ne (?:le )?consommez pas|"
    r"rückruf|nicht (?:verzehren|essen|verwenden)|recolhimento|não consum",
    "apology": r"\bwe(?:'re| are) (?:so |truly |very )?sorry\b|\bapologi[sz]e|\bour apologies\b|we let you down|"
    r"lo sentimos|pedimos disculpas|nous nous excusons|désolés|es tut uns leid|entschuldig|"
    r"pedimos desculpas|sentimos muito",
    "incident": r"\boutage\b|\bdowntime\b|service disruption|\bincident\b|degraded|\binvestigating\b|"
    r"\bwe(?:'re| are) aware\b|temporarily (?:closed|unavailable)|data breach|power cut|"
    r"caída del servicio|interrupción|panne|störung|ausfall|instabilidade|interrupção",
    "hiring": r"\bhiring\b|\bwe(?:'re| are) looking for (?:a|an)\b|\bjoin our team\b|\bapply\b|\bjob\b|"
    r"\bopen (?:role|position)|\bvacanc|buscamos|contratamos|únete a nuestro equipo|vacante|"
    r"recrut|nous cherchons|rejoignez notre équipe|wir suchen|stellenangebot|bewirb|verstärkung|"
    r"estamos contratando|vaga\b|procuramos",
    "fundraiser": r"fundrais|\bdonat(?:e|ion)|\bcharity\b|\braise (?:money|funds)|\braise \W?\d|\bhelp us raise\b|"
    r"\braised\b|crowdfund|recaudaci|donativ|collecte de fonds|\bdons?\b(?!')|spenden|spendenaktion|arrecada|doaç",
    "recipe": r"\brecipe\b|\bingredients?\b|\bpreheat\b|\btablespoons?\b|\bteaspoons?\b|\bbake (?:for|at)\b|"
    r"receta|ingredientes|recette|ingrédients|rezept|zutaten|receita",
    "podcast": r"\bpodcast\b|\bepisode\b|\bep\.?\s?\d|\blisten (?:now|on)\b|episodio|épisode|folge\b|episódio",
    "opening": r"\bgrand opening\b|\bnow open\b|\bwe(?:'re| are)? ?open(?:ing|s)?\b|\bopens?\b|\bopening\b(?! (?:hours|times))|"
    r"\bdoors open\b|abrimos|inaugura|apertura|\\bouvr|ouverture|eröffn|öffnet (?:am|ab)|wir öffnen|inauguração|abertura",
    "offer": r"\bsale\b|\bdiscount\b|\d+\s?% off\b|\boff (?:all|every|our|your)\b|\bpromo\b|\bcode\b|\bcoupon\b|"
    r"\bdeal\b|\bbogo\b|\bfree shipping\b|\bfor less\b|descuento|rebajas|oferta|promoción|soldes|réduction|"
    r"remise|rabatt|angebot|gutschein|desconto|promoção|cupom",
    "event": r"\bworkshop\b|\btasters?\b|\bbook (?:at|now|your|a)\b|\bvolunteers?\b|\bplanting day\b|bénévoles|freiwillige|voluntári|\btalk\b|\bmeetup\b|\bwebinar\b|\bconcert\b|\bfestival\b|\btasting\b|\bpanel\b|"
    r"\bconference\b|\bRSVP\b|\bregister\b|\btickets?\b|\bjoin us\b|\blive (?:at|on)\b|\bmarket\b|\bclass\b|"
    r"taller|charla|evento|entradas|atelier|conférence|événement|billets|veranstaltung|vortrag|"
    r"anmeldung|palestra|oficina|ingressos",
    "release": r"\brelease[sd]?\b|\bis (?:out|live) (?:now|today)?\b|\bis (?:out|live)\b|\bnow live\b|ist (?:jetzt )?(?:da|live|verfügbar)\b|ya está disponible|já está disponível|\bversion\s?\d|\bv\d+(?:\.\d+)+|\bupdate\b|\bchangelog\b|\bnew feature|"
    r"\bnow available\b|\bships?\b|lanzamiento|nueva versión|disponible|nouvelle version|neue version|"
    r"verfügbar|nova versão|disponível",
    "launch": r"\blaunch(?:es|ed|ing)?\b|\bintroducing\b|\bannouncing\b|\bunveil|\bmeet (?:the|our)\b|\bnew\b|\bdebut|lanzamos|"
    r"presentamos|nuevo|nueva|lançamos|nouveau|nouvelle|neu\b|neue|novo|nova",
    "tip": r"\btips?\b|\bhow to\b|\bguide\b|\bmistakes?\b|\bdid you know\b|\blearn\b|\bsteps?\b|\btutorial\b|"
    r"consejos?|cómo|astuces?|conseils?|comment|tipps?|wie man|dicas?|como fazer",
}
#: intents read from the shape of a brief rather than from a word (see ``classify_intent``)
SHAPE_INTENTS = ("closure", "poll", "testimonial")
INTENTS = (*INTENT_PATTERNS, *SHAPE_INTENTS, "announcement")
SOBER_INTENTS = frozenset({"recall", "apology", "incident"})
_INTENT_RES = {k: re.compile(v, re.IGNORECASE) for k, v in INTENT_PATTERNS.items()}
#: below this confidence a writer uses no hook and a neutral call to action
CONFIDENT = 0.6


def _best_intent(text: str) -> tuple[str, int]:
    best, score = "announcement", 0
    for intent, pattern in _INTENT_RES.items():
        if intent in SOBER_INTENTS:
            continue
        hits = len({m.group(0).casefold() for m in pattern.finditer(text)})
        if hits > score:
            best, score = intent, hits
    return best, score


#: a person introduced ('Meet Jonas, our new head roaster'): news about the team, not a launch
_NEW_PERSON = re.compile(
    r"\b(?i:meet|welcome|say hello to)\s+[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?,\s+(?i:our|the)\s+new\b"
)


@dataclass(frozen=True)
class IntentGuess:
    """What a brief is for, how sure the classifier is (0 to 1; ``CONFIDENT`` and above: a
    writer may use the intent's hooks and calls to action) and what it saw."""

    intent: str  # one of INTENTS
    confidence: float
    evidence: tuple[str, ...] = ()

    @property
    def confident(self) -> bool:
        return self.confidence >= CONFIDENT


#: a closure: closed / a break, with dates or a reopening
_CLOSED = re.compile(
    r"\bclosed\b|\bclosing (?:for|over|on|from)\b|\bwe(?:'re| are| will be) closed\b|\btaking a (?:break|holiday)\b|"
    r"\breopen(?:s|ing)?\b|\bback (?:on|from)\b|\bclosure\b|cerrad[oa]s?\b|cerramos|reabrimos|volvemos el|"
    r"fermée?s?\b|fermeture|réouverture|geschlossen|schließ(?:en|t)|betriebsferien|betriebsurlaub|pause\b|"
    r"wieder (?:ganz normal |für euch |für sie )?(?:da|geöffnet|offen)|\b(?:haben|bleibt|sind|ist) zu\b|\bzu vom\b|"
    r"\bim urlaub\b|\bon holiday\b|\bvacaciones\b|\bvolvemos\b|\bférias\b|\bvoltamos\b|"
    r"fechad[oa]s?\b|encerrad[oa]s?|reabr(?:e|imos)|voltamos (?:a|no|em)",
    re.IGNORECASE,
)
#: a poll: options listed (A) … B) …, 1) … 2) …) or asked to vote
_OPTIONS = re.compile(
    r"(?:^|\s)(?:[A-Da-d]|[1-4])\)\s+\S|(?:^|\n)\s*(?:[A-D]|[1-4])[.:]\s+\S|(?:^|\s)[A-D]:\s+\S"
)
_VOTE = re.compile(
    r"\bvote\b|\bpoll\b|\bwhich (?:one|would you)\b|abstimm|umfrage|stimmt ab|encuesta|\bvota[dr]?\b|"
    r"sondage|\bvotez\b|enquete|\bvotem?\b|\bvote[mz]?\b",
    re.IGNORECASE,
)
#: a testimonial: a quotation with a person's name after it (— Name, says Name)
_ATTRIBUTION = re.compile(
    r"[»”“'\"」]\s*(?:[—–-]\s*|,?\s*(?:says|said|sagt|dice|dit|diz|explica|erzählt)\s+)[A-ZÀ-Ý][\w'’-]+",
)
#: an offer: a discount, a code, a reduced price ('£240 instead of £300')
_DISCOUNT = re.compile(
    r"\d+\s?%\s?(?:off|discount|rabatt|descuento|de descuento|desconto|de desconto|de réduction|de remise)|"
    r"(?:off|rabatt|descuento|desconto|remise|réduction)\b[^.!?]{0,20}\d+\s?%|"
    r"(?:[$€£]\s?\d[\d.,]*|\d[\d.,]*\s?(?:€|EUR|£|\$|euros?))\s+(?:instead of|statt|en vez de|em vez de|au lieu de)\b|"
    r"\bwas\s[$€£]|\bsale\b|\bbogo\b|\b(?:promo|discount|rabatt|gutschein|cupón|cupom)code\b|\b(?:use|with) (?:the )?code\b",
    re.IGNORECASE,
)


def classify_intent(text: str, language: str = "en") -> IntentGuess:
    """What a brief is for, read from its shape, with a confidence (the one classifier of the
    words, the captions' YAML and the pictures).

    - a sober intent (recall, apology, incident) whenever its words show (0.9);
    - a closure: closed / a break / a reopening, with a date (0.9; without a date 0.6);
    - a poll: at least two listed options (A) … B) …) or a call to vote next to a question (0.9);
    - a testimonial: a quotation followed by a name ("… » — Lucía Gómez") (0.85);
    - an offer: a discount, a code or a reduced price (0.85) — a word alone ('vouchers',
      'Gutscheine') decides nothing;
    - otherwise the intent whose words show most (what the first sentence is for first): two
      distinct cues or more 0.7, one in the first sentence 0.6, one elsewhere 0.45;
    - 'announcement' at 0.3 when nothing shows.

    Below ``CONFIDENT`` a writer uses no hook and a neutral call to action."""
    text = text or ""
    found = facts_in(text, language)
    shaped = _shaped_intent(text, found)
    if shaped is not None:
        return shaped
    return _worded_intent(text, language, found)


def _shaped_intent(text: str, found: list[Fact]) -> IntentGuess | None:
    """A sober intent, a closure, a poll, a testimonial or an offer, read from the brief's shape."""
    for intent in ("recall", "apology", "incident"):
        m = _INTENT_RES[intent].search(text)
        if m:
            return IntentGuess(intent, 0.9, (m.group(0),))
    dates = [f.text for f in found if f.kind == "date"]
    closed = _CLOSED.search(text)
    if closed and dates:
        return IntentGuess("closure", 0.9, (closed.group(0), dates[0]))
    options = _OPTIONS.findall(text)
    vote = _VOTE.search(text)
    if len(options) >= 2 or (vote and "?" in text):
        evidence = tuple(o.strip() for o in options[:4]) or ((vote.group(0),) if vote else ())
        return IntentGuess("poll", 0.9, evidence)
    quoted = [text[s:e] for s, e in quote_spans(text) if e - s >= 20]
    attribution = _ATTRIBUTION.search(text)
    if quoted and attribution:
        return IntentGuess("testimonial", 0.85, (quoted[0][:40], attribution.group(0)))
    discount = _DISCOUNT.search(text)
    codes = [f.text for f in found if f.kind == "code"]
    if discount or (codes and _INTENT_RES["offer"].search(text)):
        return IntentGuess(
            "offer", 0.85, tuple(x for x in ((discount.group(0) if discount else ""), *codes[:1]) if x)
        )
    if closed:
        return IntentGuess("closure", 0.6, (closed.group(0),))
    return None


def _worded_intent(text: str, language: str, found: list[Fact]) -> IntentGuess:
    """The intent whose words show most (the first sentence's first), sure by its cues."""
    sentences = split_sentences(text, language)
    if sentences and _NEW_PERSON.search(sentences[0]):
        return IntentGuess("announcement", 0.7, (_NEW_PERSON.search(sentences[0]).group(0),))  # type: ignore[union-attr]
    lead, lead_score = _best_intent(sentences[0]) if sentences else ("announcement", 0)
    best, score = _best_intent(text)
    kinds = {f.kind for f in found}
    if lead_score:
        cues = _cues(lead, text)
        strong = [c for c in cues if c.casefold() not in WEAK_CUES]
        confidence = 0.7 if len(cues) >= 2 and strong else 0.6 if strong else 0.45
        if kinds & _SHAPE_FACTS.get(lead, frozenset()):
            confidence = min(0.8, confidence + 0.15)  # an event with its date, a job with its link
        return IntentGuess(lead, confidence, cues)
    if score:
        cues = _cues(best, text)
        strong = [c for c in cues if c.casefold() not in WEAK_CUES]
        confidence = 0.65 if score >= 2 and strong else 0.45
        if kinds & _SHAPE_FACTS.get(best, frozenset()):
            confidence = min(0.75, confidence + 0.15)
        return IntentGuess(best, confidence, cues)
    return IntentGuess("announcement", 0.3, ())


#: the facts that give an intent its shape: an event has a date or a time, a job a link or a
#: salary, an episode a link or a guest
_SHAPE_FACTS: dict[str, frozenset[str]] = {
    "event": frozenset({"date", "time"}),
    "opening": frozenset({"date", "time"}),
    "hiring": frozenset({"url", "price"}),
    "podcast": frozenset({"url", "handle"}),
    "release": frozenset({"url", "number"}),
    "launch": frozenset({"price", "date"}),
    "fundraiser": frozenset({"price", "url"}),
    "recipe": frozenset({"number", "time"}),
}


#: words that hint at an intent but decide nothing alone ('Gutscheine' in a closure, 'tricks'
#: in a poll, 'new' anywhere)
WEAK_CUES = frozenset(
    [
        "new",
        "neu",
        "neue",
        "nuevo",
        "nueva",
        "novo",
        "nova",
        "nouveau",
        "nouvelle",
        "gutschein",
        "angebot",
        "oferta",
        "deal",
        "promo",
        "tricks",
        "learn",
        "steps",
        "guide",
        "comment",
        "cómo",
        "comment",
        "tipps",
        "dicas",
        "market",
        "class",
        "talk",
        "update",
        "ships",
        "ship",
        "disponible",
        "disponível",
        "verfügbar",
        "panel",
        "register",
        "ticket",
        "tickets",
        "opens",
        "open",
        "opening",
        "meet",
        "apply",
        "job",
        "code",
    ]
)


def _cues(intent: str, text: str) -> tuple[str, ...]:
    pattern = _INTENT_RES.get(intent)
    if pattern is None:
        return ()
    return tuple(dict.fromkeys(m.group(0) for m in pattern.finditer(text)))


def detect_intent(text: str, language: str = "en") -> str:
    """The intent ``classify_intent`` reads in ``text`` (without its confidence)."""
    return classify_intent(text, language).intent


def reading_language(text: str, asked: str = "en") -> str:
    """The language a brief is read (and written) in: ``settings.language`` when it names another
    language than English, else the brief's own (a Spanish brief under the default 'en' is read as
    Spanish; 'und' for a brief in none of the known languages)."""
    code = language_code(asked)
    if code != "en":
        return code
    detected = detect_language(text)
    if detected == "other":
        return "und"
    return detected or code  # nothing tells (a few words, names): the language asked


def classify_brief(text: str, asked_language: str = "en") -> IntentGuess:
    """``classify_intent`` in the language the local writer reads the brief in
    (``reading_language``): what content records as its detected intent (apps.content)."""
    return classify_intent(text, reading_language(text, asked_language))
