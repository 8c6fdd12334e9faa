"""Edits of an existing image named in words ("brighter, crop to 4:5, add text \"Sale\""),
applied in order; the result keeps the input's format."""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageFont, ImageOps

from ..base import EngineError
from .scene import encode_image

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


#: the edits named by a word, tried in order: (op, pattern, read on the whole clause rather than
#: on the clause without its filler words)
_OPS: tuple[tuple[str, re.Pattern[str], bool], ...] = tuple(
    (op, re.compile(pattern), whole)
    for op, pattern, whole in (
        ("grayscale", r"\b(grayscale|greyscale|gray|grey|monochrome|mono|desaturated?|noir|bw)\b", False),
        ("darker", r"\b(reduce|lower|decrease|less)\b.*\b(brightness|exposure|light)\b", True),
        ("brighter", r"\b(brighter|brighten|lighter|lighten|bright|brightness|light|exposure)\b", False),
        ("darker", r"\b(darker|darken|dark|dim|dimmer|moody)\b", False),
        ("warmer", r"\b(warmer|warm|warmth|golden|sunnier)\b", False),
        ("cooler", r"\b(cooler|cool|colder|cold|icy|bluer)\b", False),
        ("blur", r"\b(blur|blurry|blurred|soften|softer|soft focus|defocus)\b", False),
        ("sharpen", r"\b(sharpen|sharper|sharp|crisp|crisper)\b", False),
        ("less_contrast", r"\b(less contrast|lower contrast|flatter|faded)\b", True),
        ("contrast", r"\b(contrast|punchier|punchy)\b", False),
        ("vibrant", r"\b(vibrant|saturated|saturate|vivid|colorful|colourful|pop)\b", False),
        ("muted", r"\b(muted|desaturate|washed|pastel)\b", False),
        ("mirror", r"\b(mirror|mirrored|flip|flipped|horizontally)\b", False),
    )
)


def _vocabulary_error(message: str) -> EngineError:
    return EngineError(f"{message}; the local engine understands: " + "; ".join(EDIT_VOCABULARY))


def _text_step(clause: str, texts: list[str]) -> EditStep | None:
    """``add text "..."`` (at the bottom unless the clause names the top or the centre)."""
    q = re.search(r"qtext(\d+)", clause)
    if not (q and re.search(r"\b(add|write|put|text|caption|title|overlay|say|says|saying|label)\b", clause)):
        return None
    position = "bottom"
    if re.search(r"\b(top|upper|header)\b", clause):
        position = "top"
    elif re.search(r"\b(cent(?:er|re)|middle)\b", clause):
        position = "center"
    return EditStep("text", text=texts[int(q.group(1))], position=position)


def _crop_step(clause: str) -> EditStep | None:
    """``crop to a:b`` or ``square``; a crop without a ratio, or one past 8:1, is an error."""
    if not ("crop" in clause or "square" in clause or "aspect" in clause or "ratio" in clause):
        return None
    m = re.search(r"(\d+)\s*[:x/×]\s*(\d+)", clause)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        if a <= 0 or b <= 0 or max(a, b) / min(a, b) > 8:
            raise EngineError(f"cannot crop to the ratio {a}:{b}")
        return EditStep("crop", ratio=(a, b))
    if "square" in clause:
        return EditStep("crop", ratio=(1, 1))
    raise EngineError(f"crop needs a ratio such as 1:1, 4:5, 16:9, 9:16 or 3:2 (got {clause!r})")


def _named_step(clause: str, texts: list[str]) -> EditStep:
    """The edit a clause names by a word (brighter, warmer, mirror, ...) at its strength."""
    rest = _FILLER.sub(" ", clause).strip()
    op = next((op for op, pattern, whole in _OPS if pattern.search(clause if whole else rest)), None)
    if op is None:
        shown = re.sub(r"qtext(\d+)", lambda m: f'"{texts[int(m.group(1))]}"', clause)
        raise EngineError(
            f"the local engine does not understand the edit {shown!r}; it understands: "
            + "; ".join(EDIT_VOCABULARY)
        )
    return EditStep(op, amount=_strength(clause))


def parse_edit_prompt(prompt: str) -> list[EditStep]:
    """Split an edit prompt into ordered steps; unknown instructions raise EngineError."""
    if not prompt or not prompt.strip():
        raise _vocabulary_error("the edit prompt is empty")
    texts: list[str] = []

    def stash(m: re.Match) -> str:
        texts.append(m.group(1) if m.group(1) is not None else m.group(2))
        return f" QTEXT{len(texts) - 1} "

    work = _QUOTED.sub(stash, prompt.strip()).lower()
    work = re.sub(r"\b(black|b)\s*(?:and|&|/|n)\s*(white|w)\b", "grayscale", work)
    clauses = [c.strip() for c in re.split(r"[,;\n]|\.(?!\d)|\bthen\b|\band\b|\balso\b|\+", work)]
    steps = [
        _text_step(clause, texts) or _crop_step(clause) or _named_step(clause, texts)
        for clause in clauses
        if clause
    ]
    if not steps:
        raise _vocabulary_error("no edit found in the prompt")
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


def _blur_unit(img: Image.Image) -> float:
    return max(img.size) / 400


#: each edit as a function of the image and its step (its strength in ``amount``)
_APPLY: dict[str, Callable[[Image.Image, EditStep], Image.Image]] = {
    "brighter": lambda img, step: ImageEnhance.Brightness(img).enhance(1 + 0.25 * step.amount),
    "darker": lambda img, step: ImageEnhance.Brightness(img).enhance(max(0.1, 1 - 0.22 * step.amount)),
    "grayscale": lambda img, step: img.convert("L").convert("RGB"),
    "warmer": lambda img, step: _channel_shift(
        img, 1 + 0.12 * step.amount, 1 + 0.03 * step.amount, 1 - 0.12 * step.amount
    ),
    "cooler": lambda img, step: _channel_shift(
        img, 1 - 0.12 * step.amount, 1 + 0.01 * step.amount, 1 + 0.12 * step.amount
    ),
    "blur": lambda img, step: img.filter(
        ImageFilter.GaussianBlur(max(1.0, 2.5 * _blur_unit(img) * step.amount))
    ),
    "sharpen": lambda img, step: img.filter(
        ImageFilter.UnsharpMask(radius=max(1.0, _blur_unit(img)), percent=int(120 * step.amount), threshold=2)
    ),
    "contrast": lambda img, step: ImageEnhance.Contrast(img).enhance(1 + 0.3 * step.amount),
    "less_contrast": lambda img, step: ImageEnhance.Contrast(img).enhance(max(0.2, 1 - 0.25 * step.amount)),
    "vibrant": lambda img, step: ImageEnhance.Color(img).enhance(1 + 0.4 * step.amount),
    "muted": lambda img, step: ImageEnhance.Color(img).enhance(max(0.0, 1 - 0.35 * step.amount)),
    "mirror": lambda img, step: ImageOps.mirror(img),
    "crop": lambda img, step: crop_to_ratio(img, *step.ratio),
    "text": lambda img, step: draw_text(img, step.text, step.position),
}


def apply_edit(img: Image.Image, step: EditStep) -> Image.Image:
    apply = _APPLY.get(step.op)
    if apply is None:
        raise EngineError(f"unknown edit operation {step.op!r}")
    return apply(img, step)


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
