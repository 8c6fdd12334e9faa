"""Sample posts for a person to read (``manage.py write_samples`` writes docs/samples.md).

Each sample goes through the pipeline the API runs: a brand with its settings, a content
created by ``content_request_generation``, and ``pipeline.run`` (settings, the engine's text
for every platform, adaptation, validation) with the configured engine, inside a transaction
that is rolled back, so the database keeps nothing. Media are not drawn (the text is what is
read here); the YouTube variant comes from a video content of the same brief."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings as django_settings
from django.db import transaction

from apps.platforms.captions import compose_caption
from apps.platforms.rules import SUPPORTED_PLATFORMS, count_text, get_format, get_rules

from .sample_pictures import sample_pictures

PLATFORM_ORDER = (
    "x",
    "linkedin",
    "instagram",
    "facebook",
    "tiktok",
    "youtube",
    "pinterest",
    "threads",
    "bluesky",
)


@dataclass(frozen=True)
class Sample:
    prompt: str
    brand: str
    brand_tags: tuple[str, ...] = ()
    settings: dict = field(default_factory=dict)
    dont: tuple[str, ...] = ()


SAMPLES: tuple[Sample, ...] = (
    Sample(
        "SunnyDay Foods is recalling its 200 g Peanut Crunch bars (lot 4471, best before 03/2026) because of "
        "undeclared peanuts. Do not eat them. Return them to any store for a full refund. We are sorry. "
        "Details: https://sunnyday.com/recall",
        "SunnyDay Foods",
        ("#SunnyDayFoods",),
    ),
    Sample(
        "Join @harborlights and @priya.codes at the Harbor Hall on Friday, June 12 at 7:30 p.m. for a night of "
        "live folk music. Tickets are $15 at https://harborhall.com/tickets.",
        "Harbor Hall",
        ("#HarborHall",),
    ),
    Sample(
        "Spring sale at Crumb & Co.: use code CRUMB15 for 15% off every loaf until April 30. "
        "Order at https://crumb.com/shop.",
        "Crumb & Co.",
        ("#CrumbAndCo",),
        {"tone": "playful"},
        dont=("cheap",),
    ),
    Sample(
        "We're hiring a senior backend engineer for our Berlin team (Python, PostgreSQL, remote-friendly). "
        "Apply by May 15 at https://nordlicht.com/jobs.",
        "Nordlicht Labs",
        ("#NordlichtLabs",),
        {"tone": "professional", "length": "long"},
    ),
    Sample("New autumn menu drops Friday.", "Bistro Lune", (), {"length": "short"}),
    Sample(
        "Abrimos el sábado 14 de marzo a las 9:00 en la Calle Mayor 5. Los primeros 50 clientes se llevan un "
        "café gratis.",
        "Café Sol",
        ("#CaféSol",),
    ),
    Sample(
        "Atelier poterie le samedi 3 mai à 14h à l'Atelier Lumière, 12 rue des Arts. Places limitées à 8 "
        "personnes, réservation sur https://lumiere.com/atelier.",
        "Atelier Lumière",
    ),
    Sample(
        "Am 1. Mai eröffnet das Café Lindenblüte in der Hauptstr. 5 um 9 Uhr. Der erste Kaffee kostet 2,50 €.",
        "Café Lindenblüte",
    ),
    Sample(
        "Our checkout is down since 10:40 a.m. CET. We're investigating the outage and will post an update "
        "at https://status.shopkit.com within the hour.",
        "ShopKit",
    ),
    Sample(
        "Episode 42 of the Maker Minutes podcast is out: Dr. Ana Ruiz explains how St. Louis makers price "
        "their work, e.g. by the hour. Listen at https://makerminutes.com/42.",
        "Maker Minutes",
        ("#MakerMinutes",),
    ),
    Sample(
        "Three tips to keep your sourdough starter alive in winter: feed it every 12 hours, keep it at 24 °C "
        "and use filtered water.",
        "Crumb & Co.",
        ("#CrumbAndCo",),
        {"tone": "educational"},
    ),
    Sample(
        "Write a friendly post announcing the Trailhead 2 hiking boots by Summit Gear Co., waterproof and "
        "cheap, made from recycled materials. They cost $149 and ship on June 1. #HikeMore",
        "Summit Gear Co.",
        ("#SummitGear",),
        dont=("cheap",),
    ),
)


class _Rollback(Exception):
    """Leaves the transaction a sample was written in."""


def _generate(organization, brand, sample: Sample, platforms: list[str], media_type: str, seed: int) -> dict:
    from apps.content.models import Content
    from apps.content.services import GenerationInput, content_request_generation

    from .pipeline import run

    content = content_request_generation(
        organization=organization,
        inp=GenerationInput(
            prompt=sample.prompt,
            platforms=platforms,
            brand=brand,
            media_type=media_type,
            settings=dict(sample.settings),
            media_request={"generate": False},
        ),
        enqueue=False,
    )
    Content.objects.filter(pk=content.pk).update(seed=seed)
    run(content.pk)
    return {v.platform: v for v in Content.objects.get(pk=content.pk).variants.all()}


def generate_samples() -> list[tuple[Sample, dict]]:
    """Every sample's variants by platform, made by the pipeline and then rolled back."""
    from apps.accounts.models import Organization
    from apps.brands.models import Brand

    out: list[tuple[Sample, dict]] = []
    try:
        with transaction.atomic():
            organization = Organization.objects.create(name="Samples")
            for n, sample in enumerate(SAMPLES, 1):
                brand = Brand.objects.create(
                    organization=organization,
                    name=sample.brand,
                    slug=f"sample-{n}",
                    hashtags=list(sample.brand_tags),
                    generation_settings={"guidelines": {"do": [], "dont": list(sample.dont)}},
                )
                image_platforms = [p for p in PLATFORM_ORDER if p != "youtube" and p in SUPPORTED_PLATFORMS]
                variants = _generate(organization, brand, sample, image_platforms, "image", seed=n)
                variants.update(_generate(organization, brand, sample, ["youtube"], "video", seed=n))
                variants["_pictures"] = sample_pictures(organization, brand, sample, n)
                out.append((sample, variants))
            raise _Rollback
    except _Rollback:
        pass
    return out


