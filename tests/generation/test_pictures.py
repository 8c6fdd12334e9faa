"""Pictures a designer would sign, measured over a corpus of briefs per intent x ratio: the hero
(a few of the brief's own words) is read back by tesseract and set large; every word drawn comes
from the brief, the brand or the kickers' labels; what the intent must show is shown; the logo
stays at 3:1 or more against the pixels behind it; a fact (phone, price, date, URL) is never
split; Japanese lines never start with closing punctuation; two seeds give two designs."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from apps.generation.base import BrandVoice
from apps.generation.local_media.brief import spec_from_text
from apps.generation.local_media.contrast import GRAPHIC, mark_contrast
from apps.generation.local_media.crop import subject_centre, subject_crop
from apps.generation.local_media.describe import describe
from apps.generation.local_media.design import compose
from apps.generation.local_media.icons import icon_image, pick_icon
from apps.generation.local_media.message import (
    MUST_HAVE,
    atoms,
    kicker_words,
    missing_on_picture,
    picture_intent,
    read_message,
)
from apps.generation.local_media.typeset import NO_END, NO_START, phrases

TESSERACT = shutil.which("tesseract")
DENTAL = BrandVoice(name="BrightSmile Leeds", primary_color="#0B3D91", secondary_color="#5BC0EB")
FREIGHT = BrandVoice(name="Cargotrace", primary_color="#14213D", secondary_color="#FCA311")
KITCHEN = BrandVoice(name="Grünkraut Kitchen", primary_color="#1F5E3B", secondary_color="#F4B942")

#: intent -> (brief, brand); the briefs' heroes are asserted below
CORPUS: dict[str, tuple[str, BrandVoice, str]] = {
    "offer": (
        "Spring smile week: 20% off whitening until 30 June with code SMILE20. "
        "Book at brightsmile-leeds.co.uk or call 0113 496 0199.",
        DENTAL,
        "20% off whitening",
    ),
    "hiring": (
        "We're hiring a Senior Backend Engineer in Leeds. £65,000 a year, hybrid. "
        "Apply at cargotrace.io/jobs by 30 June.",
        FREIGHT,
        "Senior Backend Engineer",
    ),
    "milestone": (
        "Cargotrace just passed 100 million shipments tracked! Thank you to every shipper who trusted us.",
        FREIGHT,
        "100 million shipments",
    ),
    "launch": (
        "Introducing Cargotrace Live Map: see every container in real time. Try it free at cargotrace.io.",
        FREIGHT,
        "Cargotrace Live Map",
    ),
    "closure": (
        "Our clinic is closed 24 Dec – 1 Jan. We reopen on 2 January at 8:30am. Emergencies: call 0113 496 0199.",
        DENTAL,
        "Reopen on 2 January at 8:30am",
    ),
    "testimonial": (
        '"I was scared of dentists for 20 years. Dr Patel made me feel at ease." – Sarah, Leeds',
        DENTAL,
        "I was scared of dentists for 20 years. Dr Patel made me feel at ease.",
    ),
    "recall": (
        "Our Beetroot Hummus batch 2231 may contain undeclared sesame. Do not eat it if you are allergic. "
        "Return it for a full refund.",
        KITCHEN,
        "Do not eat it",
    ),
    "event": (
        "Join our vegan cooking workshop on Saturday 21 June at 10am at Grünkraut Kitchen. "
        "Book at gruenkraut.berlin.",
        KITCHEN,
        "Vegan cooking workshop",
    ),
}
#: (width, height, platform, post type): every ratio the platforms' data uses, small
RATIOS = {
    "1:1": (420, 420, "instagram", "feed"),
    "4:5": (400, 500, "instagram", "feed"),
    "16:9": (640, 360, "x", "feed"),
    "1.91:1": (764, 400, "linkedin", "feed"),
    "2:3": (400, 600, "pinterest", "feed"),
    "9:16": (360, 640, "instagram", "story"),
}
#: the hero's line height, as a share of the image's shorter side, at least
HERO_SHARE = 0.05


def _logo(colour: tuple[int, int, int]) -> bytes:
    img = Image.new("RGBA", (240, 90), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, 0, 90, 90), radius=18, fill=(*colour, 255))
    d.rectangle((105, 25, 235, 45), fill=(*colour, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _render(intent: str, ratio: str, seed: int = 0, logo: bytes | None = None):
    brief, brand, _ = CORPUS[intent]
    w, h, platform, post_type = RATIOS[ratio]
    spec = spec_from_text(prompt=brief, hook="", facts=[brief], brand=brand)
    design = compose(spec, w, h, platform=platform, post_type=post_type, seed=seed, logo=logo, brand=brand)
    return design, spec


def _ocr(img: Image.Image, lang: str = "eng") -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.png"
        img.save(path)
        return subprocess.run(
            [TESSERACT, str(path), "stdout", "-l", lang, "--psm", "6"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout


def _words(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"[^\W_]+", text)}


def _inside(box, outer) -> bool:
    return box[0] >= outer[0] and box[1] >= outer[1] and box[2] <= outer[2] and box[3] <= outer[3]


def test_the_message_is_read_from_the_brief_for_every_intent():
    for intent, (brief, _, hero) in CORPUS.items():
        msg = read_message(brief)
        assert msg.intent == intent, (brief, msg.intent)
        assert msg.hero == hero
        assert len(msg.hero.split()) <= 6 or intent == "testimonial"
        assert msg.hero.casefold() in brief.casefold()  # the brief's own words
    offer = read_message(CORPUS["offer"][0])
    assert offer.kicker == "Offer" and "SMILE20" in offer.chips and "0113 496 0199" in offer.chips
    assert offer.cta == "Book at brightsmile-leeds.co.uk"
    hiring = read_message(CORPUS["hiring"][0])
    assert hiring.kicker == "We're hiring" and {"Leeds", "£65,000 a year"} <= set(hiring.chips)
    assert hiring.cta == "Apply at cargotrace.io/jobs by 30 June"
    closure = read_message(CORPUS["closure"][0])
    assert closure.kicker == "Closed 24 Dec – 1 Jan"
    assert read_message(CORPUS["recall"][0]).kicker == "Allergy notice"
    # never an empty hook
    for brief, _, _ in CORPUS.values():
        assert not re.match(r"(an update from|introducing something new)", read_message(brief).hero, re.I)


def test_the_intent_comes_from_the_words_classifier():
    # facts.detect_intent says hiring, so does the picture
    assert picture_intent("We're hiring a barista in Berlin. Apply by Friday.") == "hiring"
    assert picture_intent("Recall: batch 12 may contain peanuts. Do not eat it.") == "recall"


@pytest.mark.skipif(TESSERACT is None, reason="tesseract is not installed")
@pytest.mark.parametrize("ratio", list(RATIOS))
@pytest.mark.parametrize("intent", list(CORPUS))
def test_every_intent_and_ratio_sets_the_hero_large_with_its_facts_and_nothing_invented(intent, ratio):
    design, _spec = _render(intent, ratio, seed=(len(intent) + len(ratio)) % 3, logo=_logo((11, 61, 145)))
    brief, brand, _hero = CORPUS[intent]
    img = design.draw()
    assert img.size == RATIOS[ratio][:2]
    blocks = {b.role: b for b in design.blocks}
    assert "headline" in blocks, design.dropped
    head = blocks["headline"]
    # the hero in large type: its line height a stated share of the shorter side
    assert head.set.size >= HERO_SHARE * min(img.size) * (0.6 if intent == "testimonial" else 1), (
        head.set.size
    )
    # read back by OCR from the picture (the hero's box, enlarged for tesseract)
    x0, y0, x1, y1 = head.set.box
    crop = img.crop((max(0, x0 - 8), max(0, y0 - 8), x1 + 8, y1 + 8))
    crop = crop.resize((crop.width * 2, crop.height * 2))
    read = _words(_ocr(crop))
    wanted = _words(head.set.text)
    assert len(read & wanted) >= 0.7 * len(wanted), (read, wanted)
    # every word drawn is the brief's, the brand's or a kicker's label
    allowed = _words(brief) | _words(brand.name) | kicker_words() | {"s"}
    drawn = " ".join(b.set.text for b in design.blocks)
    assert _words(drawn) <= allowed, _words(drawn) - allowed
    # what the intent must show is on it
    msg = read_message(brief)
    if intent != "recipe":
        assert missing_on_picture(msg, [b.set.text for b in design.blocks]) == []
    # every block inside the platform's safe area
    for block in design.blocks:
        assert _inside(block.set.box, design.safe), (block.role, block.set.box, design.safe)
        assert block.contrast >= 4.5, (block.role, block.contrast)
    # no fact split over two lines
    for atom in atoms(brief):
        for block in design.blocks:
            if atom.text in block.set.text and len(block.set.lines) > 1:
                assert any(atom.text in line for line in block.set.lines), (atom.text, block.set.lines)
    # the logo at 3:1 or more on what is actually behind it, and no text over it
    assert design.logo is not None
    layer, pos = design.logo
    assert mark_contrast(design.base, layer, pos) >= GRAPHIC
    lb = (pos[0], pos[1], pos[0] + layer.width, pos[1] + layer.height)
    for block in design.blocks:
        b = block.set.box
        assert b[2] <= lb[0] or b[0] >= lb[2] or b[3] <= lb[1] or b[1] >= lb[3]


def test_the_must_have_table_is_declared_once_and_catches_a_missing_fact():
    assert set(MUST_HAVE) >= {"recall", "closure", "testimonial", "recipe", "event", "hiring"}
    msg = read_message(CORPUS["closure"][0])
    assert missing_on_picture(msg, ["Closed 24 Dec – 1 Jan"]) == [
        "2 January",
        "reopen on 2 January at 8:30am",
    ]
    event = read_message(CORPUS["event"][0])
    assert "10am" in missing_on_picture(event, ["Vegan cooking workshop", "Saturday 21 June"])


def test_a_logo_in_the_grounds_own_colour_gets_a_chip_and_stays_at_3_to_1():
    # a navy logo on the navy panel (2.2:1 and less in the report): measured, then backed
    navy = _logo((11, 61, 145))
    for seed in range(3):
        design, _ = _render("offer", "1:1", seed=seed, logo=navy)
        layer, pos = design.logo
        assert mark_contrast(design.base, layer, pos) >= GRAPHIC
        assert design.logo_contrast >= GRAPHIC
    dark = BrandVoice(name="Night", primary_color="#0B3D91", secondary_color="#0B3D91")
    spec = spec_from_text(prompt=CORPUS["milestone"][0], hook="", facts=[], brand=dark)
    design = compose(spec, 400, 400, seed=0, logo=navy, brand=dark)
    assert "logo" in design.panels  # on a chip (or one colour), not melted


def _dhash(img: Image.Image) -> int:
    small = np.asarray(img.convert("L").resize((17, 16), Image.Resampling.BILINEAR), dtype=np.int16)
    bits = (small[:, 1:] > small[:, :-1]).flatten()
    return int("".join("1" if b else "0" for b in bits), 2)


@pytest.mark.parametrize("intent", list(CORPUS))
def test_three_seeds_give_three_layouts_that_differ_by_perceptual_hash(intent):
    hashes, variants = [], set()
    for seed in range(3):
        design, _ = _render(intent, "4:5", seed=seed)
        variants.add(design.variant)
        hashes.append(_dhash(design.draw()))
    assert len(variants) == 3
    for i in range(3):
        for j in range(i + 1, 3):
            assert bin(hashes[i] ^ hashes[j]).count("1") >= 12, (intent, i, j)


def test_japanese_is_broken_by_phrase_with_kinsoku_and_its_alt_text_has_no_drawn_breaks():
    brief = (
        "12月24日から1月3日まで休診いたします。1月4日（月）9:00より通常診療です。「ご予約」はお電話でどうぞ。"
    )
    for part in phrases(brief):
        assert part[0] not in NO_START and part[-1] not in NO_END
    spec = spec_from_text(prompt=brief, hook="", facts=[], brand=DENTAL, language="ja")
    for ratio in ("1:1", "9:16", "16:9"):
        w, h, platform, post_type = RATIOS[ratio]
        design = compose(spec, w, h, platform=platform, post_type=post_type, brand=DENTAL)
        lines = [line for b in design.blocks for line in b.set.lines]
        assert lines
        for block in design.blocks:
            for n, line in enumerate(block.set.lines):
                assert line[0] not in NO_START, (line, block.set.lines)
                assert line[-1] not in NO_END or n == len(block.set.lines) - 1, line
        multi = [b for b in design.blocks if len(b.set.lines) > 1]
        alt = describe(design, "ja")
        for block in multi:
            assert "".join(block.set.lines) in alt  # the lines joined with nothing between them
        msg = read_message(brief, "ja")
        assert msg.intent == "closure" and missing_on_picture(msg, [b.set.text for b in design.blocks]) == []


def test_a_recipe_carousel_puts_every_step_on_a_slide_numbered_once():
    brief = (
        "Smoky lentil stew. 1. Fry onion and garlic. 2. Add lentils and smoked paprika. "
        "3. Pour in stock and simmer 25 minutes. 4. Finish with lemon and parsley."
    )
    spec = spec_from_text(prompt=brief, hook="", facts=[], brand=KITCHEN)
    drawn: list[str] = []
    for slide in range(3):
        design = compose(spec, 400, 500, platform="instagram", slide=slide, slides=3, brand=KITCHEN)
        drawn += [b.set.text for b in design.blocks]
    msg = read_message(brief)
    assert msg.intent == "recipe" and len(msg.steps) == 4
    assert missing_on_picture(msg, drawn) == []
    for step in msg.steps:
        assert not re.match(r"\d", step)  # "1) Fry" is not numbered again under its disc
    assert [t for t in drawn if t in {"1", "2", "3", "4"}] == ["1", "2", "3", "4"]


def test_icons_follow_the_briefs_nouns_and_the_brand_colour():
    assert pick_icon(["shipments", "tracked"], "milestone") == "package"
    assert pick_icon(["whitening"], "offer") == "sparkles"
    assert pick_icon(["lentil", "stew"], "recipe") == "bean"
    assert pick_icon(["party"], "recall") == "triangle-alert"  # a recall is never festive
    icon = np.asarray(icon_image("truck", 96, (20, 80, 200)))
    ink = icon[icon[..., 3] > 200][:, :3]
    assert len(ink) > 100 and np.abs(ink.astype(int) - (20, 80, 200)).max() <= 2


def test_the_brands_photo_is_cropped_around_its_subject():
    photo = Image.new("RGB", (900, 600), (210, 210, 205))
    ImageDraw.Draw(photo).ellipse((700, 80, 860, 240), fill=(190, 40, 40))
    cx, cy = subject_centre(photo)
    assert cx > 0.7 and cy < 0.4
    crop = np.asarray(subject_crop(photo, (300, 600)))
    red = (crop[..., 0] > 150) & (crop[..., 1] < 90)
    assert red.sum() > 0.6 * np.pi * 80 * 80 * (600 / 600) ** 2 * 0.5  # the subject is in the tall crop


#: (platform, post type) of the full-screen vertical formats and their zones
VERTICAL = [("instagram", "reel"), ("instagram", "story"), ("tiktok", "video"), ("youtube", "short")]


@pytest.mark.parametrize(("platform", "post_type"), VERTICAL)
def test_every_text_box_of_a_vertical_post_and_its_closing_card_lies_in_the_platforms_safe_zone(
    platform, post_type
):
    from apps.platforms.safe_zones import safe_zone

    zone = safe_zone(platform, post_type)
    assert zone is not None
    w, h = 540, 960
    inner = (w * zone.left / 100, h * zone.top / 100, w * (1 - zone.right / 100), h * (1 - zone.bottom / 100))
    for intent in ("offer", "event", "closure"):
        brief, brand, _ = CORPUS[intent]
        spec = spec_from_text(prompt=brief, hook="", facts=[brief], brand=brand)
        for seed in range(3):
            design = compose(spec, w, h, platform=platform, post_type=post_type, seed=seed, brand=brand)
            closing = compose(
                {**spec, "template": "closing"}, w, h, platform=platform, post_type=post_type, brand=brand
            )
            for block in [*design.blocks, *closing.blocks]:
                assert _inside(block.set.box, inner), (intent, block.role, block.set.box, inner)
            # the design fills the frame: its lower half is not one empty colour
            lower = np.asarray(design.draw().crop((0, h // 2, w, h)).convert("L"))
            assert lower.std() > 8, (intent, seed)


@pytest.mark.skipif(TESSERACT is None or shutil.which("ffmpeg") is None, reason="tesseract or ffmpeg missing")
def test_a_reels_first_frame_shows_the_hero_and_its_closing_card_the_briefs_call_to_action(tmp_path):
    from apps.generation.base import PostDesign, VideoRequest
    from apps.generation.local import LocalEngine
    from tests.generation.test_designed_posts import _frame

    brief, brand, hero = CORPUS["offer"]
    spec = spec_from_text(prompt=brief, hook="", facts=[brief], brand=brand)
    design = PostDesign(
        spec=spec, platform="instagram", post_type="reel", logo=_logo((11, 61, 145)), music=False
    )
    result = LocalEngine().video(
        VideoRequest(
            prompt=brief, width=540, height=960, seconds=5.0, style="illustration", brand=brand, design=design
        )
    )
    path = tmp_path / "reel.mp4"
    path.write_bytes(result.data)
    first = _words(_ocr(_frame(str(path), last=False)))
    assert _words(hero) <= first | {"20"}, (first, hero)  # the hero, not an empty chip
    assert not ({"smile20", "june"} & first)  # the chips come after it
    last = _words(_ocr(_frame(str(path), last=True)))
    assert {"book", "brightsmile"} <= last or "brightsmile-leeds" in " ".join(last), last


def test_a_photo_of_the_frames_own_ratio_or_smaller_is_cropped_without_error():
    # float rounding once put the crop box a hair outside a photo of the exact ratio
    for size, want in (((300, 200), (600, 400)), ((1080, 1350), (216, 270)), ((640, 480), (341, 256))):
        photo = Image.new("RGB", size, (200, 180, 160))
        ImageDraw.Draw(photo).ellipse((10, 10, 60, 60), fill=(20, 20, 20))
        assert subject_crop(photo, want).size == want
