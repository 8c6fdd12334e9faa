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

import io
import re
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from ..base import BrandVoice, EngineError
from .composer import Composer, Design, cover
from .contrast import GRAPHIC, luminance, mark_contrast
from .palette import RGB, darken


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
    c: Composer,
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
    c = Composer(spec, width, height, platform, post_type)
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
    c.recolour(img, "brand")  # the wordmark against the grounds the layout painted
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
    img: Image.Image, logo: Image.Image, pos: tuple[int, int], c: Composer, logo_h: int
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
    c: Composer,
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
        return cover(photo, size), "a photo from the brand's library"
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
