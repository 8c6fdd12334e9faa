"""Laying out one designed picture: the safe area of its platform, the blocks of text set on it
with the colours measured behind them (``Block``), the finished layers (``Design``) and the
composer the layouts draw with (``Composer``). Below ``design`` (which picks the layout and adds
the logo) and the layouts (``layouts``, ``poster``), which all use it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw, ImageOps

from ..base import BrandVoice
from .contrast import extremes
from .palette import RGB, darken, lighten, parse_hex
from .scene import build_scene, render_scene
from .typeset import AA, FontChoice, SetText, contrast, draw_set, fit_text, font_for, plain, text_colour

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


class Composer:
    """One picture being laid out: its size, safe area, brand colours and the blocks set so far
    (each with the colours measured behind it); the layouts (``layouts``, ``poster``) draw on it."""

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
        behind = extremes(img, box)
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
            behind = extremes(img, box)
            colour = text_colour(list(behind), preferred)
        ratio = min(contrast(colour, behind[0]), contrast(colour, behind[1]))
        self.blocks.append(Block(role, block, colour, behind, ratio))
        return block

    def recolour(self, img: Image.Image, role: str) -> None:
        """Pick the colour of ``role``'s blocks again by the pixels now behind them: a block set
        before the layout painted its grounds (the wordmark, set over the first background, then
        a light poster painted under it) kept a colour measured on pixels no longer there."""
        for i, block in enumerate(self.blocks):
            if block.role != role or block.plate is not None:
                continue
            pad = max(2, round(block.set.size * 0.12))
            box = block.set.box
            behind = extremes(img, (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad))
            colour = text_colour(list(behind), [])
            ratio = min(contrast(colour, behind[0]), contrast(colour, behind[1]))
            self.blocks[i] = dataclasses.replace(block, colour=colour, behind=behind, contrast=ratio)

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


def cover(photo: Image.Image, size: tuple[int, int]) -> Image.Image:
    return ImageOps.fit(photo.convert("RGB"), size, Image.Resampling.BILINEAR)
