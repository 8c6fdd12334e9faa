"""Alt text written from what was drawn: the texts set on the picture word for word, the
layout, the colours, the logo and what the background shows. Nothing the picture does not
show is named (a designed graphic of a bakery's opening shows its words, not a bakery)."""

from __future__ import annotations

from typing import Any

from .composer import Design

_WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "kind": {
            "announcement": "Announcement graphic",
            "offer": "Offer graphic",
            "event": "Event graphic",
            "quote": "Quote card",
            "product": "Product graphic",
            "hiring": "Hiring graphic",
            "recipe": "Recipe card",
            "notice": "Notice",
            "closing": "Closing card",
            "slide": "Carousel slide",
            "abstract": "Abstract composition of geometric shapes",
        },
        "in": "in {colours}",
        "and": "and",
        "text": 'Text: "{text}".',
        "then": 'Below it: "{text}".',
        "badge": 'A badge reads "{text}".',
        "date": "A date block reads {text}.",
        "steps": "Numbered steps: {text}.",
        "logo": "The {brand} logo in the top corner.",
        "logo_plain": "The brand's logo in the top corner.",
        "wordmark": 'The name "{brand}" in the top corner.',
        "counter": "Slide {text}.",
        "framed": "A framed picture of {what}.",
        "background": "Background: {what}.",
        "what": {
            "a photo from the brand's library": "a photo from the brand's library",
            "abstract shapes in the brand's colours": "abstract shapes in the brand's colours",
            "a gradient of the brand's main colour": "a gradient of the brand's main colour",
            "a plain background": "",
        },
        "no_text": "No text.",
    },
    "es": {
        "kind": {
            "announcement": "Gráfico de anuncio",
            "offer": "Gráfico de oferta",
            "event": "Gráfico de evento",
            "quote": "Tarjeta de cita",
            "product": "Gráfico de producto",
            "hiring": "Gráfico de empleo",
            "recipe": "Tarjeta de receta",
            "notice": "Aviso",
            "closing": "Tarjeta final",
            "slide": "Diapositiva de carrusel",
            "abstract": "Composición abstracta de formas geométricas",
        },
        "in": "en {colours}",
        "and": "y",
        "text": 'Texto: "{text}".',
        "then": 'Debajo: "{text}".',
        "badge": 'Una insignia dice "{text}".',
        "date": "Un bloque de fecha dice {text}.",
        "steps": "Pasos numerados: {text}.",
        "logo": "El logotipo de {brand} en la esquina superior.",
        "logo_plain": "El logotipo de la marca en la esquina superior.",
        "wordmark": 'El nombre "{brand}" en la esquina superior.',
        "counter": "Diapositiva {text}.",
        "framed": "Una imagen enmarcada de {what}.",
        "background": "Fondo: {what}.",
        "what": {
            "a photo from the brand's library": "una foto de la biblioteca de la marca",
            "abstract shapes in the brand's colours": "formas abstractas en los colores de la marca",
            "a gradient of the brand's main colour": "un degradado del color principal de la marca",
            "a plain background": "",
        },
        "no_text": "Sin texto.",
    },
    "fr": {
        "kind": {
            "announcement": "Visuel d'annonce",
            "offer": "Visuel d'offre",
            "event": "Visuel d'événement",
            "quote": "Carte citation",
            "product": "Visuel produit",
            "hiring": "Visuel de recrutement",
            "recipe": "Fiche recette",
            "notice": "Avis",
            "closing": "Carte de fin",
            "slide": "Diapositive de carrousel",
            "abstract": "Composition abstraite de formes géométriques",
        },
        "in": "en {colours}",
        "and": "et",
        "text": "Texte : « {text} ».",
        "then": "En dessous : « {text} ».",
        "badge": "Un badge indique « {text} ».",
        "date": "Un bloc de date indique {text}.",
        "steps": "Étapes numérotées : {text}.",
        "logo": "Le logo de {brand} dans le coin supérieur.",
        "logo_plain": "Le logo de la marque dans le coin supérieur.",
        "wordmark": "Le nom « {brand} » dans le coin supérieur.",
        "counter": "Diapositive {text}.",
        "framed": "Une image encadrée de {what}.",
        "background": "Fond : {what}.",
        "what": {
            "a photo from the brand's library": "une photo de la photothèque de la marque",
            "abstract shapes in the brand's colours": "des formes abstraites aux couleurs de la marque",
            "a gradient of the brand's main colour": "un dégradé de la couleur principale de la marque",
            "a plain background": "",
        },
        "no_text": "Sans texte.",
    },
    "de": {
        "kind": {
            "announcement": "Ankündigungsgrafik",
            "offer": "Angebotsgrafik",
            "event": "Veranstaltungsgrafik",
            "quote": "Zitatkarte",
            "product": "Produktgrafik",
            "hiring": "Stellenanzeige",
            "recipe": "Rezeptkarte",
            "notice": "Hinweis",
            "closing": "Abschlusskarte",
            "slide": "Karussell-Folie",
            "abstract": "Abstrakte Komposition geometrischer Formen",
        },
        "in": "in {colours}",
        "and": "und",
        "text": "Text: „{text}“.",
        "then": "Darunter: „{text}“.",
        "badge": "Ein Abzeichen zeigt „{text}“.",
        "date": "Ein Datumsblock zeigt {text}.",
        "steps": "Nummerierte Schritte: {text}.",
        "logo": "Das Logo von {brand} in der oberen Ecke.",
        "logo_plain": "Das Logo der Marke in der oberen Ecke.",
        "wordmark": "Der Name „{brand}“ in der oberen Ecke.",
        "counter": "Folie {text}.",
        "framed": "Ein gerahmtes Bild mit {what}.",
        "background": "Hintergrund: {what}.",
        "what": {
            "a photo from the brand's library": "ein Foto aus der Bibliothek der Marke",
            "abstract shapes in the brand's colours": "abstrakte Formen in den Farben der Marke",
            "a gradient of the brand's main colour": "ein Verlauf der Hauptfarbe der Marke",
            "a plain background": "",
        },
        "no_text": "Ohne Text.",
    },
    "pt": {
        "kind": {
            "announcement": "Gráfico de anúncio",
            "offer": "Gráfico de oferta",
            "event": "Gráfico de evento",
            "quote": "Cartão de citação",
            "product": "Gráfico de produto",
            "hiring": "Gráfico de vaga",
            "recipe": "Cartão de receita",
            "notice": "Aviso",
            "closing": "Cartão final",
            "slide": "Slide de carrossel",
            "abstract": "Composição abstrata de formas geométricas",
        },
        "in": "em {colours}",
        "and": "e",
        "text": 'Texto: "{text}".',
        "then": 'Abaixo: "{text}".',
        "badge": 'Um selo diz "{text}".',
        "date": "Um bloco de data diz {text}.",
        "steps": "Passos numerados: {text}.",
        "logo": "O logotipo de {brand} no canto superior.",
        "logo_plain": "O logotipo da marca no canto superior.",
        "wordmark": 'O nome "{brand}" no canto superior.',
        "counter": "Slide {text}.",
        "framed": "Uma imagem emoldurada de {what}.",
        "background": "Fundo: {what}.",
        "what": {
            "a photo from the brand's library": "uma foto da biblioteca da marca",
            "abstract shapes in the brand's colours": "formas abstratas nas cores da marca",
            "a gradient of the brand's main colour": "um degradê da cor principal da marca",
            "a plain background": "",
        },
        "no_text": "Sem texto.",
    },
}


