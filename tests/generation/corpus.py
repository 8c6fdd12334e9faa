"""Briefs the local engine's writing is judged on (issue 19): each with its brand, what it is
for, and the instruction a sober post must keep."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    name: str
    prompt: str
    intent: str  # what detect_intent must read from the prompt
    settings: dict = field(default_factory=dict)
    brand: dict = field(default_factory=dict)  # name, hashtags, dont
    keep: tuple[str, ...] = ()  # sentences every platform keeps verbatim (a recall's instruction)


CORPUS: tuple[Case, ...] = (
    Case(
        "recall",
        "SunnyDay Foods is recalling its 200 g Peanut Crunch bars (lot 4471, best before 03/2026) because of "
        "undeclared peanuts. Do not eat them! Return them to any store for a full refund. We are sorry. "
        "Details: https://sunnyday.com/recall",
        "recall",
        brand={"name": "SunnyDay Foods", "hashtags": ["#SunnyDayFoods"]},
        keep=("Do not eat them.",),
    ),
    Case(
        "event",
        "Join @harborlights and @priya.codes at the Harbor Hall on Friday, June 12 at 7:30 p.m. for a night of "
        "live folk music. Tickets are $15 at https://harborhall.com/tickets.",
        "event",
        brand={"name": "Harbor Hall", "hashtags": ["#HarborHall"]},
    ),
    Case(
        "offer",
        "Spring sale at Crumb & Co.: use code CRUMB15 for 15% off every loaf until April 30. "
        "Order at https://crumb.com/shop.",
        "offer",
        brand={"name": "Crumb & Co.", "hashtags": ["#CrumbAndCo"], "dont": ["cheap"]},
    ),
    Case(
        "hiring",
        "We're hiring a senior backend engineer for our Berlin team (Python, PostgreSQL, remote-friendly). "
        "Apply by May 15 at https://nordlicht.com/jobs.",
        "hiring",
        settings={"tone": "professional"},
        brand={"name": "Nordlicht Labs", "hashtags": ["#NordlichtLabs"]},
    ),
    Case("short", "New autumn menu drops Friday.", "launch", brand={"name": "Bistro Lune"}),
    Case(
        "spanish",
        "Abrimos el sábado 14 de marzo a las 9:00 en la Calle Mayor 5. Los primeros 50 clientes se llevan un "
        "café gratis.",
        "opening",
        brand={"name": "Café Sol"},
    ),
    Case(
        "french",
        "Atelier poterie le samedi 3 mai à 14h à l'Atelier Lumière, 12 rue des Arts. Places limitées à 8 "
        "personnes, réservation sur https://lumiere.com/atelier.",
        "event",
        brand={"name": "Atelier Lumière"},
    ),
    Case(
        "german",
        "Am 1. Mai eröffnet das Café Lindenblüte in der Hauptstr. 5 um 9 Uhr. Der erste Kaffee kostet 2,50 €.",
        "opening",
        brand={"name": "Café Lindenblüte"},
    ),
    Case(
        "portuguese",
        "Promoção de primavera: 30% de desconto em todos os vasos até 10 de abril com o cupom VASO30.",
        "offer",
        brand={"name": "Casa Verde"},
    ),
    Case(
        "apology",
        "We are sorry: orders placed on March 3 shipped two days late. Everyone affected gets a 10% credit "
        "on their next order, no code needed.",
        "apology",
        brand={"name": "Parcel Post"},
        keep=("Everyone affected gets a 10% credit on their next order, no code needed.",),
    ),
    Case(
        "incident",
        "Our checkout is down since 10:40 a.m. CET. We're investigating the outage and will post an update "
        "at https://status.example.com within the hour.",
        "incident",
        brand={"name": "ShopKit"},
    ),
    Case(
        "recipe",
        "Our banana bread recipe: 3 ripe bananas, 250 g flour and 100 g butter. Preheat the oven to 180 °C "
        "and bake for 55 minutes.",
        "recipe",
        brand={"name": "Crumb & Co."},
    ),
    Case(
        "podcast",
        "Episode 42 of the Maker Minutes podcast is out: Dr. Ana Ruiz explains how St. Louis makers price "
        "their work, e.g. by the hour. Listen at https://makerminutes.com/42.",
        "podcast",
        brand={"name": "Maker Minutes"},
    ),
    Case(
        "tip",
        "Three tips to keep your sourdough starter alive in winter: feed it every 12 hours, keep it at 24 °C "
        "and use filtered water.",
        "tip",
        brand={"name": "Crumb & Co."},
    ),
    Case(
        "launch",
        "Write a friendly post announcing the Trailhead 2 hiking boots by Summit Gear Co., waterproof and "
        "cheap, made from recycled materials. They cost $149 and ship on June 1. #HikeMore",
        "launch",
        brand={"name": "Summit Gear Co.", "hashtags": ["#SummitGear"], "dont": ["cheap"]},
    ),
    Case(
        "fundraiser",
        "Help the Riverside Animal Shelter raise $5,000 for winter blankets by March 31. Every donation "
        "counts: https://riverside.com/give",
        "fundraiser",
        brand={"name": "Riverside Animal Shelter"},
    ),
    Case(
        "release",
        "Version 3.2 of Ledgerly is now available: offline mode, faster sync and CSV export. Update at "
        "https://ledgerly.com/download.",
        "release",
        settings={"tone": "professional"},
        brand={"name": "Ledgerly"},
    ),
)
