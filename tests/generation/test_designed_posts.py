"""The local engine's designed posts, measured: every template at every aspect ratio of the
spec over a corpus of messages (short, long, non-Latin scripts, emoji, right-to-left) keeps its
text in the platform's safe zone, unclipped and AA-contrasted (the layout engine's measurements,
then tesseract reading the headline back); the logo is found by template matching and the
colours are the brand's; the alt text says what was drawn; the video is what was asked."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from apps.generation.base import BrandVoice, ImageRequest, PostDesign, VideoRequest
from apps.generation.local import LocalEngine
from apps.generation.local_media.brief import TEMPLATES, detect_template, find_code, find_date, spec_from_text
from apps.generation.local_media.composer import safe_box
from apps.generation.local_media.describe import describe
from apps.generation.local_media.design import compose
from apps.generation.local_media.layer_edits import parse_layer_edits
from apps.generation.local_media.music import RATE, loudness, synthesise
from apps.generation.local_media.typeset import AA, contrast, plain
from apps.generation.render_progress import listening
from apps.generation.visual_prompt import alt_from_prompt, visual_description

ENGINE = LocalEngine()
BRAND = BrandVoice(name="Crumb Co", tone="friendly", primary_color="#7A3E2B", secondary_color="#F2C572")
TESSERACT = shutil.which("tesseract")
FFMPEG = shutil.which("ffmpeg")

#: short, long, Cyrillic, Greek, Arabic (RTL), Hebrew (RTL), Devanagari, emoji
CORPUS = {
    "short": "Open today",
    "long": (
        "Our new sourdough bakery on Rue Verte opens its doors this Saturday morning with fresh "
        "loaves, cinnamon buns and the best coffee in the neighbourhood for everyone"
    ),
    "cyrillic": "Новая пекарня открывается в субботу",
    "greek": "Το νέο μας αρτοποιείο ανοίγει το Σάββατο",
    "arabic": "مخبزنا الجديد يفتح أبوابه يوم السبت",
    "hebrew": "המאפייה החדשה שלנו נפתחת בשבת",
    "devanagari": "हमारी नई बेकरी शनिवार को खुल रही है",
    "emoji": "Fresh croissants every morning 🥐☕ see you soon 🎉",
}
#: (width, height, platform, post type) at a small size per aspect ratio of the spec
RATIOS = {
    "1:1": (480, 480, "instagram", "feed"),
    "4:5": (432, 540, "instagram", "feed"),
    "16:9": (640, 360, "linkedin", "feed"),
    "9:16": (360, 640, "tiktok", "short"),
    "3:2": (600, 400, "facebook", "feed"),
}
STORY = (360, 640, "instagram", "story")
#: TikTok's zone from platforms.safe_zones (5.9% left, 7.8% top, 13% right, 25.2% bottom) and
#: 2% more at the top and bottom, the feed's 7% at the left
TIKTOK_SAFE = (76, 188, 940, 1398)
FACTS = {
    "offer": ["Spring sale: 20% off all loaves with code SPRING20 until Sunday."],
    "event": ["Join our sourdough workshop on Saturday 21 June at 10am."],
    "recipe": ["Mix flour, water and salt.", "Rest the dough overnight.", "Bake at 230C for 25 minutes."],
    "notice": ["Batch 2231 of our oat cookies may contain hazelnut.", "Bring them back for a refund."],
}


def _logo() -> bytes:
    img = Image.new("RGBA", (240, 100), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((0, 0, 100, 100), fill=(20, 110, 90, 255))
    d.rectangle((115, 20, 235, 45), fill=(230, 60, 40, 255))
    d.rectangle((115, 55, 200, 80), fill=(20, 20, 20, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


LOGO = _logo()


def _spec(template: str, message: str, **extra) -> dict:
    facts = FACTS.get(template, [])
    return {
        **spec_from_text(
            prompt=" ".join(facts),
            hook=message,
            facts=facts,
            cta="See you soon",
            brand=BRAND,
            template=template,
        ),
        # the tests set the headline they check (a notice or quote leads with its fact otherwise)
        "headline": plain(message),
        **extra,
    }


def _cases():
    """Every template x every ratio, two messages each, rotating through the corpus so each
    message meets every template (80 renders at small sizes)."""
    names = list(CORPUS)
    cases = []
    for t, template in enumerate(TEMPLATES):
        for r, ratio in enumerate(RATIOS):
            for k in range(2):
                cases.append((template, ratio, names[(t * 5 + r * 2 + k) % len(names)]))
    return cases


def _inside(box, outer) -> bool:
    return box[0] >= outer[0] and box[1] >= outer[1] and box[2] <= outer[2] and box[3] <= outer[3]


def _check_layout(design, img: Image.Image, message: str) -> None:
    safe = design.safe
    assert "headline" not in design.dropped, (design.spec["template"], message)
    headline = next(b for b in design.blocks if b.role == "headline")
    joiner = "" if " " not in plain(message).strip() else " "
    assert joiner.join(headline.set.lines) == plain(message)  # nothing cut, every word set
    base = design.ground()  # the chips and pills sit on their plates
    for block in design.blocks:
        font = block.set.pil_font
        assert _inside(block.set.box, safe), (block.role, block.set.box, safe)
        for line, (x, y) in zip(block.set.lines, block.set.origins, strict=True):
            # the ink of each line, measured on its own from where it is drawn, stays in the safe zone
            ink = font.getbbox(line, anchor="la", direction="rtl" if block.set.rtl else None)
            assert x + ink[0] >= safe[0] and x + ink[2] <= safe[2], (line, ink, (x, y), safe)
            assert y + ink[1] >= safe[1] and y + ink[3] <= safe[3], (line, ink, (x, y), safe)
        # contrast measured again on the pixels behind the block (the picture without its text)
        region = np.asarray(base.crop(block.set.box).convert("RGB")).reshape(-1, 3)
        worst = min(
            contrast(block.colour, tuple(int(v) for v in px)) for px in np.unique(region, axis=0)[:4000]
        )
        assert worst >= AA, (block.role, worst)
        assert block.contrast >= AA
    if design.logo_box:
        assert _inside(design.logo_box, safe)
        for block in design.blocks:  # clear space: no text over the logo
            b = block.set.box
            lb = design.logo_box
            assert b[2] <= lb[0] or b[0] >= lb[2] or b[3] <= lb[1] or b[1] >= lb[3]


@pytest.mark.parametrize(("template", "ratio", "message"), _cases())
def test_every_template_and_ratio_keeps_the_message_in_the_safe_zone_unclipped_and_readable(
    template, ratio, message
):
    width, height, platform, post_type = RATIOS[ratio]
    design = compose(
        _spec(template, CORPUS[message]),
        width,
        height,
        platform=platform,
        post_type=post_type,
        logo=LOGO,
        brand=BRAND,
    )
    img = design.draw()
    assert img.size == (width, height)
    _check_layout(design, img, CORPUS[message])


def test_stories_keep_text_out_of_the_top_bar_and_the_reply_box():
    width, height, platform, post_type = STORY
    design = compose(
        _spec("announcement", CORPUS["long"]),
        width,
        height,
        platform=platform,
        post_type=post_type,
        brand=BRAND,
    )
    _check_layout(design, design.draw(), CORPUS["long"])
    # platforms.safe_zones' story (14% top and bottom) and 2% more, the feed's 7% at the sides
    assert design.safe == (25, 102, 335, 538)
    tiktok = safe_box(1080, 1920, "tiktok", "short")
    assert tiktok == TIKTOK_SAFE  # the right-hand buttons and the caption are kept clear


def test_a_script_no_font_covers_is_not_set_and_the_alt_text_says_so():
    design = compose(
        _spec("quote", "\U00010000\U00010001\U00010002 \U00010003"), 480, 480, brand=BRAND
    )  # Linear B
    assert "headline" in design.dropped and not any(b.role == "headline" for b in design.blocks)
    assert "No text." in describe(design)


def test_chinese_japanese_and_korean_are_set_in_the_machines_cjk_font():
    """No shipped font has them: fontconfig finds Debian's Noto Sans CJK (make test installs it);
    spaceless lines break between characters and stay inside the area."""
    for text in (
        "新しいパン屋が土曜日の朝八時に開店します",
        "新面包店周六早上八点开业",
        "새 빵집이 토요일에 문을 엽니다",
    ):
        design = compose(_spec("quote", text), 480, 600, brand=BRAND)
        head = next(b for b in design.blocks if b.role == "headline")
        assert head.set.font.name.startswith("Noto Sans CJK"), head.set.font
        assert "".join(head.set.lines).replace(" ", "") == text.replace(" ", "")
        assert len(head.set.lines) > 1
        left, top, right, bottom = head.set.box
        assert left >= 0 and right <= 480 and top >= 0 and bottom <= 600
        assert text.split(" ")[0][:4] in describe(design)


def test_right_to_left_lines_are_right_aligned():
    design = compose(_spec("notice", CORPUS["arabic"]), 480, 600, brand=BRAND)
    head = next(b for b in design.blocks if b.role == "headline")
    assert head.set.rtl and head.set.align == "right"
    assert max(b[2] for b in head.set.line_boxes) == head.set.box[2]


# --------------------------------------------------------------------------- OCR


def _ocr(img: Image.Image) -> str:
    assert TESSERACT, "tesseract is missing: `make media-tools` installs Debian's tesseract-ocr"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.png"
        img.save(path)
        out = subprocess.run(
            [TESSERACT, str(path), "stdout", "--psm", "11", "-l", "eng"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    return out.stdout


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z0-9]{3,}", text)]


def _read_back(img: Image.Image, message: str) -> float:
    seen = set(_words(_ocr(img)))
    wanted = _words(message)
    return sum(w in seen for w in wanted) / len(wanted)


@pytest.mark.parametrize(
    ("template", "ratio"),
    [(t, list(RATIOS)[i % len(RATIOS)]) for i, t in enumerate(TEMPLATES)]
    + [("announcement", "9:16"), ("offer", "16:9")],
)
def test_tesseract_reads_the_headline_back(template, ratio):
    width, height, platform, post_type = RATIOS[ratio]
    message = "Fresh sourdough every morning on Rue Verte"
    design = compose(
        _spec(template, message),
        width * 2,
        height * 2,
        platform=platform,
        post_type=post_type,
        logo=LOGO,
        brand=BRAND,
    )
    assert _read_back(design.draw(), message) >= 0.85


# --------------------------------------------------------------------------- brand


def _match(img: Image.Image, template: Image.Image) -> tuple[float, tuple[int, int]]:
    """Best normalised cross-correlation of ``template`` over ``img`` (grey, brute force)."""
    a = np.asarray(img.convert("L"), dtype=np.float64)
    t = np.asarray(template.convert("L"), dtype=np.float64)
    th, tw = t.shape
    windows = np.lib.stride_tricks.sliding_window_view(a, (th, tw))[::2, ::2]
    tz = t - t.mean()
    wz = windows - windows.mean(axis=(2, 3), keepdims=True)
    num = (wz * tz).sum(axis=(2, 3))
    den = np.sqrt((wz**2).sum(axis=(2, 3)) * (tz**2).sum()) + 1e-9
    score = num / den
    y, x = np.unravel_index(int(score.argmax()), score.shape)
    return float(score.max()), (int(x) * 2, int(y) * 2)


@pytest.mark.parametrize("template", ["announcement", "offer", "notice", "hiring"])
def test_the_logo_is_found_by_template_matching_in_a_top_corner(template):
    design = compose(_spec(template, "Open today"), 540, 675, platform="instagram", logo=LOGO, brand=BRAND)
    img = design.draw()
    box = design.logo_box
    logo = Image.open(io.BytesIO(LOGO)).convert("RGBA")
    logo = logo.crop(logo.getchannel("A").getbbox()).resize(
        (box[2] - box[0], box[3] - box[1]), Image.Resampling.LANCZOS
    )
    flat = Image.new("RGB", logo.size, (255, 255, 255))
    flat.paste(logo, (0, 0), logo)
    score, (x, y) = _match(img.crop((0, 0, 540, 200)), flat)
    assert score > 0.8, score
    assert abs(x - box[0]) <= 2 and abs(y - box[1]) <= 2  # where the design says, in a top corner
    assert y < 100 and (x < 100 or x + logo.width > 440)


def _dominant(img: Image.Image, n: int = 4) -> list[tuple[tuple[int, int, int], float]]:
    """The ``n`` most frequent colours with their share of the pixels (a flat design's fills
    are exact colours; anti-aliased edges are a long tail of rare ones)."""
    rgb = img.convert("RGB")
    counts = sorted(rgb.getcolors(maxcolors=rgb.width * rgb.height), reverse=True)[:n]
    total = rgb.width * rgb.height
    return [(colour, c / total) for c, colour in counts]


@pytest.mark.parametrize("template", ["offer", "hiring", "event", "quote", "notice"])
def test_the_dominant_colours_are_the_brands(template):
    from apps.generation.local_media.palette import darken, lighten, mix

    primary, secondary = (11, 110, 79), (242, 197, 114)
    brand = BrandVoice(name="Teal", primary_color="#0B6E4F", secondary_color="#F2C572")
    spec = {**_spec(template, "Open today"), "colours": {"primary": "#0B6E4F", "secondary": "#F2C572"}}
    img = compose(spec, 432, 540, brand=brand).draw()
    # the brand's colours, their tints and shades, and the neutrals type is set in
    shades = [mix(primary, darken(primary, 0.6), k / 6) for k in range(7)] + [lighten(primary, 0.12)]
    family = [*shades, secondary, lighten(secondary, 0.86), (255, 255, 255), (17, 17, 20)]
    px = np.asarray(img.convert("RGB"), dtype=np.int32).reshape(-1, 1, 3)

    def share_near(colours) -> float:
        distance = np.abs(px - np.array(colours, dtype=np.int32)[None, :, :]).sum(axis=2).min(axis=1)
        return float((distance < 40).mean())

    assert share_near(family) > 0.92  # all but anti-aliased edges is the palette
    if template in ("offer", "hiring", "event"):
        assert share_near(shades) > 0.3  # the brand's main colour leads
    else:
        assert share_near(shades) > 0.002  # a plain card still carries it (a rule, a mark)


# --------------------------------------------------------------------------- alt text


BRIEF = (
    "Crumb Co bakery opens on Rue Verte this Saturday 14 June. Our croissants, baguettes and "
    "a wood-fired oven wait for you; the first hundred guests get a free espresso."
)


def test_alt_text_quotes_what_is_drawn_and_names_no_brief_noun_the_image_does_not_show():
    design = PostDesign(
        spec=spec_from_text(prompt=BRIEF, hook="Big news: Crumb Co opens its doors!", facts=[], brand=BRAND),
        platform="instagram",
        logo=LOGO,
    )
    result = ENGINE.image(
        ImageRequest(prompt=BRIEF, width=540, height=675, style="illustration", brand=BRAND, design=design)
    )
    alt = result.alt_text
    # the picture's hero is the brief's own words (not the caption's hook), quoted as drawn
    hero = result.design["message"]["hero"]
    assert f'Text: "{hero}".' in alt
    assert "The Crumb Co logo in the top corner." in alt
    quoted = re.findall(r'"([^"]+)"', alt)
    drawn = {w.lower() for q in quoted for w in re.findall(r"\w+", q)}
    for q in quoted:
        assert q.casefold() in BRIEF.casefold() or q in ("NOW OPEN", "Now open"), q
    for noun in ("baguettes", "oven", "guests"):  # in the brief, not drawn
        assert noun.lower() not in alt.lower() or noun.lower() in drawn
    brief_words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", BRIEF)}
    allowed = drawn | {
        "brand",
        "colours",
        "abstract",
        "shapes",
        "text",
        "logo",
        "corner",
        "background",
        "icon",
    }
    assert {w.lower() for w in re.findall(r"[A-Za-z]{4,}", alt)} & brief_words <= allowed
    assert result.notes == ()  # illustration is drawn as asked


def test_photorealistic_is_not_faked_and_the_note_says_what_was_drawn():
    design = PostDesign(
        spec=spec_from_text(prompt="Spring sale code SPRING20", hook="Spring sale!", facts=[], brand=BRAND)
    )
    result = ENGINE.image(
        ImageRequest(
            prompt="Spring sale code SPRING20",
            width=432,
            height=540,
            style="photorealistic",
            brand=BRAND,
            design=design,
        )
    )
    assert result.notes == (
        'style "photorealistic" needs an image model: the local engine drew a designed offer graphic instead '
        "(set GENERATION_ENGINE to openai, gemini or replicate for photographs)",
    )
    plain_request = ImageRequest(prompt="a dog", width=64, height=64, style="photorealistic", brand=BRAND)
    abstract = ENGINE.image(plain_request)
    assert (
        abstract.alt_text == "Abstract composition of geometric shapes in brown and peach."
        or abstract.alt_text.startswith("Abstract composition")
    )
    assert "dog" not in abstract.alt_text and "an abstract composition of shapes" in abstract.notes[0]


def test_the_brief_is_read_for_the_layout_code_and_date():
    assert detect_template("We are recalling batch 12 of our granola") == "notice"
    assert detect_template("We're hiring a barista in Porto") == "hiring"
    assert detect_template("Spring sale: 20% off") == "offer"
    assert detect_template("Join our yoga workshop") == "event"
    assert detect_template("Introducing Ledgerly 3.0") == "product"
    assert detect_template("Our focaccia recipe") == "recipe"
    assert detect_template("A tip for better sleep") == "quote"
    assert find_code("use code spring20 at checkout") == "SPRING20"
    assert find_date("Doors open Saturday 14 June at 8am") == {
        "day": "14",
        "month": "JUN",
        "weekday": "SAT",
        "time": "8am",
    }
    assert find_date("le 3 mars") == {"day": "3", "month": "MAR", "weekday": "", "time": ""}


# --------------------------------------------------------------------------- provider prompts


def test_the_image_prompt_describes_a_picture_without_urls_codes_prices_or_banned_words():
    brand = BrandVoice(name="Crumb Co", primary_color="#7A3E2B", secondary_color="#F2C572", dont=("cheap",))
    brief = (
        "Write a friendly post announcing our spring sale on sourdough loaves: 20% off with code SPRING20, "
        "only $4.99 at https://crumb.example/shop. Cheap and cheerful bread for everyone."
    )
    description = visual_description(ImageRequest(prompt=brief, width=1080, height=1920, brand=brand))
    for gone in ("http", "crumb.example", "SPRING20", "$", "4.99", "20%", "cheap", "Cheap", "Write", "#"):
        assert gone not in description.replace("#7A3E2B", "").replace("#F2C572", ""), gone
    assert description.startswith("A picture showing our spring sale on sourdough loaves.")
    assert "Vertical composition" in description and "No text, letters, numbers" in description
    assert "brown" in description and "#7A3E2B" in description
    assert alt_from_prompt(description).startswith(
        "AI-generated image made to show our spring sale on sourdough loaves, "
    )


# --------------------------------------------------------------------------- layers


def test_layer_edits_are_read_from_words_and_the_rest_left_for_pixels():
    changes, rest = parse_layer_edits(
        'headline "Doors open at 8", primary colour #0B6E4F, layout quote, brighter'
    )
    assert changes == {"headline": "Doors open at 8", "colours": {"primary": "#0B6E4F"}, "template": "quote"}
    assert rest == "brighter"
    assert parse_layer_edits("remove the subline; background gradient") == (
        {"sub": "", "background": "gradient"},
        "",
    )


# --------------------------------------------------------------------------- video


def _probe(path: str) -> dict:
    assert FFMPEG, "ffmpeg is missing: `make media-tools` installs Debian's ffmpeg"
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def _frame(path: str, *, last: bool) -> Image.Image:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "f.png"
        args = [
            "ffmpeg",
            "-v",
            "error",
            *(["-sseof", "-0.1"] if last else []),
            "-i",
            path,
            "-frames:v",
            "1",
            str(out),
        ]
        subprocess.run(args, check=True, timeout=60)
        return Image.open(out).convert("RGB")


@pytest.mark.parametrize("music", [True, False])
def test_the_designed_video_is_h264_at_30_fps_with_music_or_silent_and_reads_first_and_last(tmp_path, music):
    spec = spec_from_text(
        prompt="x",
        hook="Fresh sourdough every morning",
        facts=["Our bakery opens on Saturday at eight."],
        cta="Come and taste it",
        brand=BRAND,
    )
    design = PostDesign(spec=spec, platform="tiktok", post_type="short", logo=LOGO, music=music)
    seen: list[float] = []
    with listening(seen.append, every=0):
        result = ENGINE.video(
            VideoRequest(
                prompt="x",
                width=540,
                height=960,
                seconds=5.0,
                style="illustration",
                brand=BRAND,
                design=design,
            )
        )
    assert seen[-1] == 1.0 and len(seen) > 10 and seen == sorted(seen)  # progress through the frames
    path = str(tmp_path / "v.mp4")
    Path(path).write_bytes(result.data)
    info = _probe(path)
    video = next(s for s in info["streams"] if s["codec_type"] == "video")
    assert video["codec_name"] == "h264" and video["r_frame_rate"] == "30/1"
    assert (video["width"], video["height"]) == (540, 960)
    assert abs(float(info["format"]["duration"]) - 5.0) < 0.1 and result.seconds == 5.0
    audio = [s for s in info["streams"] if s["codec_type"] == "audio"]
    assert bool(audio) is music and result.has_audio is music
    if music:
        report = subprocess.run(
            ["ffmpeg", "-nostats", "-i", path, "-map", "0:a", "-filter:a", "ebur128", "-f", "null", "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        integrated = float(re.findall(r"I:\s+(-?[\d.]+) LUFS", report)[-1])
        assert -17.5 <= integrated <= -14.5
    first_line = (
        compose(spec, 540, 960, platform="tiktok", post_type="short", logo=LOGO, brand=BRAND)
        .blocks[0]
        .set.lines[0]
    )
    assert (
        _read_back(_frame(path, last=False), first_line) == 1.0
    )  # the headline's first line is on the first frame
    assert (
        _read_back(_frame(path, last=True), "Come and taste it") >= 0.75
    )  # the closing card's call to action


def test_the_music_bed_is_normalised_to_minus_16_lufs_and_peaks_under_minus_1_5_dbfs():
    samples = synthesise(6.0, tone="professional", seed=3)
    assert len(samples) == 6 * RATE
    assert abs(loudness(samples, 1) - (-16.0)) < 0.2
    assert float(np.abs(samples).max()) <= 10 ** (-1.5 / 20) + 1e-6


@pytest.mark.parametrize("variant", ["panel", "light", "type"])
@pytest.mark.parametrize(
    "primary,secondary", [("#4A2C1A", "#F4E1C1"), ("#1B2A4A", "#7FD1C7"), ("#FFD166", "#2D6A4F")]
)
def test_the_wordmark_reads_on_the_ground_its_layout_paints(variant, primary, secondary):
    # a brand without a logo shows its name in the top corner: measured on the drawn picture
    # (the light layout paints its cream ground after the name was set: it was cream on cream)
    brand = BrandVoice(name="Crumb Co", primary_color=primary, secondary_color=secondary)
    spec = spec_from_text(
        prompt="Spring sale at Crumb Co: 20% off every sourdough loaf with code SPRING20 until Sunday.",
        hook="",
        facts=[],
        brand=brand,
    )
    design = compose({**spec, "variant": variant}, 1080, 1350, platform="instagram", seed=1, brand=brand)
    [mark] = [b for b in design.blocks if b.role == "brand"]
    drawn = np.asarray(design.draw().convert("RGB"), dtype=int)
    ground = np.asarray(design.ground().convert("RGB"), dtype=int)
    left, top, right, bottom = mark.set.box
    ink = drawn[top:bottom, left:right][
        np.abs(drawn[top:bottom, left:right] - ground[top:bottom, left:right]).sum(axis=2) > 60
    ]
    assert len(ink) > 50, "the name is drawn"
    behind = ground[top:bottom, left:right].reshape(-1, 3)
    lum_ink = tuple(int(v) for v in np.median(ink, axis=0))
    lum_ground = tuple(int(v) for v in np.median(behind, axis=0))
    assert contrast(lum_ink, lum_ground) >= AA, (variant, lum_ink, lum_ground)
