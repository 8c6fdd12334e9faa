"""Pillow and PyAV media for the local engine: images, image edits and videos.

Everything here runs on the CPU without network access. A prompt is turned into a
``Scene`` (palette, background and a list of shapes) by hashing its words, so the same
prompt and seed always give the same picture and two different prompts give clearly
different pictures. Scenes are drawn at a reduced resolution and upscaled where the style
allows it (soft "photorealistic" renders), or drawn flat at full size ("illustration").

Videos are encoded with libx264 through PyAV. Frames are not drawn one by one: a canvas
larger than the frame is rendered once, converted to Y, Cb and Cr planes, and each frame is
a moving crop of those planes with a few pre-rendered sprites pasted on top, which keeps a
6 s 1080x1920 video within a few seconds on two cores.
"""

from __future__ import annotations

import colorsys
import hashlib
import io
import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageEnhance, ImageFilter, ImageFont, ImageOps

from .base import BrandVoice, EngineError

RGB = tuple[int, int, int]

MAX_PIXELS = 4096 * 4096
SHAPE_KINDS = ("circle", "square", "triangle", "ring", "blob", "stripe", "arc", "diamond")
LAYOUTS = ("scattered", "centered", "diagonal", "grid", "horizon")
STYLES = ("photorealistic", "illustration")
VIDEO_MIN_SECONDS = 5.0
VIDEO_MAX_SECONDS = 8.0

# Colour words in the prompt become palette accents ("a red bike" gets a red accent).
COLOUR_WORDS: dict[str, RGB] = {
    "red": (214, 48, 49),
    "rojo": (214, 48, 49),
    "roja": (214, 48, 49),
    "rouge": (214, 48, 49),
    "rot": (214, 48, 49),
    "vermelho": (214, 48, 49),
    "orange": (240, 130, 40),
    "naranja": (240, 130, 40),
    "laranja": (240, 130, 40),
    "yellow": (246, 201, 46),
    "amarillo": (246, 201, 46),
    "jaune": (246, 201, 46),
    "gelb": (246, 201, 46),
    "amarelo": (246, 201, 46),
    "gold": (212, 175, 55),
    "green": (46, 160, 90),
    "verde": (46, 160, 90),
    "vert": (46, 160, 90),
    "grün": (46, 160, 90),
    "blue": (40, 100, 220),
    "azul": (40, 100, 220),
    "bleu": (40, 100, 220),
    "blau": (40, 100, 220),
    "purple": (130, 70, 190),
    "violet": (130, 70, 190),
    "lila": (130, 70, 190),
    "roxo": (130, 70, 190),
    "pink": (236, 110, 170),
    "rosa": (236, 110, 170),
    "rose": (236, 110, 170),
    "teal": (30, 150, 150),
    "turquoise": (40, 190, 190),
    "brown": (130, 85, 50),
    "marrón": (130, 85, 50),
    "braun": (130, 85, 50),
    "marron": (130, 85, 50),
    "black": (25, 25, 30),
    "negro": (25, 25, 30),
    "noir": (25, 25, 30),
    "schwarz": (25, 25, 30),
    "preto": (25, 25, 30),
    "white": (240, 240, 236),
    "blanco": (240, 240, 236),
    "blanc": (240, 240, 236),
    "weiß": (240, 240, 236),
    "branco": (240, 240, 236),
    "sunset": (250, 120, 70),
    "ocean": (20, 110, 170),
    "sea": (20, 110, 170),
    "forest": (34, 110, 60),
    "coffee": (111, 78, 55),
    "café": (111, 78, 55),
    "kaffee": (111, 78, 55),
    "sky": (120, 180, 235),
    "snow": (235, 240, 248),
    "night": (20, 24, 60),
    "fire": (230, 80, 30),
    "sand": (220, 196, 150),
}


# --------------------------------------------------------------------------- colours


def parse_hex(value: str, default: RGB) -> RGB:
    """'#RRGGBB' (or 'RRGGBB', '#RGB') to an RGB tuple; ``default`` when unparsable."""
    text = (value or "").strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    if len(text) != 6 or not re.fullmatch(r"[0-9a-fA-F]{6}", text):
        return default
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(int(round(a[i] + (b[i] - a[i]) * t)) for i in range(3))  # type: ignore[return-value]


def lighten(c: RGB, t: float) -> RGB:
    return mix(c, (255, 255, 255), t)


def darken(c: RGB, t: float) -> RGB:
    return mix(c, (0, 0, 0), t)


def luminance(c: RGB) -> float:
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def hue_colour(hue: float, sat: float, val: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(hue % 1.0, sat, val)
    return (int(r * 255), int(g * 255), int(b * 255))


def dominant_colours(image: Image.Image, count: int = 6) -> list[tuple[RGB, float]]:
    """The image's main colours with their share of the picture, most common first."""
    small = image.convert("RGB")
    small.thumbnail((96, 96))
    quant = small.quantize(colors=count, method=Image.Quantize.MEDIANCUT)
    pal: list[int] = list(quant.getpalette() or [])
    counts: list[tuple[int, int]] = sorted(quant.getcolors() or [], reverse=True)  # type: ignore[arg-type]  # a "P" image's colours are palette indexes
    total = sum(n for n, _ in counts) or 1
    out: list[tuple[RGB, float]] = []
    for n, idx in counts:
        out.append(((pal[idx * 3], pal[idx * 3 + 1], pal[idx * 3 + 2]), n / total))
    return out


# --------------------------------------------------------------------------- scenes


@dataclass(frozen=True)
class Shape:
    kind: str
    cx: float  # 0-1 of the width
    cy: float  # 0-1 of the height
    size: float  # radius as a share of the shorter side
    colour: RGB
    rotation: float  # degrees
    depth: float  # 0 near, 1 far (blurred more in photographs)
    jitter: tuple[float, ...]  # per-vertex radius factors for blobs
    motion: tuple[float, float, float, float]  # video: x amp, y amp, phase, frequency


@dataclass
class Scene:
    background: tuple[RGB, RGB]
    ground: RGB
    accent: RGB
    outline: RGB
    layout: str
    angle: float  # background gradient angle, degrees
    light: tuple[float, float]  # light position, 0-1
    shapes: list[Shape]
    pan: tuple[float, float]  # video camera drift direction, unit-ish vector
    reference_layout: Image.Image | None = None  # small RGB image from the reference
    reference_palette: list[tuple[RGB, float]] = field(default_factory=list)


def _digest(*parts: object) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode("utf-8"))
        h.update(b"\x00")
    return h.digest()


