"""Designed posts: what a small brand's designer makes every day, drawn with Pillow.

A ``spec`` (plain JSON, kept with the image so that its layers can be edited later) names the
template, the texts to set (the post's own hook and fact sentences, never invented), the brand's
colours and the background; ``compose`` lays it out for one size and platform (the platform's
safe zone, measured type, contrast checked on the pixels behind each block) and returns a
``Design`` whose layers the image and the video both draw.

Templates: ``announcement``, ``offer`` (the code in a badge), ``event`` (a date block),
``quote`` (a tip or quote card), ``product`` (a framed picture), ``hiring``, ``recipe`` (numbered
steps), ``notice`` (recalls and apologies: plain, no decoration) and ``closing`` (the video's
last frame: logo, brand and call to action).
"""

from __future__ import annotations

import dataclasses
import io
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageOps

from ..base import BrandVoice, EngineError
from .contrast import GRAPHIC, extremes, luminance, mark_contrast
from .palette import RGB, darken, lighten, parse_hex
from .scene import build_scene, render_scene
from .typeset import (
    AA,
    FontChoice,
    SetText,
    contrast,
    draw_set,
    fit_text,
    font_for,
    plain,
    text_colour,
)

#: margins kept free of text, as shares of (width, height): left, top, right, bottom. Short-video
#: feeds lay their caption and buttons over the bottom and the right; Stories their bar and reply
#: box over the top and the bottom (the platforms' own creator guides, rounded up).
_FEED = (0.07, 0.07, 0.07, 0.07)
_STORY = (0.07, 0.14, 0.07, 0.20)
_REEL = (0.07, 0.12, 0.17, 0.28)
_SHORT = (0.07, 0.10, 0.17, 0.25)
_TIKTOK = (0.07, 0.09, 0.17, 0.26)


def safe_margins(platform: str, post_type: str) -> tuple[float, float, float, float]:
    """Left, top, right and bottom margins as shares: the platform's own safe zone
    (``apps.platforms.safe_zones``, what the previews draw as covered) for full-screen vertical
    posts, never closer to an edge than the feed's margin; the feed's margin elsewhere."""
    from apps.platforms.safe_zones import safe_zone

    platform, post_type = (platform or "").lower(), (post_type or "feed").lower()
    zone = safe_zone(platform, post_type)
    if zone is not None:
        return (
            max(_FEED[0], zone.left / 100),
            max(0.05, zone.top / 100 + 0.02),
            max(_FEED[2], zone.right / 100),
            max(0.05, zone.bottom / 100 + 0.02),
        )
    if platform == "tiktok":
        return _TIKTOK
    if post_type == "story":
        return _STORY
    if post_type == "reel":
        return _REEL
    if post_type == "short":
        return _SHORT
    return _FEED


def safe_box(width: int, height: int, platform: str, post_type: str) -> tuple[int, int, int, int]:
    left, top, right, bottom = safe_margins(platform, post_type)
    return (
        round(width * left),
        round(height * top),
        round(width * (1 - right)),
        round(height * (1 - bottom)),
    )


# --------------------------------------------------------------------------- composing


@dataclass
class Block:
    role: str  # headline, sub, badge, date, step, cta, brand, counter
    set: SetText
    colour: RGB
    behind: tuple[RGB, RGB]  # darkest and lightest colour measured behind the block
    contrast: float
    #: the rounded plate a chip or a pill sits on (box, radius, fill), drawn with its text so a
    #: video never shows an empty chip
    plate: tuple[tuple[int, int, int, int], int, RGB] | None = None


#: the order a video reveals blocks in: the hero first (the first frame is the thumbnail)
REVEAL = {"headline": 0, "big": 1, "kicker": 2, "sub": 3, "chip": 4, "cta": 5}


