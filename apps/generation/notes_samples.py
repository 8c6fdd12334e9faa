"""Briefs written as notes, not posts (issue 31), turned into per-platform copy by the local
engine: the text part of docs/samples.md's last section.

Regenerate it with ``python manage.py shell -c "from apps.generation.notes_samples import render;
print(render())"`` and paste the output over that section.
"""

from __future__ import annotations

from .base import BrandVoice, TextRequest

SPEICHE = BrandVoice(
    name="Speiche Hamburg",
    voice="locker, wir duzen unsere Kundschaft",
    themes=("Fahrradwerkstatt",),
    hashtags=("#SpeicheHamburg",),
)
LEDGERLY = BrandVoice(
    name="Ledgerly",
    voice="clear, friendly, British English, no hype",
    themes=("small business accounting",),
    system_prompt="Never use the word 'revolutionary'.",
)
ACADEMIA = BrandVoice(name="Academia Albufera", voice="cercana, tuteamos", themes=("clases de inglés",))
#: (settings.language, brand, the note as typed)
BRIEFS: tuple[tuple[str, BrandVoice, str], ...] = (
    (
        "de",
        SPEICHE,
        "Werkstatt zu vom 4. bis 17. August, wir sind im Urlaub. Ab 18. August wieder ganz normal offen. "
        "Dringende Reparaturen: die Kolleg:innen vom Radhaus Altona helfen, Tel. 040 3891 2200.",
    ),
    (
        "de",
        SPEICHE,
        "Neu: Frühjahrscheck für 49 € statt 65 €, bis 30. April. Termin online buchen unter "
        "https://speiche.hamburg/termin. Dauert ca. 2 Stunden, du kannst solange einen Kaffee bei uns trinken.",
    ),
    (
        "de",
        SPEICHE,
        "Umfrage: welcher Workshop soll als nächstes kommen? A) Schlauch flicken B) Kette wechseln "
        "C) Bremsen einstellen. Stimmt in den Kommentaren ab!",
    ),
    (
        "en",
        LEDGERLY,
        "Ledgerly now does Making Tax Digital VAT returns straight from your bank feed. Available on all plans "
        "from 3 March, no extra cost. Guide: https://ledgerly.co.uk/mtd-vat. Questions -> @ledgerlyhelp",
    ),
    (
        "en",
        LEDGERLY,
        "Webinar Thurs 12 June 1pm BST: year-end for sole traders, with our accountant Priya Shah (ICAEW). "
        "45 min + Q&A. Free, register https://ledgerly.co.uk/webinar",
    ),
    (
        "en",
        LEDGERLY,
        "Scheduled maintenance Sunday 8 June 02:00-04:00 BST. Bank feeds will pause, nothing is lost, they "
        "catch up automatically afterwards. Status page: https://status.ledgerly.co.uk",
    ),
    (
        "en",
        LEDGERLY,
        '"Ledgerly cut our month-end from three days to one afternoon." - Tom Okafor, owner of Okafor Joinery. '
        "Full story at https://ledgerly.co.uk/stories/okafor",
    ),
    (
        "es",
        ACADEMIA,
        "Matrícula abierta para el curso de septiembre: grupos de inglés de A1 a C1, máximo 8 alumnos por "
        "clase. 10% de descuento si te apuntas antes del 31 de julio. Info y reservas: "
        "https://academiaalbufera.es/matricula",
    ),
    (
        "es",
        ACADEMIA,
        "Cerramos del 1 al 15 de agosto. Volvemos el 16 de agosto con horario de verano (9:00-14:00). ¡Buen verano!",
    ),
    (
        "es",
        ACADEMIA,
        "Buscamos profe de inglés nativo/a para grupos de adultos, 20 h/semana, tardes. Envía tu CV a "
        "empleo@academiaalbufera.es antes del 20 de junio.",
    ),
)
PLATFORMS = ("instagram", "facebook", "linkedin", "x", "threads", "bluesky", "tiktok", "youtube", "pinterest")


def render() -> str:
    """The section as Markdown: each note, then each platform's variant as stored."""
    from apps.platforms.captions import compose_caption
    from apps.platforms.rules import get_format

    from .local_words import make_texts
    from .steps import fit_text

    out: list[str] = []
    for i, (language, brand, prompt) in enumerate(BRIEFS, 1):
        request = TextRequest(
            prompt=prompt, platform=PLATFORMS[0], platforms=PLATFORMS, language=language, brand=brand
        )
        texts = make_texts(request)
        out += [
            f"### N{i}. {prompt}",
            "",
            f"_Brand {brand.name} (voice: {brand.voice}); language `{language}`._",
            "",
        ]
        for platform in PLATFORMS:
            media = "video" if platform in ("youtube", "tiktok") else "image"
            variant = fit_text(
                platform, texts[platform], post_type="feed", media_type=media, per_platform=True
            )
            limit = get_format(platform, "feed", media).caption
            body = compose_caption(variant["caption"], variant["hashtags"])
            out += [f"#### {platform} ({limit.count(body)}/{limit.max} {limit.unit_label})", ""]
            if variant.get("title"):
                out += [f"**Title:** {variant['title']}", ""]
            out += [f"> {line}" if line else ">" for line in body.split("\n")]
            out.append("")
            if variant.get("firstComment"):
                comment = variant["firstComment"].replace("\n\n", " / ").replace("\n", " ")
                out += [f"**First comment:** {comment}", ""]
    return "\n".join(out)
