"""Colours for the local engine's pictures: the colour words of the prompt, brand colours
parsed and mixed, and a reference image's dominant colours."""

from __future__ import annotations

import colorsys
import re

from PIL import Image

RGB = tuple[int, int, int]

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


def parse_hex(value: str, default: RGB) -> RGB:
    """'#RRGGBB' (or 'RRGGBB', '#RGB') to an RGB tuple; ``default`` when unparsable."""
    text = (value or "").strip().lstrip("#")
    if len(text) == 3:
        text = "".join(ch * 2 for ch in text)
    if len(text) != 6 or not re.fullmatch(r"[0-9a-fA-F]{6}", text):
        return default
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(a[i] + (b[i] - a[i]) * t) for i in range(3))  # type: ignore[return-value]


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