@dataclass
class Design:
    spec: dict[str, Any]
    width: int
    height: int
    safe: tuple[int, int, int, int]
    base: Image.Image  # background, decoration and panels: everything but text and logo
    blocks: list[Block] = field(default_factory=list)
    logo: tuple[Image.Image, tuple[int, int]] | None = None  # RGBA logo and its top-left
    logo_box: tuple[int, int, int, int] | None = None
    background: str = ""  # what the background shows, in words
    panels: list[str] = field(default_factory=list)  # panel colours, in words (for the alt text)
    dropped: list[str] = field(default_factory=list)  # blocks that fit nowhere (not drawn)
    font: str = ""
    framed: str = ""  # what the framed picture shows, in words ("" without a frame)
    variant: str = ""  # the layout drawn (``poster.VARIANTS``), "" for the older templates
    logo_contrast: float = 0.0  # the logo's measured contrast on what is behind it

    def draw(self, *, lines: int | None = None, logo: bool = True) -> Image.Image:
        """The picture; ``lines`` draws only that many text lines (the video's reveal)."""
        img = self.base.copy()
        if logo and self.logo is not None:
            img.paste(self.logo[0], self.logo[1], self.logo[0])
        draw = ImageDraw.Draw(img)
        left = lines
        order = sorted(self.blocks, key=lambda b: REVEAL.get(b.role, 3)) if lines is not None else self.blocks
        for block in order:
            if left is not None and left <= 0:
                break
            if block.plate is not None:
                box, radius, fill = block.plate
                draw.rounded_rectangle(box, radius=radius, fill=fill)
            shown = block.set
            if left is not None and left < len(block.set.lines):
                shown = dataclasses.replace(
                    shown,
                    lines=shown.lines[:left],
                    line_boxes=shown.line_boxes[:left],
                    origins=shown.origins[:left],
                )
            draw_set(draw, shown, block.colour)
            if left is not None:
                left -= len(shown.lines)
        return img

    def ground(self) -> Image.Image:
        """The picture without its text and logo: the base with the chips' plates."""
        img = self.base.copy()
        draw = ImageDraw.Draw(img)
        for block in self.blocks:
            if block.plate is not None:
                draw.rounded_rectangle(block.plate[0], radius=block.plate[1], fill=block.plate[2])
        return img

    @property
    def line_count(self) -> int:
        return sum(len(b.set.lines) for b in self.blocks)


_extremes = extremes