def _colours(primary: str, secondary: str, language: str) -> str:
    from ..local_text import colour_name

    names: list[str] = []
    for value in (primary, secondary):
        name = colour_name(value, language)
        if name and name not in names:
            names.append(name)
    return f" {_WORDS[language]['and']} ".join(names)


def describe(design: Design, language: str = "en", *, video: bool = False) -> str:
    """The alt text of ``design`` as drawn (only the blocks that were set)."""
    W = _WORDS.get(language) or _WORDS["en"]
    spec = design.spec
    kind = (
        "slide" if any(b.role == "counter" for b in design.blocks) else spec.get("template", "announcement")
    )
    colours = _colours(
        spec["colours"]["primary"], spec["colours"]["secondary"], language if language in _WORDS else "en"
    )
    parts = [
        W["kind"].get(kind, W["kind"]["announcement"])
        + (" " + W["in"].format(colours=colours) if colours else "")
        + "."
    ]
    by_role: dict[str, list[str]] = {}
    for block in design.blocks:
        # the text as written, not the drawn lines joined (a Japanese line break is no space)
        by_role.setdefault(block.role, []).append(block.set.text)
    # the kicker, an oversized figure, the hero and the call to action, in reading order
    parts += [
        W["text"].format(text=by_role[r][0]) for r in ("kicker", "big", "headline", "cta") if r in by_role
    ]
    if "sub" in by_role:
        parts.append(W["then"].format(text=by_role["sub"][0]))
    if "chip" in by_role:
        parts.append(W["text"].format(text=" · ".join(by_role["chip"])))
    if "badge" in by_role:
        parts.append(W["badge"].format(text=by_role["badge"][0]))
    if "date" in by_role:
        parts.append(W["date"].format(text=" ".join(by_role["date"])))
    if "step" in by_role:
        steps = by_role["step"]
        pairs = [f"{steps[i]}. {steps[i + 1]}" for i in range(0, len(steps) - 1, 2)]
        parts.append(W["steps"].format(text=" ".join(pairs)))
    if not any(r in by_role for r in ("headline", "cta", "sub", "step")):
        parts.append(W["no_text"])
    brand = spec.get("brandName") or ""
    if design.logo is not None:
        parts.append(W["logo"].format(brand=brand) if brand else W["logo_plain"])
    elif "brand" in by_role:
        parts.append(W["wordmark"].format(brand=by_role["brand"][0]))
    if "counter" in by_role:
        parts.append(W["counter"].format(text=by_role["counter"][0]))
    what = W["what"].get(design.background, "")
    if design.framed:
        parts.append(W["framed"].format(what=W["what"].get(design.framed, design.framed)))
    elif what:
        parts.append(W["background"].format(what=what))
    return " ".join(parts)


def describe_abstract(primary: str, secondary: str, language: str = "en") -> str:
    """The alt text of the abstract composition (no text, no subject)."""
    W = _WORDS.get(language) or _WORDS["en"]
    colours = _colours(primary, secondary, language if language in _WORDS else "en")
    return W["kind"]["abstract"] + (" " + W["in"].format(colours=colours) if colours else "") + "."
