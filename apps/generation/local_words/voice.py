"""The brand's voice as the local engine applies it to its own lines (hooks, calls to action,
first comments): formality (du/Sie, tu/vous, tú/usted, tu/você), locale (en-GB/en-US,
pt-PT/pt-BR), no hype / no emoji / no exclamation marks, words to avoid and a sign-off from
the system prompt, and lines that fit the brand's industry (no "basket" for a dental clinic).

Read from the brand's settings and free text (``voice``, ``system_prompt``, ``caption_style``,
``audience``, the name and themes) and from a region in ``settings.language`` ('pt-PT').
The substitutions are data (``data/words/<language>.yaml``: ``registers`` and ``locales``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..base import BrandVoice

_INFORMAL = re.compile(
    r"\bper du\b|\bduzen\b|\bdu-form\b|\bwir duzen\b|\binformal\b|\btutoie|\btutoyer|\bde t[úu]\b|\btuteamos\b|"
    r"\btutea\b|\bpor tu\b|\bpor \"?tu\"?\b|\btratamos por tu\b|\btrata(?:r|mos)? (?:o cliente )?por tu\b",
    re.IGNORECASE,
)
_FORMAL = re.compile(
    r"\bper sie\b|\bsiezen\b|\bsie-form\b|\bformal\b|\bvouvoie|\bvouvoyer|\bde usted\b|\busted(?:es)?\b|"
    r"\bpor você\b|\btratamos por você\b|\bo senhor\b|\ba senhora\b",
    re.IGNORECASE,
)
_NO_HYPE = re.compile(
    r"\bno hype\b|\bwithout hype\b|\bnot hyp|\bnever hyp|\bkein(?:en)? hype\b|\bsin hype\b|\bsem hype\b|\bpas de hype\b|"
    r"\bunderstated\b|\bnüchtern\b|\bsachlich\b|\bsobri[oa]\b|\bno superlatives\b|\bcalm\b|\bruhig\b",
    re.IGNORECASE,
)
_NO_EMOJI = re.compile(
    r"\b(?:no|without|never use|avoid|zero|keine|sin|sem|pas d')\s*emojis?\b|emoji-free|ohne emojis?",
    re.IGNORECASE,
)
_NO_EXCLAMATION = re.compile(
    r"\bno exclamation(?: marks?| points?)?\b|\bwithout exclamation|\bavoid exclamation|\bkeine ausrufezeichen\b|"
    r"\bsin exclamaciones\b|\bsem pontos de exclamação\b|\bno hype\b",
    re.IGNORECASE,
)
_AVOID = re.compile(
    r"(?:avoid|never (?:say|use|write)|don'?t (?:say|use|write)|do not (?:say|use|write)|vermeide|nie(?:mals)?|evita|evite)"
    r"\s+(?:the\s+)?(?:words?|terms?|phrases?|wörter|das wort|die wörter|palabras?|palavras?)?\s*:?\s*((?:[\"“'‘][^\"”'’]+[\"”'’][,\s]*(?:and|or|und|oder|y|o|e|ou)?\s*)+)",
    re.IGNORECASE,
)
_SIGN_OFF = re.compile(
    r"(?:sign[- ]?off|end|finish|close|unterschreibe|schließe|firma|termina|assina)\s+(?:every |each |all )?"
    r"(?:caption|post|posts|captions)?\s*(?:with|mit|con|com)\s+[\"“'‘]([^\"”'’]+)[\"”'’]",
    re.IGNORECASE,
)
_INDUSTRIES = {
    "health": r"dental|dentist|clinic|klinik|praxis|zahn|clínica|clinica|dentária|dentaria|physio|therap|medical|"
    r"doctor|arzt|médic|pharma|hospital|care home|pflege|salud|saúde|santé",
    "b2b": r"saas|software|platform|b2b|logistic|freight|fleet|telematic|enterprise|consult|agency|"
    r"fintech|api\b|devops|cloud|analytics|plattform|spedition",
    "food": r"kitchen|küche|bakery|bäckerei|café|cafe|coffee|restaurant|bistro|cocina|cozinha|pastel|"
    r"food|vegan|pizza|bar\b|brewery|roaster",
    "retail": r"shop|store|boutique|fashion|laden|tienda|loja|marketplace|e-commerce|ecommerce|apparel",
}
#: engine lines that only fit a shop (a basket, shopping, an order, a treat)
SHOP_LINES = re.compile(
    r"basket|shopping|treat yourself|next order|picking up|cesta|compras|capricho|carrinho|mimo|pedido|"
    r"\bKorb\b|Einkauf|Bestellung|Gönnt|panier|achats|commande|würdet ihr nehmen|vas a elegir|elegirías|"
    r"would you pick|are you picking|escolheria|\U0001f6cd",
    re.IGNORECASE,
)
_HYPE_LINES = re.compile(
    r"!|finally|big (?:day|news)|don't scroll|exciting|can't wait|proud|endlich|großer tag|nicht weiterscrollen|"
    r"por fin|no pases|finalement|finalmente|chegou|ya está aquí|something new|etwas neues|novedad|novidade|"
    r"\U0001f680|\u2728",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Voice:
    """What the brand's settings and free text ask of the engine's own lines."""

    formality: str = ""  # 'formal', 'informal' or '' (the language's default register)
    locale: str = ""  # 'pt-PT', 'pt-BR', 'en-GB', 'en-US' or ''
    no_hype: bool = False
    no_emoji: bool = False
    no_exclamation: bool = False
    avoid: tuple[str, ...] = ()
    sign_off: str = ""
    industry: str = ""  # 'health', 'b2b', 'food', 'retail' or ''

    def accepts(self, line: str) -> bool:
        """May the engine write ``line`` for this brand? (no hype for a calm brand, no shop
        words outside a shop or a kitchen, no word the system prompt avoids)"""
        if self.no_hype and _HYPE_LINES.search(line):
            return False
        if self.industry not in ("retail", "food") and SHOP_LINES.search(line):
            return False
        low = line.casefold()
        return not any(word.casefold() in low for word in self.avoid)


def _locale(brand_text: str, language: str) -> str:
    parts = (language or "").replace("_", "-").split("-")
    code = parts[0].lower()
    if len(parts) > 1 and parts[1]:
        return f"{code}-{parts[1].upper()}"
    if code == "pt":
        if re.search(r"portugal|pt-pt|europeu|european portuguese|lisboa|porto\b", brand_text, re.I):
            return "pt-PT"
        if re.search(r"brasil|brazil|pt-br|brasileiro", brand_text, re.I):
            return "pt-BR"
    if code == "en":
        if re.search(r"american english|us english|en-us|us spelling|american spelling", brand_text, re.I):
            return "en-US"
        if re.search(r"british english|uk english|en-gb|british spelling|uk spelling", brand_text, re.I):
            return "en-GB"
    return ""


def read_voice(brand: BrandVoice, language: str) -> Voice:
    """The voice of ``brand`` for a text in ``language`` (a code with an optional region)."""
    text = " ".join([brand.voice, brand.system_prompt, brand.caption_style, brand.audience, brand.tone])
    informal, formal = _INFORMAL.search(text), _FORMAL.search(text)
    formality = "informal" if informal and not formal else "formal" if formal and not informal else ""
    avoid: list[str] = []
    for m in _AVOID.finditer(f"{brand.system_prompt}\n{brand.caption_style}"):
        avoid += [w.strip() for w in re.findall(r"[\"“'‘]([^\"”'’]+)[\"”'’]", m.group(1)) if w.strip()]
    sign = _SIGN_OFF.search(brand.system_prompt or "") or _SIGN_OFF.search(brand.caption_style or "")
    about = " ".join([brand.name, brand.voice, brand.audience, *brand.themes, brand.system_prompt])
    industry = next((name for name, pattern in _INDUSTRIES.items() if re.search(pattern, about, re.I)), "")
    return Voice(
        formality=formality,
        locale=_locale(text, language),
        no_hype=bool(_NO_HYPE.search(text)),
        no_emoji=bool(_NO_EMOJI.search(text)),
        no_exclamation=bool(_NO_EXCLAMATION.search(text)),
        avoid=tuple(dict.fromkeys(avoid)),
        sign_off=sign.group(1).strip() if sign else "",
        industry=industry,
    )


def apply_substitutions(line: str, table: dict[str, str]) -> str:
    """``line`` with every phrase of ``table`` replaced, longest first, whole words only."""
    for old in sorted(table, key=len, reverse=True):
        line = re.sub(r"(?<!\w)" + re.escape(old) + r"(?!\w)", table[old], line)
    return line