class _Composer:
    def __init__(self, spec: dict[str, Any], width: int, height: int, platform: str, post_type: str):
        self.spec = spec
        self.w, self.h = width, height
        self.m = min(width, height)
        self.wide = width / height > 1.2
        self.safe = safe_box(width, height, platform, post_type)
        colours = spec.get("colours") or {}
        self.primary = parse_hex(colours.get("primary", ""), (30, 102, 245))
        self.secondary = parse_hex(colours.get("secondary", ""), (245, 169, 127))
        self.dark = darken(self.primary, 0.55)
        self.light = lighten(self.secondary, 0.86)
        self.blocks: list[Block] = []
        self.panels: list[str] = []
        self.dropped: list[str] = []
        self.fonts: list[str] = []
        self.photo: Image.Image | None = None
        self.seed = 0
        self.style = "illustration"
        self.brand = BrandVoice()
        self.framed = ""
        self.abstract_visual = False  # a poster's picture is the abstract composition

    # ----------------------------------------------------------------- type

    def font(self, text: str, bold: bool = True) -> FontChoice | None:
        return font_for(plain(text), bold=bold, brand_fonts=tuple(self.spec.get("fonts") or ()))

    def text(
        self,
        img: Image.Image,
        role: str,
        text: str,
        area: tuple[int, int, int, int],
        *,
        size: float,
        floor: float,
        preferred: list[RGB],
        align: str = "left",
        valign: str = "top",
        max_lines: int = 6,
        bold: bool = True,
        panel: RGB | None = None,
        pad: int | None = None,
    ) -> SetText | None:
        """Set ``text`` in ``area`` and pick its colour by the pixels behind it; when no colour is
        AA on them, a panel is painted behind it first."""
        if not plain(text):
            return None
        font = self.font(text, bold)
        if font is None:
            self.dropped.append(role)
            return None
        block = fit_text(
            text,
            font,
            area,
            max_size=max(8, round(self.m * size)),
            min_size=max(8, round(self.m * floor)),
            max_lines=max_lines,
            align=align,
            valign=valign,
            balance=role in ("headline", "cta"),
        )
        if block is None:
            self.dropped.append(role)
            return None
        self.fonts.append(font.name)
        pad = max(2, round(block.size * 0.12)) if pad is None else pad
        box = (block.box[0] - pad, block.box[1] - pad, block.box[2] + pad, block.box[3] + pad)
        behind = _extremes(img, box)
        colour = text_colour(list(behind), preferred)
        if min(contrast(colour, behind[0]), contrast(colour, behind[1])) < AA:
            panel = panel or (self.dark if colour == (255, 255, 255) else (255, 255, 255))
            big = max(pad, round(block.size * 0.45))
            ImageDraw.Draw(img).rounded_rectangle(
                (block.box[0] - big, block.box[1] - big, block.box[2] + big, block.box[3] + big),
                radius=big,
                fill=panel,
            )
            self.panels.append(role)
            behind = _extremes(img, box)
            colour = text_colour(list(behind), preferred)
        ratio = min(contrast(colour, behind[0]), contrast(colour, behind[1]))
        self.blocks.append(Block(role, block, colour, behind, ratio))
        return block

    # ----------------------------------------------------------------- backgrounds

    def abstract(self, size: tuple[int, int], seed: int, style: str, brand: BrandVoice) -> Image.Image:
        """The abstract composition as a background, in the brand's palette only (the prompt's
        accent hues would clash with it)."""
        scene = build_scene(self.spec.get("prompt", ""), brand, seed)
        palette = [
            self.secondary,
            lighten(self.primary, 0.35),
            lighten(self.secondary, 0.45),
            darken(self.secondary, 0.25),
            lighten(self.primary, 0.6),
            (255, 255, 255),
        ]
        scene.shapes = [
            dataclasses.replace(sh, colour=palette[n % len(palette)]) for n, sh in enumerate(scene.shapes)
        ]
        scene.accent = self.secondary
        return render_scene(scene, size[0], size[1], style, seed, grain=False)


def _cover(photo: Image.Image, size: tuple[int, int]) -> Image.Image:
    return ImageOps.fit(photo.convert("RGB"), size, Image.Resampling.BILINEAR)


def _logo_image(data: bytes | None, height: int, max_width: int) -> Image.Image | None:
    if not data:
        return None
    try:
        opened = Image.open(io.BytesIO(data))
        opened.load()
    except Exception as exc:  # Pillow raises several types for bad data
        raise EngineError(f"the brand's logo could not be read: {exc}") from exc
    logo = opened.convert("RGBA")
    bbox = logo.getchannel("A").getbbox()
    if bbox:
        logo = logo.crop(bbox)
    scale = min(height / logo.height, max_width / logo.width)
    return logo.resize(
        (max(1, round(logo.width * scale)), max(1, round(logo.height * scale))), Image.Resampling.LANCZOS
    )