def _field(label: str, value: str) -> list[str]:
    return [f"**{label}:** {value}", ""] if value else []


def samples_markdown() -> str:
    engine = django_settings.GENERATION_ENGINE
    lines = [
        "# Sample posts",
        "",
        f"Generated by `python manage.py write_samples` with the `{engine}` engine through the pipeline the API",
        "runs (a brand, a content created by the content service, the generation run: the engine writes every",
        "platform from the one brief, then each variant is fitted to its platform and validated), inside a",
        "transaction that is rolled back. Regenerate after changing the engine, its words or the adaptation",
        "rules, and read the result.",
        "",
    ]
    for n, (sample, variants) in enumerate(generate_samples(), 1):
        shown = {k: v for k, v in sample.settings.items()}
        settings_line = ", ".join(f"{k} {v}" for k, v in shown.items()) or "default settings"
        brand_line = sample.brand + (f" ({', '.join(sample.brand_tags)})" if sample.brand_tags else "")
        if sample.dont:
            brand_line += f", never says: {', '.join(sample.dont)}"
        lines += [f"## {n}. {sample.prompt}", "", f"_Brand {brand_line}; {settings_line}._", ""]
        lines += variants.get("_pictures", [])
        for platform in PLATFORM_ORDER:
            variant = variants.get(platform)
            if variant is None:
                continue
            media = "video" if platform == "youtube" else "image"
            limit = get_format(platform, "feed", media).caption
            published = compose_caption(variant.caption, variant.hashtags)
            lines.append(
                f"### {get_rules(platform).display_name} "
                f"({count_text(platform, published)}/{limit.max} {limit.unit_label})"
            )
            lines.append("")
            lines += _field("Title", variant.title)
            lines += ["> " + line if line else ">" for line in published.split("\n")]
            lines.append("")
            lines += _field("First comment", variant.first_comment.replace("\n\n", " / "))
            lines += _field("Alt text", variant.alt_text)
            lines += _field("Sounds", ", ".join(variant.sounds))
            if variant.adaptations:
                lines += ["<sub>" + "; ".join(variant.adaptations) + "</sub>", ""]
    return "\n".join(lines).rstrip() + "\n"