def prompt_words(prompt: str) -> list[str]:
    words = [w for w in re.findall(r"[^\W_]+", (prompt or "").lower()) if len(w) > 2]
    seen: set[str] = set()
    out = []
    for w in words:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def load_reference(data: bytes | None) -> Image.Image | None:
    if not data:
        return None
    try:
        ref = Image.open(io.BytesIO(data))
        ref.load()
    except Exception as exc:  # Pillow raises several types for bad data
        raise EngineError(f"the reference image could not be read: {exc}") from exc
    return ref.convert("RGB")


def build_scene(prompt: str, brand: BrandVoice, seed: int = 0, reference: Image.Image | None = None) -> Scene:
    """Derive a deterministic composition from the prompt words, brand colours and seed."""
    primary = parse_hex(brand.primary_color, (30, 102, 245))
    secondary = parse_hex(brand.secondary_color, (245, 169, 127))
    words = prompt_words(prompt) or ["blank"]
    whole = _digest("scene", " ".join(words), seed)

    colour_hits = [COLOUR_WORDS[w] for w in words if w in COLOUR_WORDS]
    accent = colour_hits[0] if colour_hits else hue_colour(whole[0] / 255, 0.55 + whole[1] / 900, 0.85)
    accent2 = colour_hits[1] if len(colour_hits) > 1 else hue_colour(whole[0] / 255 + 0.5, 0.45, 0.95)

    layout = LAYOUTS[whole[2] % len(LAYOUTS)]
    angle = whole[3] * 360 / 256
    light = (0.15 + 0.7 * whole[4] / 255, 0.1 + 0.45 * whole[5] / 255)
    pan_angle = whole[6] * 2 * math.pi / 256
    pan = (math.cos(pan_angle), math.sin(pan_angle))

    ref_palette: list[tuple[RGB, float]] = []
    ref_layout = None
    if reference is not None:
        ref_palette = dominant_colours(reference, 6)
        ref_layout = reference.copy()
        ref_layout.thumbnail((200, 200))
        main = [c for c, _ in ref_palette]
        bg_a = main[0]
        bg_b = main[1] if len(main) > 1 else lighten(main[0], 0.2)
        colours = (main[1:] or [accent]) + [primary, accent]
        ground = main[-1] if len(main) > 2 else darken(bg_a, 0.2)
    else:
        # Mostly brand colours; the prompt decides which one leads and adds accents.
        if whole[7] % 2:
            bg_a, bg_b = lighten(primary, 0.15), darken(primary, 0.35)
        else:
            bg_a, bg_b = lighten(secondary, 0.55), lighten(primary, 0.25)
        colours = [secondary, accent, primary, accent2, lighten(accent, 0.35), darken(secondary, 0.25)]
        ground = mix(darken(primary, 0.3), accent, 0.25)

    outline = darken(mix(bg_a, bg_b, 0.5), 0.75)

    shapes: list[Shape] = []
    sources = list(words)
    if len(sources) < 4:
        sources += [f"{words[0]}#{i}" for i in range(4 - len(sources))]
    sources = sources[:9]
    count = len(sources)
    size_scale = 0.55 if reference is not None else 1.0
    for i, word in enumerate(sources):
        d = _digest("shape", word, seed)
        cx, cy = 0.08 + 0.84 * d[1] / 255, 0.08 + 0.84 * d[2] / 255
        if layout == "centered":
            cx, cy = 0.5 + (cx - 0.5) * 0.45, 0.5 + (cy - 0.5) * 0.45
        elif layout == "diagonal":
            t = (i + 0.5) / count
            cx, cy = 0.12 + 0.76 * t + (cx - 0.5) * 0.15, 0.12 + 0.76 * t + (cy - 0.5) * 0.15
            if whole[8] % 2:
                cx = 1.0 - cx
        elif layout == "grid":
            cx, cy = (1 + (i % 3)) / 4, (1 + (i // 3) % 3) / 4
        elif layout == "horizon":
            cy = 0.35 + 0.5 * d[2] / 255
        size = (0.07 + 0.2 * d[3] / 255) * size_scale
        if i == 0:
            size *= 1.45  # the first subject word leads the picture
        shapes.append(
            Shape(
                kind=SHAPE_KINDS[d[0] % len(SHAPE_KINDS)],
                cx=cx,
                cy=cy,
                size=size,
                colour=colours[d[4] % len(colours)],
                rotation=d[5] * 360 / 256,
                depth=d[6] / 255,
                jitter=tuple(0.7 + 0.6 * d[10 + k] / 255 for k in range(10)),
                motion=(
                    0.04 + 0.1 * d[20] / 255,
                    0.04 + 0.1 * d[21] / 255,
                    d[22] / 255 * 2 * math.pi,
                    1 + d[23] % 2,
                ),
            )
        )
    shapes.sort(key=lambda s: -s.depth)  # far first
    return Scene(
        background=(bg_a, bg_b),
        ground=ground,
        accent=accent,
        outline=outline,
        layout=layout,
        angle=angle,
        light=light,
        shapes=shapes,
        pan=pan,
        reference_layout=ref_layout,
        reference_palette=ref_palette,
    )


# --------------------------------------------------------------------------- drawing


def _shape_points(shape: Shape, w: int, h: int) -> list[tuple[float, float]]:
    cx, cy = shape.cx * w, shape.cy * h
    r = shape.size * min(w, h)
    rot = math.radians(shape.rotation)
    if shape.kind == "square":
        corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
        pts = [(x * r * 0.85, y * r * 0.85) for x, y in corners]
    elif shape.kind == "diamond":
        pts = [(0, -r * 1.2), (r * 0.75, 0), (0, r * 1.2), (-r * 0.75, 0)]
    elif shape.kind == "triangle":
        pts = [(r * math.cos(a), r * math.sin(a)) for a in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6)]
    elif shape.kind == "stripe":
        pts = [(-r * 2.2, -r * 0.22), (r * 2.2, -r * 0.22), (r * 2.2, r * 0.22), (-r * 2.2, r * 0.22)]
    else:  # blob
        n = len(shape.jitter)
        pts = [
            (
                r * shape.jitter[k] * math.cos(2 * math.pi * k / n),
                r * shape.jitter[k] * math.sin(2 * math.pi * k / n),
            )
            for k in range(n)
        ]
    cos_r, sin_r = math.cos(rot), math.sin(rot)
    return [(cx + x * cos_r - y * sin_r, cy + x * sin_r + y * cos_r) for x, y in pts]


def draw_shape(
    draw: ImageDraw.ImageDraw,
    shape: Shape,
    w: int,
    h: int,
    fill,
    outline=None,
    width: int = 0,
    offset: tuple[float, float] = (0, 0),
) -> None:
    cx, cy = shape.cx * w + offset[0], shape.cy * h + offset[1]
    r = shape.size * min(w, h)
    box = (cx - r, cy - r, cx + r, cy + r)
    if shape.kind == "circle":
        draw.ellipse(box, fill=fill, outline=outline, width=width)
    elif shape.kind == "ring":
        ring = max(2, int(r * 0.32))
        if outline is not None and width:
            draw.ellipse(box, outline=outline, width=ring + 2 * width)
            inset = width
            draw.ellipse(
                (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset), outline=fill, width=ring
            )
        else:
            draw.ellipse(box, outline=fill, width=ring)
    elif shape.kind == "arc":
        start = shape.rotation
        thick = max(2, int(r * 0.35))
        if outline is not None and width:
            draw.arc(box, start, start + 200, fill=outline, width=thick + 2 * width)
            draw.arc(
                (box[0] + width, box[1] + width, box[2] - width, box[3] - width),
                start + 2,
                start + 198,
                fill=fill,
                width=thick,
            )
        else:
            draw.arc(box, start, start + 200, fill=fill, width=thick)
    else:
        pts = [(x + offset[0], y + offset[1]) for x, y in _shape_points(shape, w, h)]
        draw.polygon(pts, fill=fill, outline=outline, width=width)


@lru_cache(maxsize=1)
def _radial() -> Image.Image:
    # radial_gradient is 0 at the centre and ~181 at the middle of each edge; stretch it so
    # the spot fades to 0 before the square's border (no visible seam when pasted).
    return Image.radial_gradient("L").point(lambda v: max(0, 255 - int(v * 1.42)))


@lru_cache(maxsize=8)
def _grain_tile(seed: int) -> Image.Image:
    if seed:
        return _grain_tile(0).rotate(90 * seed)
    # Grain a little coarser than one pixel: looks like film and compresses better in PNG.
    return Image.effect_noise((128, 128), 7).resize((256, 256), Image.Resampling.BILINEAR).convert("RGB")


def _gradient(size: tuple[int, int], a: RGB, b: RGB, angle: float) -> Image.Image:
    w, h = size
    # Rotate a square whose inscribed circle holds the whole w x h box, so no empty
    # corner left by the rotation can reach the crop.
    side = int(math.hypot(w, h)) + 4
    grad = Image.linear_gradient("L").resize((side, side), Image.Resampling.BILINEAR)
    grad = grad.rotate(angle, resample=Image.Resampling.BILINEAR, expand=False)
    left, top = (side - w) // 2, (side - h) // 2
    mask = grad.crop((left, top, left + w, top + h))
    return Image.composite(Image.new("RGB", size, b), Image.new("RGB", size, a), mask)


def _glow(size: tuple[int, int], centre: tuple[float, float], radius: float) -> Image.Image:
    """An 'L' mask that is 255 at ``centre`` (0-1) and fades out over ``radius`` (share of width)."""
    w, h = size
    diameter = max(2, int(radius * 2 * max(w, h)))
    spot = _radial().resize((diameter, diameter), Image.Resampling.BILINEAR)
    mask = Image.new("L", size, 0)
    mask.paste(spot, (int(centre[0] * w - diameter / 2), int(centre[1] * h - diameter / 2)))
    return mask


def _reference_background(scene: Scene, size: tuple[int, int], flat: bool) -> Image.Image:
    """The reference's rough composition, recoloured with its own dominant colours."""
    assert scene.reference_layout is not None
    palette_img = Image.new("P", (1, 1))
    flat_pal: list[int] = []
    for colour, _ in scene.reference_palette:
        flat_pal.extend(colour)
    palette_img.putpalette(flat_pal + [0] * (768 - len(flat_pal)))
    if flat:
        # Posterise to the reference's own colours: flat areas with the reference's layout.
        layout = scene.reference_layout.quantize(palette=palette_img, dither=Image.Dither.NONE).convert("RGB")
        return layout.filter(ImageFilter.ModeFilter(5)).resize(size, Image.Resampling.NEAREST)
    # Photographs keep only the rough composition: a very small copy, softly enlarged.
    rough = scene.reference_layout.copy()
    rough.thumbnail((40, 40))
    rough = rough.quantize(palette=palette_img, dither=Image.Dither.NONE).convert("RGB")
    return rough.resize(size, Image.Resampling.BILINEAR).filter(
        ImageFilter.GaussianBlur(max(1, size[0] // 60))
    )


def render_photo(scene: Scene, size: tuple[int, int], shapes: list[Shape] | None = None) -> Image.Image:
    """Soft, lit render: gradient sky, shaded shapes with shadows and depth blur, vignette."""
    w, h = size
    shapes = scene.shapes if shapes is None else shapes
    if scene.reference_layout is not None:
        img = _reference_background(scene, size, flat=False)
    else:
        img = _gradient(size, scene.background[0], scene.background[1], scene.angle)
        if scene.layout == "horizon":
            horizon = Image.new("L", size, 0)
            ImageDraw.Draw(horizon).rectangle((0, int(h * 0.62), w, h), fill=255)
            horizon = horizon.filter(ImageFilter.GaussianBlur(max(1, h // 40)))
            img = Image.composite(_gradient(size, scene.ground, darken(scene.ground, 0.4), 90), img, horizon)
    lx, ly = scene.light
    warm = lighten(mix(scene.accent, (255, 244, 220), 0.7), 0.3)
    img = Image.composite(
        Image.new("RGB", size, warm), img, _glow(size, scene.light, 0.55).point(lambda v: v * 0.45)
    )
    blur_unit = max(w, h) / 260
    shadow_colour = darken(scene.background[1], 0.6)
    for shape in shapes:
        r = shape.size * min(w, h)
        edge = 0.4 * blur_unit + shape.depth * 1.3 * blur_unit
        # Work only inside the shape's box (a stripe reaches 2.2 r from its centre).
        reach = r * 2.95 + blur_unit * 8 + 2
        box = (
            max(0, int(shape.cx * w - reach)),
            max(0, int(shape.cy * h - reach)),
            min(w, int(shape.cx * w + reach) + 1),
            min(h, int(shape.cy * h + reach) + 1),
        )
        if box[2] - box[0] < 2 or box[3] - box[1] < 2:
            continue
        bsize = (box[2] - box[0], box[3] - box[1])
        mask = Image.new("L", bsize, 0)
        draw_shape(ImageDraw.Draw(mask), shape, w, h, 255, offset=(-box[0], -box[1]))
        region = img.crop(box)
        # Contact shadow, thrown away from the light.
        dx, dy = (shape.cx - lx) * r * 0.5, (shape.cy - ly) * r * 0.5 + r * 0.15
        shadow = mask.transform(bsize, Image.Transform.AFFINE, (1, 0, -dx, 0, 1, -dy))
        shadow = shadow.filter(ImageFilter.GaussianBlur(blur_unit * 2.5)).point(lambda v: v * 0.38)
        region = Image.composite(Image.new("RGB", bsize, shadow_colour), region, shadow)
        # Shading: lit side towards the light, dark side away from it.
        toward = math.degrees(math.atan2(ly - shape.cy, lx - shape.cx))
        shade = _gradient(bsize, lighten(shape.colour, 0.35), darken(shape.colour, 0.35), -toward - 90)
        region = Image.composite(shade, region, mask.filter(ImageFilter.GaussianBlur(edge)))
        img.paste(region, box)
    vignette = _glow(size, (0.5, 0.5), 0.95).point(lambda v: int((255 - v) * 0.55))
    img = Image.composite(Image.new("RGB", size, (8, 8, 16)), img, vignette)
    return img


def render_flat(scene: Scene, size: tuple[int, int], shapes: list[Shape] | None = None) -> Image.Image:
    """Flat illustration: solid areas, hard offset shadows and dark outlines, no gradients."""
    w, h = size
    shapes = scene.shapes if shapes is None else shapes
    if scene.reference_layout is not None:
        img = _reference_background(scene, size, flat=True)
    else:
        img = Image.new("RGB", size, scene.background[0])
        d = ImageDraw.Draw(img)
        if scene.layout == "horizon":
            d.rectangle((0, int(h * 0.62), w, h), fill=scene.ground)
        else:
            a = math.radians(scene.angle)
            cx, cy = w / 2, h / 2
            dx, dy = math.cos(a) * w * 2, math.sin(a) * h * 2
            # A big flat band of the second background colour across the picture.
            d.polygon(
                [
                    (cx - dx, cy - dy),
                    (cx + dx, cy + dy),
                    (cx + dx + dy, cy + dy - dx),
                    (cx - dx + dy, cy - dy - dx),
                ],
                fill=scene.background[1],
            )
        sun_r = int(min(w, h) * 0.12)
        sx, sy = int(scene.light[0] * w), int(scene.light[1] * h)
        d.ellipse((sx - sun_r, sy - sun_r, sx + sun_r, sy + sun_r), fill=lighten(scene.accent, 0.5))
    d = ImageDraw.Draw(img)
    line = max(2, min(w, h) // 140)
    shadow_off = max(3, min(w, h) // 70)
    shadow_colour = darken(scene.background[1], 0.45)
    for shape in shapes:
        draw_shape(d, shape, w, h, shadow_colour, offset=(shadow_off, shadow_off))
        draw_shape(d, shape, w, h, shape.colour, outline=scene.outline, width=line)
    return img


def _fit(w: int, h: int, longest: int) -> tuple[int, int]:
    scale = min(1.0, longest / max(w, h))
    return max(8, int(round(w * scale))), max(8, int(round(h * scale)))


def check_size(width: int, height: int) -> None:
    if not (isinstance(width, int) and isinstance(height, int)) or width < 16 or height < 16:
        raise EngineError(f"image size must be at least 16x16 pixels, got {width}x{height}")
    if width * height > MAX_PIXELS:
        raise EngineError(
            f"image size {width}x{height} is larger than the local engine allows (16 megapixels)"
        )


def render_scene(
    scene: Scene, width: int, height: int, style: str, seed: int = 0, grain: bool = True
) -> Image.Image:
    """Draw ``scene`` at exactly ``width`` x ``height`` in the given style."""
    style = normalise_style(style)
    if style == "illustration":
        # Flat fills draw fast at full size and keep crisp edges.
        return render_flat(scene, (width, height))
    low = _fit(width, height, 340)
    img = render_photo(scene, low).resize((width, height), Image.Resampling.BILINEAR)
    if grain:
        tile = _grain_tile(seed % 4)
        noise = Image.new("RGB", (width, height))
        ox, oy = (seed * 37) % 256, (seed * 91) % 256
        for x in range(-ox, width, 256):
            for y in range(-oy, height, 256):
                noise.paste(tile, (x, y))
        img = ImageChops.add(img, noise, 1.0, -128)
    return img


def normalise_style(style: str) -> str:
    s = (style or "photorealistic").strip().lower().replace("-", "").replace("_", "").replace(" ", "")
    if s in ("photorealistic", "photo", "realistic", "photograph", "photography", "cinematic"):
        return "photorealistic"
    if s in ("illustration", "illustrated", "flat", "vector", "cartoon", "drawing", "graphic"):
        return "illustration"
    raise EngineError(f"unknown image style {style!r}; the local engine draws: {', '.join(STYLES)}")


def encode_image(img: Image.Image, fmt: str) -> tuple[bytes, str]:
    fmt = (fmt or "PNG").upper()
    if fmt == "JPG":
        fmt = "JPEG"
    buf = io.BytesIO()
    if fmt == "JPEG":
        img.convert("RGB").save(buf, "JPEG", quality=90, optimize=False, progressive=False)
        return buf.getvalue(), "image/jpeg"
    if fmt == "PNG":
        img.save(buf, "PNG", compress_level=1)
        return buf.getvalue(), "image/png"
    raise EngineError(f"unsupported image format {fmt!r}; the local engine writes PNG or JPEG")


def make_image(
    prompt: str,
    width: int,
    height: int,
    style: str,
    brand: BrandVoice,
    reference: bytes | None,
    seed: int,
    fmt: str,
) -> tuple[bytes, str]:
    check_size(width, height)
    style = normalise_style(style)
    scene = build_scene(prompt, brand, seed, load_reference(reference))
    img = render_scene(scene, width, height, style, seed)
    return encode_image(img, fmt)


# --------------------------------------------------------------------------- edits

EDIT_VOCABULARY = (
    "brighter",
    "darker",
    "black and white (grayscale)",
    "warmer",
    "cooler",
    "blur",
    "sharpen",
    "more/less contrast",
    "more vibrant / muted",
    "mirror / flip",
    "crop to 1:1, 4:5, 16:9, 9:16, 3:2 or 2:3",
    'add text "..." (optionally at the top / in the center)',
)

_FILLER = re.compile(
    r"\b(?:please|make|it|the|image|picture|photo|a|an|bit|little|slightly|somewhat|look|looking|more|much|"
    r"very|way|lot|into|to|turn|convert|apply|effect|filter|give|some|colou?rs?|tones?|tint|overall)\b"
)
_QUOTED = re.compile(r"[\"“”«»„']([^\"“”«»„]+?)[\"“”«»']|[\"“”«»„]([^\"“”«»„]+)$")


@dataclass(frozen=True)
class EditStep:
    op: str
    amount: float = 1.0
    ratio: tuple[int, int] = (1, 1)
    text: str = ""
    position: str = "bottom"


def _strength(clause: str) -> float:
    if re.search(r"\b(much|very|lot|way|really|strongly|heavily)\b", clause):
        return 1.8
    if re.search(r"\b(slightly|bit|little|touch|subtly|somewhat)\b", clause):
        return 0.5
    return 1.0


def parse_edit_prompt(prompt: str) -> list[EditStep]:
    """Split an edit prompt into ordered steps; unknown instructions raise EngineError."""
    if not prompt or not prompt.strip():
        raise EngineError(
            "the edit prompt is empty; the local engine understands: " + "; ".join(EDIT_VOCABULARY)
        )
    texts: list[str] = []

    def stash(m: re.Match) -> str:
        texts.append(m.group(1) if m.group(1) is not None else m.group(2))
        return f" QTEXT{len(texts) - 1} "

    work = _QUOTED.sub(stash, prompt.strip()).lower()
    work = re.sub(r"\b(black|b)\s*(?:and|&|/|n)\s*(white|w)\b", "grayscale", work)
    clauses = [c.strip() for c in re.split(r"[,;\n]|\.(?!\d)|\bthen\b|\band\b|\balso\b|\+", work)]
    steps: list[EditStep] = []
    for raw in clauses:
        if not raw:
            continue
        clause = raw
        strength = _strength(clause)
        q = re.search(r"qtext(\d+)", clause)
        if q and re.search(r"\b(add|write|put|text|caption|title|overlay|say|says|saying|label)\b", clause):
            position = "bottom"
            if re.search(r"\b(top|upper|header)\b", clause):
                position = "top"
            elif re.search(r"\b(cent(?:er|re)|middle)\b", clause):
                position = "center"
            steps.append(EditStep("text", text=texts[int(q.group(1))], position=position))
            continue
        if "crop" in clause or "square" in clause or "aspect" in clause or "ratio" in clause:
            m = re.search(r"(\d+)\s*[:x/×]\s*(\d+)", clause)
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                if a <= 0 or b <= 0 or max(a, b) / min(a, b) > 8:
                    raise EngineError(f"cannot crop to the ratio {a}:{b}")
                steps.append(EditStep("crop", ratio=(a, b)))
                continue
            if "square" in clause:
                steps.append(EditStep("crop", ratio=(1, 1)))
                continue
            raise EngineError(f"crop needs a ratio such as 1:1, 4:5, 16:9, 9:16 or 3:2 (got {raw!r})")
        rest = _FILLER.sub(" ", clause).strip()
        op = None
        if re.search(r"\b(grayscale|greyscale|gray|grey|monochrome|mono|desaturated?|noir|bw)\b", rest):
            op = "grayscale"
        elif re.search(r"\b(reduce|lower|decrease|less)\b.*\b(brightness|exposure|light)\b", clause):
            op = "darker"
        elif re.search(r"\b(brighter|brighten|lighter|lighten|bright|brightness|light|exposure)\b", rest):
            op = "brighter"
        elif re.search(r"\b(darker|darken|dark|dim|dimmer|moody)\b", rest):
            op = "darker"
        elif re.search(r"\b(warmer|warm|warmth|golden|sunnier)\b", rest):
            op = "warmer"
        elif re.search(r"\b(cooler|cool|colder|cold|icy|bluer)\b", rest):
            op = "cooler"
        elif re.search(r"\b(blur|blurry|blurred|soften|softer|soft focus|defocus)\b", rest):
            op = "blur"
        elif re.search(r"\b(sharpen|sharper|sharp|crisp|crisper)\b", rest):
            op = "sharpen"
        elif re.search(r"\b(less contrast|lower contrast|flatter|faded)\b", clause):
            op = "less_contrast"
        elif re.search(r"\b(contrast|punchier|punchy)\b", rest):
            op = "contrast"
        elif re.search(r"\b(vibrant|saturated|saturate|vivid|colorful|colourful|pop)\b", rest):
            op = "vibrant"
        elif re.search(r"\b(muted|desaturate|washed|pastel)\b", rest):
            op = "muted"
        elif re.search(r"\b(mirror|mirrored|flip|flipped|horizontally)\b", rest):
            op = "mirror"
        if op is None:
            shown = re.sub(r"qtext(\d+)", lambda m: f'"{texts[int(m.group(1))]}"', raw)
            raise EngineError(
                f"the local engine does not understand the edit {shown!r}; it understands: "
                + "; ".join(EDIT_VOCABULARY)
            )
        steps.append(EditStep(op, amount=strength))
    if not steps:
        raise EngineError(
            "no edit found in the prompt; the local engine understands: " + "; ".join(EDIT_VOCABULARY)
        )
    return steps


def crop_to_ratio(img: Image.Image, a: int, b: int) -> Image.Image:
    """Largest centred crop whose width:height is exactly a:b."""
    g = math.gcd(a, b)
    a, b = a // g, b // g
    k = min(img.width // a, img.height // b)
    if k < 1:
        raise EngineError(f"the image ({img.width}x{img.height}) is too small to crop to {a}:{b}")
    w, h = a * k, b * k
    left, top = (img.width - w) // 2, (img.height - h) // 2
    return img.crop((left, top, left + w, top + h))


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    ):
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


def draw_text(img: Image.Image, text: str, position: str) -> Image.Image:
    img = img.convert("RGB")
    w, h = img.size
    draw = ImageDraw.Draw(img)
    size = max(12, int(min(w, h) / 11))
    # Shrink, then wrap, until the text fits within 90% of the width.
    lines = [text]
    while True:
        font = _font(size)
        words = text.split()
        lines, current = [], ""
        for word in words:
            trial = f"{current} {word}".strip()
            if draw.textlength(trial, font=font) <= w * 0.9 or not current:
                current = trial
            else:
                lines.append(current)
                current = word
        if current:
            lines.append(current)
        widest = max(draw.textlength(line, font=font) for line in lines)
        if (widest <= w * 0.9 and len(lines) * size * 1.25 <= h * 0.8) or size <= 12:
            break
        size = int(size * 0.85)
    line_h = int(size * 1.25)
    block_h = line_h * len(lines)
    if position == "top":
        y = int(h * 0.06)
    elif position == "center":
        y = (h - block_h) // 2
    else:
        y = h - block_h - int(h * 0.07)
    stroke = max(1, size // 12)
    # A translucent band behind the text keeps it readable on any picture.
    band = Image.new("L", img.size, 0)
    ImageDraw.Draw(band).rectangle((0, y - size // 3, w, y + block_h + size // 4), fill=110)
    img = Image.composite(Image.new("RGB", img.size, (0, 0, 0)), img, band)
    draw = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        lw = draw.textlength(line, font=font)
        draw.text(
            ((w - lw) / 2, y + i * line_h),
            line,
            font=font,
            fill=(255, 255, 255),
            stroke_width=stroke,
            stroke_fill=(0, 0, 0),
        )
    return img


def _channel_shift(img: Image.Image, r: float, g: float, b: float) -> Image.Image:
    rc, gc, bc = img.convert("RGB").split()
    return Image.merge(
        "RGB",
        (
            rc.point(lambda v: min(255, max(0, int(v * r)))),
            gc.point(lambda v: min(255, max(0, int(v * g)))),
            bc.point(lambda v: min(255, max(0, int(v * b)))),
        ),
    )


def apply_edit(img: Image.Image, step: EditStep) -> Image.Image:
    s = step.amount
    blur_unit = max(img.size) / 400
    if step.op == "brighter":
        return ImageEnhance.Brightness(img).enhance(1 + 0.25 * s)
    if step.op == "darker":
        return ImageEnhance.Brightness(img).enhance(max(0.1, 1 - 0.22 * s))
    if step.op == "grayscale":
        return img.convert("L").convert("RGB")
    if step.op == "warmer":
        return _channel_shift(img, 1 + 0.12 * s, 1 + 0.03 * s, 1 - 0.12 * s)
    if step.op == "cooler":
        return _channel_shift(img, 1 - 0.12 * s, 1 + 0.01 * s, 1 + 0.12 * s)
    if step.op == "blur":
        return img.filter(ImageFilter.GaussianBlur(max(1.0, 2.5 * blur_unit * s)))
    if step.op == "sharpen":
        return img.filter(
            ImageFilter.UnsharpMask(radius=max(1.0, blur_unit), percent=int(120 * s), threshold=2)
        )
    if step.op == "contrast":
        return ImageEnhance.Contrast(img).enhance(1 + 0.3 * s)
    if step.op == "less_contrast":
        return ImageEnhance.Contrast(img).enhance(max(0.2, 1 - 0.25 * s))
    if step.op == "vibrant":
        return ImageEnhance.Color(img).enhance(1 + 0.4 * s)
    if step.op == "muted":
        return ImageEnhance.Color(img).enhance(max(0.0, 1 - 0.35 * s))
    if step.op == "mirror":
        return ImageOps.mirror(img)
    if step.op == "crop":
        return crop_to_ratio(img, *step.ratio)
    if step.op == "text":
        return draw_text(img, step.text, step.position)
    raise EngineError(f"unknown edit operation {step.op!r}")


def edit_image(data: bytes, prompt: str) -> tuple[bytes, int, int, str]:
    steps = parse_edit_prompt(prompt)
    try:
        src = Image.open(io.BytesIO(data))
        src.load()
    except Exception as exc:
        raise EngineError(f"the image to edit could not be read: {exc}") from exc
    fmt = "JPEG" if src.format == "JPEG" else "PNG"
    has_alpha = src.mode in ("RGBA", "LA") or (src.mode == "P" and "transparency" in src.info)
    alpha = src.convert("RGBA").getchannel("A") if has_alpha else None
    img = src.convert("RGB")
    for step in steps:
        img = apply_edit(img, step)
        if alpha is not None and step.op == "crop":
            alpha = crop_to_ratio(alpha, *step.ratio)
        elif alpha is not None and step.op == "mirror":
            alpha = ImageOps.mirror(alpha)
    if alpha is not None and fmt == "PNG":
        img = img.convert("RGBA")
        img.putalpha(alpha)
    out, content_type = encode_image(img, fmt)
    return out, img.width, img.height, content_type


# --------------------------------------------------------------------------- video

# Pillow's YCbCr is full range; H.264 players expect limited ("TV") range.
_Y_LUT = [16 + (v * 219 + 127) // 255 for v in range(256)]
_C_LUT = [16 + (v * 224 + 127) // 255 for v in range(256)]


@dataclass
class _Sprite:
    y: Image.Image
    cb: Image.Image
    cr: Image.Image
    mask: Image.Image
    cmask: Image.Image
    shape: Shape
    half: int  # half of the sprite's side, even


def _planes(img: Image.Image) -> tuple[Image.Image, Image.Image, Image.Image]:
    y, cb, cr = img.convert("YCbCr").split()
    cw, ch = img.width // 2, img.height // 2
    return (
        y.point(_Y_LUT),
        cb.resize((cw, ch), Image.Resampling.BILINEAR).point(_C_LUT),
        cr.resize((cw, ch), Image.Resampling.BILINEAR).point(_C_LUT),
    )


def _make_sprite(scene: Scene, shape: Shape, frame_min: int, style: str) -> _Sprite:
    radius = shape.size * frame_min
    half = int(radius * 1.5 + 8) & ~1
    side = half * 2
    local = Shape(
        shape.kind, 0.5, 0.5, radius / side, shape.colour, shape.rotation, 0.0, shape.jitter, shape.motion
    )
    rgb = Image.new("RGB", (side, side), shape.colour)
    mask = Image.new("L", (side, side), 0)
    if style == "illustration":
        d = ImageDraw.Draw(rgb)
        line = max(2, frame_min // 140)
        draw_shape(d, local, side, side, shape.colour, outline=scene.outline, width=line)
        draw_shape(ImageDraw.Draw(mask), local, side, side, 255, outline=255, width=line)
    else:
        lx, ly = scene.light
        toward = math.degrees(math.atan2(ly - shape.cy, lx - shape.cx))
        rgb = _gradient((side, side), lighten(shape.colour, 0.4), darken(shape.colour, 0.35), -toward - 90)
        draw_shape(ImageDraw.Draw(mask), local, side, side, 255)
        mask = mask.filter(ImageFilter.GaussianBlur(max(1.0, side / 90)))
    y, cb, cr = _planes(rgb)
    return _Sprite(
        y, cb, cr, mask, mask.resize((side // 2, side // 2), Image.Resampling.BILINEAR), shape, half
    )


def check_video(width: int, height: int, seconds: float, fps: int) -> None:
    if not isinstance(seconds, (int, float)) or not (VIDEO_MIN_SECONDS <= seconds <= VIDEO_MAX_SECONDS):
        raise EngineError(f"video length must be between 5 and 8 seconds, got {seconds!r}")
    if not isinstance(fps, int) or not 1 <= fps <= 60:
        raise EngineError(f"video frame rate must be between 1 and 60 fps, got {fps!r}")
    if width < 16 or height < 16 or width % 2 or height % 2:
        raise EngineError(f"video size must be even and at least 16x16 (H.264 4:2:0), got {width}x{height}")
    if width * height > 2160 * 3840:
        raise EngineError(f"video size {width}x{height} is larger than the local engine allows (4K)")


def make_video(
    prompt: str,
    width: int,
    height: int,
    seconds: float,
    fps: int,
    style: str,
    brand: BrandVoice,
    reference: bytes | None,
    seed: int,
) -> tuple[bytes, bytes, float]:
    """Encode the prompt's animated scene as H.264 MP4; returns (mp4, jpeg thumbnail, seconds)."""
    import av  # imported lazily: only video generation needs FFmpeg

    check_video(width, height, seconds, fps)
    style = normalise_style(style)
    scene = build_scene(prompt, brand, seed, load_reference(reference))
    frames = int(round(seconds * fps))
    frame_min = min(width, height)

    # The camera drifts over a canvas ~16% larger than the frame.
    pan_x = int(width * 0.16 * abs(scene.pan[0]) + width * 0.04) & ~1
    pan_y = int(height * 0.16 * abs(scene.pan[1]) + height * 0.04) & ~1
    cw, ch = width + pan_x, height + pan_y
    moving = [s for s in scene.shapes if s.depth < 0.6][:4] or scene.shapes[-2:]
    still = [s for s in scene.shapes if s not in moving]
    # Shapes are placed in canvas coordinates so they keep their frame-relative layout.
    scale_x, scale_y = width / cw, height / ch
    canvas_scene = Scene(
        **{
            **scene.__dict__,
            "shapes": [
                Shape(
                    s.kind,
                    s.cx * scale_x + (pan_x / 2) / cw,
                    s.cy * scale_y + (pan_y / 2) / ch,
                    s.size * frame_min / min(cw, ch),
                    s.colour,
                    s.rotation,
                    s.depth,
                    s.jitter,
                    s.motion,
                )
                for s in still
            ],
        }
    )
    if style == "illustration":
        canvas = render_flat(canvas_scene, (cw, ch))
    else:
        canvas = render_photo(canvas_scene, _fit(cw, ch, 420)).resize((cw, ch), Image.Resampling.BILINEAR)
    cy_plane, ccb_plane, ccr_plane = _planes(canvas)
    sprites = [_make_sprite(scene, s, frame_min, style) for s in moving]

    frame_proto = av.VideoFrame(width, height, "yuv420p")
    line = [p.line_size for p in frame_proto.planes]
    # Pad the canvas planes so a crop as wide as the encoder's line size never leaves them.
    if line[0] > width:
        pad = line[0] - width + 2
        cy_plane = ImageOps.expand(cy_plane, (0, 0, pad, 0), fill=16)
        ccb_plane = ImageOps.expand(ccb_plane, (0, 0, pad // 2 + 1, 0), fill=128)
        ccr_plane = ImageOps.expand(ccr_plane, (0, 0, pad // 2 + 1, 0), fill=128)

    tmpdir = tempfile.mkdtemp(prefix="postforge-video-")
    path = os.path.join(tmpdir, "out.mp4")
    thumbnail = b""
    try:
        container = av.open(path, "w", format="mp4", options={"movflags": "+faststart"})
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.time_base = Fraction(1, fps)
        # One encoder thread by default: workers run one generation per core, and a batch
        # scales with processes (bench/generation.py); a lone 6 s 1080x1920 video still
        # encodes in about 4 s. POSTFORGE_VIDEO_THREADS=0 lets x264 use every core.
        threads = int(os.environ.get("POSTFORGE_VIDEO_THREADS", "1"))
        stream.codec_context.thread_count = threads if threads > 0 else max(1, min(os.cpu_count() or 2, 4))
        stream.codec_context.thread_type = "AUTO"
        stream.options = {
            "preset": "superfast",  # High profile with CABAC, ~2x ultrafast's compression at small cost
            "crf": "23",
            "profile": "high",
            "g": str(fps * 2),
            "x264-params": "colorprim=smpte170m:transfer=smpte170m:colormatrix=smpte170m:range=tv",
        }
        for i in range(frames):
            t = i / max(1, frames - 1)
            ease = t * t * (3 - 2 * t)
            ox = int(pan_x * (ease if scene.pan[0] >= 0 else 1 - ease)) & ~1
            oy = int(pan_y * (ease if scene.pan[1] >= 0 else 1 - ease)) & ~1
            fy = cy_plane.crop((ox, oy, ox + line[0], oy + height))
            fcb = ccb_plane.crop((ox // 2, oy // 2, ox // 2 + line[1], oy // 2 + height // 2))
            fcr = ccr_plane.crop((ox // 2, oy // 2, ox // 2 + line[2], oy // 2 + height // 2))
            seconds_in = i / fps
            for sp in sprites:
                ax, ay, phase, freq = sp.shape.motion
                angle = phase + 2 * math.pi * freq * seconds_in / seconds
                x = int(sp.shape.cx * width + ax * width * math.sin(angle)) - sp.half
                y = int(sp.shape.cy * height + ay * height * math.cos(angle * 0.5 + phase)) - sp.half
                x, y = x & ~1, y & ~1
                fy.paste(sp.y, (x, y), sp.mask)
                fcb.paste(sp.cb, (x // 2, y // 2), sp.cmask)
                fcr.paste(sp.cr, (x // 2, y // 2), sp.cmask)
            frame = av.VideoFrame(width, height, "yuv420p")
            frame.planes[0].update(fy.tobytes())
            frame.planes[1].update(fcb.tobytes())
            frame.planes[2].update(fcr.tobytes())
            frame.pts = i
            if i == 0:
                thumbnail = _thumbnail(fy, fcb, fcr, width, height)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
        container.close()
        with open(path, "rb") as fh:
            data = fh.read()
    except av.FFmpegError as exc:
        raise EngineError(f"video encoding failed: {exc}", retryable=True) from exc
    finally:
        try:
            os.remove(path)
        except OSError:
            pass
        os.rmdir(tmpdir)
    return data, thumbnail, frames / fps


_Y_INV = [min(255, max(0, (v - 16) * 255 // 219)) for v in range(256)]
_C_INV = [min(255, max(0, 128 + ((v - 128) * 255) // 224)) for v in range(256)]


def _thumbnail(y: Image.Image, cb: Image.Image, cr: Image.Image, width: int, height: int) -> bytes:
    yy = y.crop((0, 0, width, height)).point(_Y_INV)
    full = (width, height)
    cbb = cb.crop((0, 0, width // 2, height // 2)).point(_C_INV).resize(full, Image.Resampling.BILINEAR)
    crr = cr.crop((0, 0, width // 2, height // 2)).point(_C_INV).resize(full, Image.Resampling.BILINEAR)
    img = Image.merge("YCbCr", (yy, cbb, crr)).convert("RGB")
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()