def _lay_out(
    c: _Composer,
    img: Image.Image,
    design: Design,
    spec: dict[str, Any],
    content: tuple[int, int, int, int],
    *,
    slide: int,
    slides: int,
) -> None:
    """The layout of ``spec``: a poster (a spec with a message: the cover, then the steps or the
    facts on the carousel's next slides), else the older template."""
    from .layouts import LAYOUTS, announcement, carousel_slide

    template = spec.get("template") or "announcement"
    seed = c.seed
    message = spec.get("message")
    if message and template != "closing":
        from .poster import poster, steps_slide, variant_for

        variant = str(spec.get("variant") or variant_for(seed, message.get("intent", "")))
        design.variant = variant
        steps = list(message.get("steps") or [])
        if slides > 1 and slide > 0 and steps:
            # every step on a slide, numbered once: the steps shared over the slides after the cover
            per = -(-len(steps) // (slides - 1))
            mine = [(n + 1, s) for n, s in enumerate(steps)][(slide - 1) * per : slide * per]
            if mine:
                steps_slide(c, img, spec, content, mine)
            else:
                poster(c, img, {**spec, "message": {**message, "steps": []}}, content, variant)
        elif slides > 1 and slide > 0:
            carousel_slide(c, img, spec, content, slide, slides)
        else:
            poster(c, img, spec, content, variant)
    elif slides > 1 and template != "closing":
        carousel_slide(c, img, spec, content, slide, slides)
    else:
        LAYOUTS.get(template, announcement)(c, img, spec, content)


def compose(
    spec: dict[str, Any],
    width: int,
    height: int,
    *,
    platform: str = "",
    post_type: str = "feed",
    style: str = "illustration",
    seed: int = 0,
    logo: bytes | None = None,
    photo: bytes | None = None,
    brand: BrandVoice | None = None,
    slide: int = 0,
    slides: int = 1,
) -> Design:
    """Lay ``spec`` out at ``width`` x ``height`` for ``platform``'s ``post_type``."""
    brand = brand or BrandVoice(
        name=spec.get("brandName", ""),
        primary_color=(spec.get("colours") or {}).get("primary", "#1E66F5"),
        secondary_color=(spec.get("colours") or {}).get("secondary", "#F5A97F"),
    )
    c = _Composer(spec, width, height, platform, post_type)
    template = spec.get("template") or "announcement"
    photo_img = None
    if photo:
        try:
            photo_img = Image.open(io.BytesIO(photo))
            photo_img.load()
        except Exception as exc:
            raise EngineError(f"the brand's image could not be read: {exc}") from exc
    c.photo, c.seed, c.style, c.brand = photo_img, seed, style, brand
    background = spec.get("background") or "auto"
    if background == "photo" and photo_img is None:
        background = "auto"
    if spec.get("message") and template != "closing":
        # a poster paints its own grounds; the abstract shapes only when asked for by name, as
        # its picture
        c.abstract_visual = background == "abstract"
        background = "solid"

    sl, st, sr, sb = c.safe
    # The logo (or the brand's name as a wordmark) in the top corner, with clear space under it.
    logo_h = round(c.m * 0.085)
    logo_img = _logo_image(logo, logo_h, round(width * 0.3))
    rtl = bool(re.search(r"[\u0590-\u08ff]", spec.get("headline", "")))
    top = st
    img, bg_words = _background(
        c, template, background=background, photo=photo_img, style=style, seed=seed, brand=brand
    )
    design = Design(spec=spec, width=width, height=height, safe=c.safe, base=img)
    if logo_img is not None:
        x = sr - logo_img.width if rtl else sl
        pos = (x, st)
        design.logo = (logo_img, pos)
        design.logo_box = (x, st, x + logo_img.width, st + logo_img.height)
        top = st + logo_img.height + round(logo_h * 0.6)
    elif spec.get("brandName"):
        area = (sl, st, sr, st + round(c.m * 0.06))
        if c.text(
            img,
            "brand",
            spec["brandName"],
            area,
            size=0.04,
            floor=0.022,
            preferred=[],
            max_lines=1,
            align="right" if rtl else "left",
        ):
            top = c.blocks[-1].set.box[3] + round(c.m * 0.04)

    content = (sl, top, sr, sb)

    _lay_out(c, img, design, spec, content, slide=slide, slides=slides)
    if logo_img is not None and design.logo is not None:
        design.logo, design.logo_contrast = _visible_logo(img, logo_img, design.logo[1], c, logo_h)
        if design.logo[0] is not logo_img:
            c.panels.append("logo")
    design.base = img
    design.blocks = c.blocks
    design.background = bg_words
    design.panels = c.panels
    design.dropped = c.dropped
    design.font = c.fonts[0] if c.fonts else ""
    design.framed = c.framed
    return design


_luminance = luminance


def _one_colour(logo: Image.Image, colour: RGB) -> Image.Image:
    flat = Image.new("RGBA", logo.size, (*colour, 255))
    flat.putalpha(logo.getchannel("A"))
    return flat


def _visible_logo(
    img: Image.Image, logo: Image.Image, pos: tuple[int, int], c: _Composer, logo_h: int
) -> tuple[tuple[Image.Image, tuple[int, int]], float]:
    """The logo as it stays legible on the finished background (measured, WCAG 1.4.11: 3:1):
    as it is; else on a chip in the brand's light colour (its dark one for a light logo); else
    in one colour (white or ink, whichever contrasts more). With its measured contrast."""
    ratio = mark_contrast(img, logo, pos)
    if ratio >= GRAPHIC:
        return (logo, pos), ratio
    pad = round(logo_h * 0.25)
    ink = float(np.median(luminance(np.asarray(logo)[..., :3][np.asarray(logo)[..., 3] > 128])))
    for chip in (c.light, (255, 255, 255)) if ink < 0.4 else (c.dark, (17, 17, 20)):
        layer = Image.new("RGBA", (logo.width + 2 * pad, logo.height + 2 * pad), (0, 0, 0, 0))
        ImageDraw.Draw(layer).rounded_rectangle(
            (0, 0, layer.width - 1, layer.height - 1), radius=pad, fill=chip
        )
        plate = Image.new("RGB", layer.size, chip)
        got = mark_contrast(plate, logo, (pad, pad))
        if got >= GRAPHIC:
            layer.paste(logo, (pad, pad), logo)
            return (layer, (pos[0] - pad, pos[1] - pad)), got
    best = max(
        ((255, 255, 255), (17, 17, 20)), key=lambda col: mark_contrast(img, _one_colour(logo, col), pos)
    )
    flat = _one_colour(logo, best)
    return (flat, pos), mark_contrast(img, flat, pos)


def _logo_chip(img: Image.Image, logo: Image.Image, pos: tuple[int, int]) -> RGB | None:
    """A chip colour to set the logo on when a third or more of it would melt into what is
    behind it (contrast under 1.5:1), else None (the logo sits on the picture as it is)."""
    arr = np.asarray(logo)
    opaque = arr[..., 3] > 128
    if not opaque.any():
        return None
    under = np.asarray(img.crop((pos[0], pos[1], pos[0] + logo.width, pos[1] + logo.height)).convert("RGB"))
    lum_logo, lum_under = _luminance(arr[..., :3])[opaque], _luminance(under)[opaque]
    ratio = (np.maximum(lum_logo, lum_under) + 0.05) / (np.minimum(lum_logo, lum_under) + 0.05)
    if (ratio < 1.5).mean() < 0.2:
        return None
    mean = float(lum_logo.mean())
    return (255, 255, 255) if mean < 0.4 else (17, 17, 20)


def _background(
    c: _Composer,
    template: str,
    *,
    background: str,
    photo: Image.Image | None,
    style: str,
    seed: int,
    brand: BrandVoice,
) -> tuple[Image.Image, str]:
    size = (c.w, c.h)
    if background == "auto":
        background = {
            "announcement": "photo" if photo else "abstract",
            "hiring": "solid",
            "event": "gradient",
            "product": "solid",
            "recipe": "solid",
            "quote": "solid",
            "offer": "solid",
            "notice": "solid",
            "closing": "solid",
        }.get(template, "abstract")
    if background == "photo" and photo is not None:
        return _cover(photo, size), "a photo from the brand's library"
    if background == "abstract":
        return c.abstract(size, seed, style, brand), "abstract shapes in the brand's colours"
    if background == "gradient":
        ramp = Image.linear_gradient("L").resize(size, Image.Resampling.BILINEAR)
        grad = Image.composite(
            Image.new("RGB", size, darken(c.primary, 0.45)), Image.new("RGB", size, c.primary), ramp
        )
        return grad, "a gradient of the brand's main colour"
    colour = {
        "notice": (255, 255, 255),
        "quote": c.light,
        "recipe": c.light,
        "product": c.light,
        "offer": c.primary,
        "closing": c.primary,
    }.get(template, c.primary)
    return Image.new("RGB", size, colour), "a plain background"
