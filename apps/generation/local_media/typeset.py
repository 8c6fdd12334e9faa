"""Type for the designed posts: fonts per script (the brand's when given, else Noto, shipped
under the OFL in ``data/fonts``), measured wrapping and shrinking, and WCAG contrast.

Every text block is fitted by measurement: words are wrapped greedily at a candidate size,
the lines balanced, and the size lowered until every line fits the box's width and the lines
its height. A text that fits at no size above the floor is not set at all (the caller drops the
block or picks a shorter one): text is never cut or left overflowing.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import ImageFont

from .contrast import AA, contrast, relative_luminance
from .palette import RGB

__all__ = ["AA", "contrast", "relative_luminance"]

FONT_DIR = Path(__file__).resolve().parent.parent / "data" / "fonts"
#: shipped fonts, tried in order for the characters a text needs (bold for headlines)
SHIPPED_BOLD = (
    "NotoSans-Bold.ttf",
    "NotoSansArabic-Bold.ttf",
    "NotoSansHebrew-Bold.ttf",
    "NotoSansDevanagari-Bold.ttf",
)
SHIPPED_REGULAR = ("NotoSans-Regular.ttf", *SHIPPED_BOLD[1:])
_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_SPACELESS = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


# --------------------------------------------------------------------------- text


def plain(text: str) -> str:
    """``text`` as it can be typeset: pictographs (emoji), their joiners and variation selectors
    removed, spaces collapsed. A brand font rarely has emoji and a tofu box reads as a bug."""
    out = []
    for ch in text or "":
        cp = ord(ch)
        if ch in "\u200d\ufe0e\ufe0f\u20e3" or 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF:
            continue
        if unicodedata.category(ch) in ("So", "Cs", "Co") and cp > 0x2100:
            continue
        out.append(ch)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def is_rtl(text: str) -> bool:
    return bool(_RTL.search(text or ""))


# --------------------------------------------------------------------------- fonts


@dataclass(frozen=True)
class FontChoice:
    path: str
    name: str  # family name as a person reads it ("Noto Sans", the brand's "Lora")
    brand: bool  # the brand's own font


@lru_cache(maxsize=64)
def _coverage(path: str) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True, fontNumber=0) as font:
        return frozenset(font.getBestCmap() or {})


@lru_cache(maxsize=64)
def _family(path: str) -> str:
    from fontTools.ttLib import TTFont

    with TTFont(path, lazy=True, fontNumber=0) as font:
        name = font["name"]
        return str(name.getDebugName(16) or name.getDebugName(1) or Path(path).stem)


@lru_cache(maxsize=32)
def brand_font_file(name: str, bold: bool = True) -> str | None:
    """The file of the brand's font ``name``: a path to a .ttf/.otf, or a family installed on the
    machine (fontconfig), taken only when its family is the one asked for (fontconfig answers
    every query with its nearest font, which is not the brand's)."""
    name = (name or "").strip()
    if not name:
        return None
    if name.lower().endswith((".ttf", ".otf")) and Path(name).is_file():
        return name
    if not shutil.which("fc-match"):
        return None
    try:
        found = subprocess.run(
            ["fc-match", "-f", "%{family}\n%{file}", f"{name}:{'bold' if bold else 'regular'}"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    if len(found) < 2:
        return None
    families = {f.strip().lower() for f in found[0].split(",")}
    if name.lower() not in families or not found[1].lower().endswith((".ttf", ".otf")):
        return None
    return found[1]


def font_for(text: str, *, bold: bool = True, brand_fonts: tuple[str, ...] = ()) -> FontChoice | None:
    """The first font that has every character of ``text``: the brand's fonts in order, then the
    shipped Noto fonts. None when no font has them all (the text is then not set).

    Roles (issue 30): the brand's first font is its headline font (``bold``), its second, when it
    has one, its body font (``bold=False``); a block the role's font cannot set whole (a
    Japanese line for a Latin-only font) falls back to the brand's other font, then to the Noto
    font that covers the script."""
    needed = {ord(c) for c in text if not c.isspace()}
    if not bold and len(brand_fonts) > 1:
        brand_fonts = (*brand_fonts[1:], brand_fonts[0])
    for name in brand_fonts:
        path = brand_font_file(name, bold)
        if path and Path(path).is_file() and needed <= _coverage(path):  # a deleted upload: skipped
            return FontChoice(path, _family(path), True)
    for file in SHIPPED_BOLD if bold else SHIPPED_REGULAR:
        path = str(FONT_DIR / file)
        if needed <= _coverage(path):
            return FontChoice(path, _family(path), False)
    path = system_font_file(frozenset(needed), bold)
    if path:
        return FontChoice(path, _family(path), False)
    return None


@lru_cache(maxsize=64)
def system_font_file(needed: frozenset[int], bold: bool = True) -> str | None:
    """A font installed on the machine (fontconfig) that has every character of ``needed``: the
    scripts no shipped font covers (Chinese, Japanese and Korean, with Debian's fonts-noto-cjk,
    which `make test` installs and docs/deploy.md names). None when none is installed."""
    if not needed or not shutil.which("fc-match"):
        return None
    charset = " ".join(f"{c:x}" for c in sorted(needed))
    try:
        found = subprocess.run(
            ["fc-match", "-f", "%{file}", f":charset={charset}:weight={'bold' if bold else 'regular'}"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not found.lower().endswith((".ttf", ".otf", ".ttc")) or not Path(found).is_file():
        return None
    return found if needed <= _coverage(found) else None


@lru_cache(maxsize=256)
def truetype(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, layout_engine=ImageFont.Layout.RAQM)


# --------------------------------------------------------------------------- fitting


@dataclass
class SetText:
    """A text block as set: its lines, the font and size, and where each line sits."""

    text: str
    lines: list[str]
    font: FontChoice
    size: int
    box: tuple[int, int, int, int]  # the lines' box (left, top, right, bottom), inside the area
    line_boxes: list[tuple[int, int, int, int]]  # each line's ink and advance, absolute
    align: str
    rtl: bool
    pitch: int  # distance between baselines
    origins: list[tuple[int, int]]  # where each line is drawn from (anchor "la")

    @property
    def pil_font(self) -> ImageFont.FreeTypeFont:
        return truetype(self.font.path, self.size)


def _wrap(words: list[str], font: ImageFont.FreeTypeFont, width: float, spaceless: bool) -> list[str] | None:
    """Greedy lines of ``words`` no wider than ``width`` (measured); None when a word is wider."""
    lines: list[str] = []
    current = ""
    joiner = "" if spaceless else " "
    for word in words:
        trial = word if not current else current + joiner + word
        if font.getlength(trial) <= width:
            current = trial
            continue
        if font.getlength(word) > width:
            return None
        if current:
            lines.append(current)
        current = word
    if current:
        lines.append(current)
    return lines


#: kinsoku: no line starts with these (closing marks, small kana, the iteration mark) ...
NO_START = frozenset(
    "。、，．・：；？！」』）〕］｝〉》】ゝゞーァィゥェォッャュョヮヵヶぁぃぅぇぉっゃゅょゎ々〜～)]}!?.,:;%"
)
#: ... and none ends with these (opening marks)
NO_END = frozenset("「『（〔［｛〈《【([{")
NBSP = "\u00a0"


@lru_cache(maxsize=4)
def _budoux(kind: str) -> Any:
    import budoux

    if kind == "zh-hant":
        return budoux.load_default_traditional_chinese_parser()
    if kind == "zh":
        return budoux.load_default_simplified_chinese_parser()
    return budoux.load_default_japanese_parser()


def phrases(text: str) -> list[str]:
    """Japanese and Chinese broken where their readers break them: BudouX's phrases, then
    kinsoku (a phrase never starts with closing punctuation nor ends with an opening one; each
    is moved to the phrase it belongs to)."""
    kind = "ja" if re.search(r"[\u3040-\u30ff]", text) else "zh"
    parts = [p for p in _budoux(kind).parse(text) if p]
    out: list[str] = []
    for part in parts:
        if out and (part[0] in NO_START or out[-1][-1] in NO_END):
            out[-1] += part
        else:
            out.append(part)
    return out


def _protect(text: str) -> str:
    """``text`` with the spaces inside a phone number, price, code, date, time or URL made
    non-breaking: such a fact is never split over two lines."""
    from .atoms import atoms

    for atom in sorted(atoms(text), key=lambda a: -len(a.text)):
        if " " in atom.text:
            text = text.replace(atom.text, atom.text.replace(" ", NBSP))
    # a number and its unit ("25 minutes", "8:30 am") stay together too
    return re.sub(r"(\d) (?=(?:%|am|pm|€|min\w*|h\b|km|kg|g\b|ml|l\b))", "\\1" + NBSP, text)


def _units(text: str) -> tuple[list[str], bool]:
    if _SPACELESS.search(text) and " " not in text.strip():
        if re.search(r"[\u3040-\u30ff\u3400-\u9fff]", text):
            return phrases(text.strip()), True
        return list(text.strip()), True
    return _protect(text).split(" "), False


def fit_text(
    text: str,
    font: FontChoice,
    area: tuple[int, int, int, int],
    *,
    max_size: int,
    min_size: int,
    max_lines: int = 6,
    align: str = "left",
    valign: str = "top",
    leading: float = 1.18,
    balance: bool = False,
) -> SetText | None:
    """``text`` set as large as it fits in ``area`` (left, top, right, bottom), from ``max_size``
    down to ``min_size``; None when it fits at none of them."""
    text = plain(text)
    if not text:
        return None
    left, top, right, bottom = area
    width, height = right - left, bottom - top
    if width <= 0 or height <= 0:
        return None
    words, spaceless = _units(text)
    size = max_size
    while size >= min_size:
        pil = truetype(font.path, size)
        ascent, descent = pil.getmetrics()
        pitch = round(size * leading)
        lines = _wrap(words, pil, width, spaceless)
        if lines is None and spaceless and any(len(w) > 1 for w in words):
            lines = _wrap(
                [ch for w in words for ch in w], pil, width, spaceless
            )  # a phrase wider than the box
            lines = _kinsoku(lines) if lines else lines
        if lines and len(lines) <= max_lines and pitch * (len(lines) - 1) + ascent + descent <= height:
            lines = (_balance(words, pil, width, spaceless, len(lines)) if balance else None) or lines
            extents = [_extent(pil, line, ascent + descent) for line in lines]
            block_top = min(i * pitch + e[1] for i, e in enumerate(extents))
            block_bottom = max(i * pitch + e[3] for i, e in enumerate(extents))
            if max(e[2] - e[0] for e in extents) <= width and block_bottom - block_top <= height:
                return _place(
                    text,
                    lines=lines,
                    extents=extents,
                    font=font,
                    size=size,
                    pitch=pitch,
                    span=(block_top, block_bottom),
                    area=area,
                    align=align,
                    valign=valign,
                )
        size = size - max(1, round(size * 0.06))
    return None


def _kinsoku(lines: list[str]) -> list[str]:
    """Lines broken per character, mended: a closing mark moves up to the line before, an
    opening mark down to the line after."""
    out = list(lines)
    for i in range(1, len(out)):
        while out[i] and out[i][0] in NO_START and out[i - 1]:
            out[i - 1], out[i] = out[i - 1] + out[i][0], out[i][1:]
        while out[i - 1] and out[i - 1][-1] in NO_END:
            out[i - 1], out[i] = out[i - 1][:-1], out[i - 1][-1] + out[i]
    return [line for line in out if line]


def _balance(
    words: list[str], font: ImageFont.FreeTypeFont, width: float, spaceless: bool, count: int
) -> list[str] | None:
    """Lines of about equal length: the narrowest width that still gives ``count`` lines."""
    if count < 2:
        return None
    low, high, best = width * 0.5, width, None
    for _ in range(7):
        mid = (low + high) / 2
        lines = _wrap(words, font, mid, spaceless)
        if lines is not None and len(lines) <= count:
            best, high = lines, mid
        else:
            low = mid
    return best


def _extent(font: ImageFont.FreeTypeFont, line: str, height: int) -> tuple[int, int, int, int]:
    """A line's box from its origin: the advance and the line height, widened to its ink (a
    "J" or an italic reaches left of the origin, marks above the ascent)."""
    ink = font.getbbox(line, anchor="la", direction="rtl" if is_rtl(line) else None)
    advance = math.ceil(font.getlength(line, direction="rtl" if is_rtl(line) else None))
    left, top, right, bottom = (math.floor(ink[0]), math.floor(ink[1]), math.ceil(ink[2]), math.ceil(ink[3]))
    return (min(0, left), min(0, top), max(advance, right), max(height, bottom))


def _place(
    text: str,
    *,
    lines: list[str],
    extents: list[tuple[int, int, int, int]],
    font: FontChoice,
    size: int,
    pitch: int,
    span: tuple[int, int],
    area: tuple[int, int, int, int],
    align: str,
    valign: str,
) -> SetText:
    left, top, right, bottom = area
    rtl = is_rtl(text)
    if align == "left" and rtl:
        align = "right"  # right-to-left scripts start on the right
    block_h = span[1] - span[0]
    y0 = (
        top
        if valign == "top"
        else bottom - block_h
        if valign == "bottom"
        else top + (bottom - top - block_h) // 2
    )
    boxes, origins = [], []
    for i, (ex0, ey0, ex1, ey1) in enumerate(extents):
        w = ex1 - ex0
        x = left if align == "left" else right - w if align == "right" else left + ((right - left) - w) // 2
        oy = y0 - span[0] + i * pitch
        origins.append((x - ex0, oy))
        boxes.append((x, oy + ey0, x + w, oy + ey1))
    box = (min(b[0] for b in boxes), y0, max(b[2] for b in boxes), y0 + block_h)
    lines = [line.replace(NBSP, " ") for line in lines]
    return SetText(text, lines, font, size, box, boxes, align, rtl, pitch, origins)


def draw_set(draw, block: SetText, colour: RGB) -> None:
    pil = block.pil_font
    for line, (x, y) in zip(block.lines, block.origins, strict=True):
        draw.text((x, y), line, font=pil, fill=colour, anchor="la", direction="rtl" if block.rtl else None)


# --------------------------------------------------------------------------- contrast


def text_colour(behind: list[RGB], preferred: list[RGB]) -> RGB:
    """The first of ``preferred`` that is AA against every colour in ``behind``, else white or
    near-black, whichever contrasts more with the worst of them."""
    for colour in preferred:
        if all(contrast(colour, b) >= AA for b in behind):
            return colour
    light, dark = (255, 255, 255), (17, 17, 20)
    worst_light = min(contrast(light, b) for b in behind)
    worst_dark = min(contrast(dark, b) for b in behind)
    return light if worst_light >= worst_dark else dark
