"""Pictures from a prompt: the prompt's words, the brand's colours and the seed make a
``Scene`` (palette, background and a list of shapes), drawn soft and lit ("photorealistic",
at a reduced resolution and upscaled) or flat at full size ("illustration")."""

from __future__ import annotations

import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from ..base import BrandVoice, EngineError, ImageRequest
from .palette import COLOUR_WORDS, RGB, darken, dominant_colours, hue_colour, lighten, mix, parse_hex

MAX_PIXELS = 4096 * 4096
SHAPE_KINDS = ("circle", "square", "triangle", "ring", "blob", "stripe", "arc", "diamond")
LAYOUTS = ("scattered", "centered", "diagonal", "grid", "horizon")
STYLES = ("photorealistic", "illustration")


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
    *,
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
        if outline is not None and width and r >= width:  # (a tiny picture: no room inside the outline)
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
        if outline is not None and width and r >= width:
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


def gradient(size: tuple[int, int], a: RGB, b: RGB, angle: float) -> Image.Image:
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
        img = gradient(size, scene.background[0], scene.background[1], scene.angle)
        if scene.layout == "horizon":
            horizon = Image.new("L", size, 0)
            ImageDraw.Draw(horizon).rectangle((0, int(h * 0.62), w, h), fill=255)
            horizon = horizon.filter(ImageFilter.GaussianBlur(max(1, h // 40)))
            img = Image.composite(gradient(size, scene.ground, darken(scene.ground, 0.4), 90), img, horizon)
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
        shade = gradient(bsize, lighten(shape.colour, 0.35), darken(shape.colour, 0.35), -toward - 90)
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


def fit(w: int, h: int, longest: int) -> tuple[int, int]:
    scale = min(1.0, longest / max(w, h))
    return max(8, round(w * scale)), max(8, round(h * scale))


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
    low = fit(width, height, 340)
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


def make_image(request: ImageRequest) -> tuple[bytes, str]:
    check_size(request.width, request.height)
    style = normalise_style(request.style)
    scene = build_scene(request.prompt, request.brand, request.seed, load_reference(request.reference))
    img = render_scene(scene, request.width, request.height, style, request.seed)
    return encode_image(img, request.format)
