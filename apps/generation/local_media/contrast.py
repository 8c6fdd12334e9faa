"""WCAG 2.x contrast, in one place: the relative luminance of a colour or of every pixel of an
image, the contrast ratio of two colours, and the ratio measured between a drawn mark (a logo,
an icon) and the rendered pixels actually behind it."""

from __future__ import annotations

import numpy as np
from PIL import Image

RGB = tuple[int, int, int]

#: WCAG 2.x AA for normal text; every text block is held to it, large text too
AA = 4.5
#: WCAG 2.x for graphical objects (a logo, an icon): 1.4.11 non-text contrast
GRAPHIC = 3.0

LUT = np.array(
    [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in range(256)]
)


def relative_luminance(c: RGB) -> float:
    return float(0.2126 * LUT[c[0]] + 0.7152 * LUT[c[1]] + 0.0722 * LUT[c[2]])


def contrast(a: RGB, b: RGB) -> float:
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def luminance(rgb: np.ndarray) -> np.ndarray:
    """The relative luminance of every pixel of an (..., 3) uint8 array."""
    return LUT[rgb[..., 0]] * 0.2126 + LUT[rgb[..., 1]] * 0.7152 + LUT[rgb[..., 2]] * 0.0722


def extremes(img: Image.Image, box: tuple[int, int, int, int]) -> tuple[RGB, RGB]:
    """The darkest and the lightest pixel (by relative luminance) of ``img`` inside ``box``."""
    region = np.asarray(img.crop(box).convert("RGB"))
    if region.size == 0:
        return (0, 0, 0), (0, 0, 0)
    flat = region.reshape(-1, 3)
    lum = luminance(flat)
    lo, hi = flat[int(lum.argmin())], flat[int(lum.argmax())]
    return (int(lo[0]), int(lo[1]), int(lo[2])), (int(hi[0]), int(hi[1]), int(hi[2]))


def mark_contrast(img: Image.Image, mark: Image.Image, pos: tuple[int, int]) -> float:
    """How a drawn mark (RGBA: a logo, an icon) stands out from the pixels behind it: the
    contrast between the mark's mean luminance and that of the background's pixels around and
    under it (a ring as wide as a quarter of its height), both measured on ``img`` without the
    mark. 21 when the mark has no opaque pixel (nothing to see, nothing to lose)."""
    arr = np.asarray(mark.convert("RGBA"))
    opaque = arr[..., 3] > 128
    if not opaque.any():
        return 21.0
    ring = max(2, mark.height // 4)
    box = (
        max(0, pos[0] - ring),
        max(0, pos[1] - ring),
        min(img.width, pos[0] + mark.width + ring),
        min(img.height, pos[1] + mark.height + ring),
    )
    behind = luminance(np.asarray(img.crop(box).convert("RGB")).reshape(-1, 3))
    own = luminance(arr[..., :3][opaque])
    # the mark's ink (its median) against the background's pixels: the ratio that 98% of them
    # reach (the worst case a reader meets, a stray pixel of noise aside)
    ink = float(np.median(own))
    if not behind.size:
        return 21.0
    ratios = (np.maximum(behind, ink) + 0.05) / (np.minimum(behind, ink) + 0.05)
    return float(np.percentile(ratios, 2))
