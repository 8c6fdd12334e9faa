"""Designed posts with a message hierarchy (``message.Message``): a kicker, a hero in large type,
a subline, chips for the facts that must not break (price, code, date, time, place, phone), a
call-to-action pill and something to look at (the brand's own picture cropped around its
subject, or an icon of the brief's noun), in three layouts per intent chosen by the seed:

- ``panel``: the message on the brand's dark colour, the picture or icon in a panel beside it
  (under it in a tall frame);
- ``light``: the message on the brand's light colour, a large icon or picture in a corner;
- ``type``: an oversized typographic treatment (the number, the price, the date) on the
  brand's colour, the rest under it.

Sober intents (recall, apology, incident, closure) get sober versions: white or light grounds,
a warning band, no festive colour. Every text block goes through the composer, which measures
its contrast on the pixels behind it."""

from __future__ import annotations

import dataclasses
from typing import Any

from PIL import Image, ImageDraw

from .composer import Block, Composer
from .contrast import AA, contrast, extremes
from .crop import subject_crop
from .icons import icon_image
from .palette import RGB, darken, lighten, mix
from .typeset import SetText, fit_text, text_colour

VARIANTS = ("panel", "light", "type")
SOBER = frozenset({"recall", "apology", "incident", "closure"})
WHITE: RGB = (255, 255, 255)
INK: RGB = (17, 17, 20)


def variant_for(seed: int, intent: str) -> str:
    return VARIANTS[seed % len(VARIANTS)]


def _upper(text: str) -> str:
    return text.upper() if text.isascii() or any("a" <= ch.lower() <= "z" for ch in text) else text


class _Stack:
    """Blocks set one under the other inside ``area``; ``fits`` says whether all did."""

    def __init__(self, c: Composer, img: Image.Image, area: tuple[int, int, int, int], align: str = "left"):
        self.c, self.img, self.area, self.align = c, img, area, align
        self.y = area[1]

    def gap(self, share: float) -> None:
        self.y += round(self.c.m * share)


def _fit(
    c: Composer,
    text: str,
    area: tuple[int, int, int, int],
    size: float,
    floor: float,
    *,
    lines: int,
    bold: bool,
) -> SetText | None:
    font = c.font(text, bold)
    if font is None:
        return None
    return fit_text(
        text,
        font,
        area,
        max_size=max(8, round(c.m * size)),
        min_size=max(8, round(c.m * floor)),
        max_lines=lines,
        balance=lines > 1,
    )


def _set_block(
    c: Composer, img: Image.Image, role: str, block: SetText, preferred: list[RGB], pad: int | None = None
) -> None:
    pad = max(2, round(block.size * 0.12)) if pad is None else pad
    box = (block.box[0] - pad, block.box[1] - pad, block.box[2] + pad, block.box[3] + pad)
    behind = extremes(img, box)
    colour = text_colour(list(behind), preferred)
    ratio = min(contrast(colour, behind[0]), contrast(colour, behind[1]))
    if ratio < AA:  # no colour reads here: a panel behind the text
        panel = c.dark if colour == WHITE else WHITE
        big = max(pad, round(block.size * 0.35))
        ImageDraw.Draw(img).rounded_rectangle(
            (block.box[0] - big, block.box[1] - big, block.box[2] + big, block.box[3] + big),
            radius=big,
            fill=panel,
        )
        c.panels.append(role)
        behind = extremes(img, box)
        colour = text_colour(list(behind), preferred)
        ratio = min(contrast(colour, behind[0]), contrast(colour, behind[1]))
    c.blocks.append(Block(role, block, colour, behind, ratio))
    c.fonts.append(block.font.name)


def _shift(block: SetText, dx: int, dy: int) -> SetText:
    return dataclasses.replace(
        block,
        box=(block.box[0] + dx, block.box[1] + dy, block.box[2] + dx, block.box[3] + dy),
        line_boxes=[(a + dx, b + dy, cc + dx, d + dy) for a, b, cc, d in block.line_boxes],
        origins=[(x + dx, y + dy) for x, y in block.origins],
    )


def _pill(
    c: Composer,
    img: Image.Image,
    role: str,
    text: str,
    at: tuple[int, int],
    right: int,
    *,
    size: float,
    fill: RGB,
    outline: RGB | None = None,
    text_pref: list[RGB],
    draw: bool = True,
) -> tuple[int, int, int, int] | None:
    """A one-line rounded pill holding ``text`` (never broken) from ``at``; its box, or None
    when it does not fit before ``right``."""
    pad_x, pad_y = round(c.m * size * 0.55), round(c.m * size * 0.32)
    x, y = at
    block = _fit(
        c,
        text,
        (x + pad_x, y + pad_y, right - pad_x, y + pad_y + round(c.m * size * 1.5)),
        size,
        size * 0.7,
        lines=1,
        bold=True,
    )
    if block is None:
        return None
    h = block.box[3] - block.box[1]
    box = (x, y, block.box[2] + pad_x, y + h + 2 * pad_y)
    if not draw:
        return box
    # the plate is measured under the text but kept with the block (drawn with its text), not
    # painted on the base: a video never shows an empty chip
    radius = (box[3] - box[1]) // 2
    block = _shift(block, 0, (y + pad_y) - block.box[1])
    probe = img.crop(box)
    ImageDraw.Draw(probe).rounded_rectangle(
        (0, 0, box[2] - box[0] - 1, box[3] - box[1] - 1), radius=radius, fill=fill, outline=outline
    )
    c.panels.append(role)
    _set_block(c, probe, role, _shift(block, -box[0], -box[1]), text_pref, pad=0)
    c.blocks[-1] = dataclasses.replace(c.blocks[-1], set=block, plate=(box, radius, fill))
    return box


def _message_stack(
    c: Composer,
    img: Image.Image,
    msg: dict[str, Any],
    area: tuple[int, int, int, int],
    *,
    on: RGB,
    accent: RGB,
    hero_size: float = 0.12,
    big: bool = False,
    valign: str = "center",
    retry: bool = False,
) -> int | None:
    """Kicker, hero, subline, chips and call to action stacked in ``area`` on ground ``on``; the
    bottom of what was set, None when nothing fits (with ``retry`` nothing is noted as dropped:
    the caller tries a larger area)."""
    t, b = area[1], area[3]
    light_ground = contrast(on, INK) > contrast(on, WHITE)
    ink = [c.dark, INK] if light_ground else [WHITE, c.light]
    kicker_pref = [accent, *ink] if contrast(accent, on) >= AA else ink
    chip_fill = lighten(accent, 0.75) if light_ground else darken(on, 0.35)
    cta_fill = accent if contrast(accent, on) >= 1.6 else (c.dark if light_ground else WHITE)
    cta_pref = [WHITE, INK] if contrast(cta_fill, WHITE) >= AA else [INK, c.dark]

    chips = list(msg.get("chips") or [])
    tries = [
        msg,
        {**msg, "sub": ""},
        {**msg, "sub": "", "chips": chips[:3]},
        {**msg, "sub": "", "chips": chips[:2]},
    ]
    plan = None
    for attempt in tries:
        for scale, oversized in [(k, big) for k in (1.0, 0.85, 0.7)] + [
            (k, False) for k in (0.85, 0.7, 0.58)
        ]:
            plan = _plan(c, attempt, area, hero_size * scale, oversized, scale)
            if plan is not None:
                break
        if plan is not None:
            break
        plan = _plan(c, attempt, area, hero_size * 0.5, False, 0.5)
        if plan is not None:
            break
    if plan is None:
        if not retry:
            c.dropped.append("headline")
        return None
    c.dropped += [r for r in ("sub",) if msg.get(r) and not any(role == r for role, _ in plan["texts"])]
    height = plan["bottom"] - t
    dy = 0 if valign == "top" else max(0, ((b - t) - height) // (2 if valign == "center" else 1))
    for role, block in plan["texts"]:
        pref = (
            kicker_pref
            if role == "kicker"
            else [accent, *ink]
            if role == "big" and contrast(accent, on) >= AA
            else ink
        )
        _set_block(c, img, role, _shift(block, 0, dy), pref)
    for role, text, (px, py), right in plan["pills"]:
        if role == "cta":
            _pill(
                c,
                img,
                "cta",
                text,
                (px, py + dy),
                right,
                size=plan["pill"],
                fill=cta_fill,
                text_pref=cta_pref,
            )
        else:
            _pill(
                c,
                img,
                "chip",
                text,
                (px, py + dy),
                right,
                size=plan["chip"],
                fill=chip_fill,
                text_pref=ink,
            )
    return int(plan["bottom"]) + dy


def _plan_chips(
    c: Composer, chips: list[str], at: tuple[int, int, int], chip: float
) -> tuple[list[tuple[str, str, tuple[int, int], int]], int] | None:
    """Where the chips go, in rows from ``at`` (left, top, right); with the top under them."""
    x0, y, r = at
    pills: list[tuple[str, str, tuple[int, int], int]] = []
    x = x0
    row_h = 0
    for text in chips:
        box = _pill(
            c,
            Image.new("RGB", (1, 1)),
            "chip",
            text,
            (x, y),
            r,
            size=chip,
            fill=WHITE,
            text_pref=[INK],
            draw=False,
        )
        if box is None or box[2] > r:
            x, y = x0, y + row_h + round(c.m * 0.018)
            box = _pill(
                c,
                Image.new("RGB", (1, 1)),
                "chip",
                text,
                (x, y),
                r,
                size=chip,
                fill=WHITE,
                text_pref=[INK],
                draw=False,
            )
            if box is None:
                return None
        pills.append(("chip", text, (x, y), r))
        row_h = box[3] - box[1]
        x = box[2] + round(c.m * 0.018)
    if pills:
        y += row_h + round(c.m * 0.03)
    return pills, y


def _plan(
    c: Composer,
    msg: dict[str, Any],
    area: tuple[int, int, int, int],
    hero_size: float,
    big: bool,
    scale: float,
) -> dict[str, Any] | None:
    x0, t, r, b = area
    y = t
    texts: list[tuple[str, SetText]] = []
    pills: list[tuple[str, str, tuple[int, int], int]] = []
    kicker = msg.get("kicker") or ""
    if kicker:
        # never under its floor: a size under the floor fits nothing, and a smaller scale tried
        # for a long hero then dropped the whole message (an empty picture)
        k = _fit(c, _upper(kicker), (x0, y, r, b), max(0.042 * scale, 0.026), 0.026, lines=2, bold=True)
        if k is None:
            return None
        texts.append(("kicker", k))
        y = k.box[3] + round(c.m * 0.025 * scale)
    if big and msg.get("big"):
        g = _fit(c, msg["big"], (x0, y, r, b), 0.3 * scale, 0.1 * scale, lines=1, bold=True)
        if g is not None:
            texts.append(("big", g))
            y = g.box[3] + round(c.m * 0.02)
    hero = msg.get("hero") or ""
    if (
        big
        and msg.get("big")
        and texts
        and texts[-1][0] == "big"
        and hero.casefold().startswith(msg["big"].casefold())
    ):
        hero = hero[len(msg["big"]) :].strip() or hero  # "20% off" oversized, "whitening" under it
    quote = bool(msg.get("quote"))
    lines = 7 if quote or len(hero.split()) > 8 else 3
    hs = hero_size * (0.62 if quote and len(hero) > 60 else 1.0)
    h = _fit(c, hero, (x0, y, r, b), hs, min(hs, 0.05 if not quote else 0.034), lines=lines, bold=True)
    if h is None:
        return None
    texts.append(("headline", h))
    y = h.box[3] + round(c.m * 0.03 * scale)
    sub = msg.get("sub") or ""
    if sub:
        s = _fit(c, sub, (x0, y, r, b), max(0.046 * scale, 0.03), 0.03, lines=3, bold=False)
        if s is None:
            return None
        texts.append(("sub", s))
        y = s.box[3] + round(c.m * 0.035 * scale)
    chip = 0.036 * max(scale, 0.8)
    placed = _plan_chips(c, list(msg.get("chips") or []), (x0, y, r), chip)
    if placed is None:
        return None
    chip_pills, y = placed
    pills += chip_pills
    cta = msg.get("cta") or ""
    pill = 0.04 * max(scale, 0.8)
    if cta:
        box = _pill(
            c,
            Image.new("RGB", (1, 1)),
            "cta",
            cta,
            (x0, y),
            r,
            size=pill,
            fill=WHITE,
            text_pref=[INK],
            draw=False,
        )
        if box is None:
            return None
        pills.append(("cta", cta, (x0, y), r))
        y = box[3]
    if y > b:
        return None
    return {"texts": texts, "pills": pills, "bottom": y, "chip": chip, "pill": pill}


# --------------------------------------------------------------------------- the picture


def _visual(
    c: Composer,
    img: Image.Image,
    box: tuple[int, int, int, int],
    msg: dict[str, Any],
    *,
    ground: RGB,
    ink: RGB,
) -> str:
    """The brand's picture cropped around its subject into ``box``, else the brief's icon on a
    disc; what was drawn, in words."""
    w, h = box[2] - box[0], box[3] - box[1]
    if w < 16 or h < 16:
        return ""
    if c.photo is not None:
        img.paste(subject_crop(c.photo, (w, h)), (box[0], box[1]))
        c.framed = "a photo from the brand's library"
        return c.framed
    if c.abstract_visual:  # the one background style that keeps the abstract shapes
        img.paste(c.abstract((w, h), c.seed, c.style, c.brand), (box[0], box[1]))
        c.framed = "abstract shapes in the brand's colours"
        return c.framed
    side = min(w, h)
    disc = round(side * 0.86)
    cx, cy = box[0] + w // 2, box[1] + h // 2
    d = ImageDraw.Draw(img)
    d.ellipse((cx - disc // 2, cy - disc // 2, cx + disc // 2, cy + disc // 2), fill=ground)
    icon = icon_image(msg.get("icon") or "megaphone", round(disc * 0.56), ink, 1.6)
    img.paste(icon, (cx - icon.width // 2, cy - icon.height // 2), icon)
    c.framed = f"an icon ({(msg.get('icon') or 'megaphone').replace('-', ' ')})"
    return c.framed


def _sober(
    c: Composer, img: Image.Image, msg: dict[str, Any], area: tuple[int, int, int, int], variant: str
) -> None:
    """Recalls, apologies, incidents and closures: calm grounds, no festive colour."""
    intent = msg.get("intent", "")
    x0, t, r, b = area
    d = ImageDraw.Draw(img)
    gap = round(c.m * 0.05)
    # calm grounds, no festive colour: white with a tinted header, a light tint, or the
    # brand's darkest shade; a recall's band is red
    ground = {"panel": WHITE, "light": lighten(c.secondary, 0.9), "type": c.dark}[variant]
    d.rectangle((0, 0, c.w, c.h), fill=ground)
    band = max(8, round(c.m * 0.022))
    warn = (196, 40, 40) if intent == "recall" else c.primary
    d.rectangle((0, 0, c.w, band), fill=warn)
    on_dark = variant == "type"
    accent = (
        (c.light if contrast(c.light, ground) >= AA else WHITE)
        if on_dark
        else warn
        if contrast(warn, ground) >= AA
        else c.dark
    )
    side = round(c.m * (0.2 if variant == "panel" else 0.16))
    if variant == "panel":
        head = t + side + gap // 2
        d.rectangle((0, band, c.w, head), fill=lighten(warn, 0.88))
        d.rectangle((0, head, c.w, head + max(3, c.m // 160)), fill=warn)
        _visual(c, img, (r - side, t, r, t + side), msg, ground=WHITE, ink=warn)
        text_area = (x0, head + gap, r, b)
    else:
        _visual(
            c,
            img,
            (r - side, t, r, t + side),
            msg,
            ground=lighten(accent, 0.88) if not on_dark else darken(c.dark, 0.3),
            ink=accent,
        )
        text_area = (x0, t + side + gap // 2, r, b) if not c.wide else (x0, t, r - side - gap, b)
    _message_stack(
        c,
        img,
        msg,
        text_area,
        on=ground,
        accent=accent,
        hero_size=0.1,
        valign="top" if variant == "panel" else "center",
    )


def poster(
    c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int], variant: str
) -> None:
    # the headline and subline are the message's hero and subline unless edited on their layers
    msg = {
        **spec["message"],
        "hero": spec.get("headline") or spec["message"].get("hero", ""),
        "sub": spec.get("sub", ""),
    }
    intent = msg.get("intent", "announcement")
    x0, t, r, b = area
    d = ImageDraw.Draw(img)
    sober = intent in SOBER
    tall = c.h / c.w > 1.3
    hero = 0.15 if c.h / c.w > 1.6 else 0.12  # a story's hero fills its width, not a feed's share
    gap = round(c.m * 0.05)
    if sober:
        _sober(c, img, msg, area, variant)
        return

    if variant == "panel":
        ground = c.dark
        d.rectangle((0, 0, c.w, c.h), fill=ground)
        if c.wide:
            split = round(c.w * 0.6)
            d.rectangle((split, 0, c.w, c.h), fill=c.light)
            _visual(c, img, (split + gap, t, r, b), msg, ground=lighten(c.secondary, 0.5), ink=c.dark)
            text_area = (x0, t, split - gap, b)
        else:
            # a 9:16 frame's picture goes in the lower canvas the app covers with its caption
            # (only text must stay out of it); a feed's takes the lower third of its safe area
            cut = b + gap // 2 if c.h / c.w > 1.6 else b - round((b - t) * 0.3)
            low = c.h - gap if c.h / c.w > 1.6 else b
            d.rectangle((0, cut, c.w, c.h), fill=c.light)
            d.rectangle((0, cut, c.w, cut + max(4, c.m // 90)), fill=c.secondary)
            _visual(c, img, (x0, cut + gap, r, low), msg, ground=lighten(c.secondary, 0.5), ink=c.dark)
            text_area = (x0, t, r, min(b, cut - gap))
        _message_stack(c, img, msg, text_area, on=ground, accent=c.secondary, hero_size=hero)
    elif variant == "light":
        ground = c.light
        d.rectangle((0, 0, c.w, c.h), fill=ground)
        side = round(c.m * (0.34 if c.wide else 0.3))
        text_area = (x0, t, r - side - gap, b) if c.wide else (x0, t, r, b - side - gap // 2)
        valign = "top" if not tall else "center"
        bottom = _message_stack(
            c, img, msg, text_area, on=ground, accent=c.primary, valign=valign, retry=True, hero_size=hero
        )
        if bottom is None:  # the message needs the whole area: the icon goes where space is left
            bottom = _message_stack(
                c, img, msg, area, on=ground, accent=c.primary, valign="top", hero_size=hero
            )
            side = min(side, (b - (bottom or b)) - gap // 2)
        if side >= round(c.m * 0.12):
            _visual(c, img, (r - side, b - side, r, b), msg, ground=lighten(c.primary, 0.8), ink=c.primary)
    else:  # type
        ground = c.primary
        d.rectangle((0, 0, c.w, c.h), fill=ground)
        d.ellipse(
            (round(c.w * 0.62), round(-c.h * 0.18), round(c.w * 1.25), round(c.h * 0.36)),
            fill=mix(c.primary, c.secondary, 0.25),
        )
        side = round(c.m * 0.16)
        _visual(c, img, (r - side, t, r, t + side), msg, ground=c.light, ink=c.primary)
        text_area = (x0, t + side + gap // 2, r, b) if not c.wide else (x0, t, r - side - gap, b)
        on = ground
        accent = (
            c.secondary
            if contrast(c.secondary, on) >= AA
            else (WHITE if contrast(WHITE, on) > contrast(INK, on) else INK)
        )
        _message_stack(c, img, msg, text_area, on=on, accent=accent, big=True, hero_size=hero)


def steps_slide(
    c: Composer,
    img: Image.Image,
    spec: dict[str, Any],
    area: tuple[int, int, int, int],
    steps: list[tuple[int, str]],
) -> None:
    """A carousel slide of numbered steps (each number drawn once, in its disc)."""
    x0, t, r, b = area
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, c.w, c.h), fill=c.light)
    each = (b - t) // max(1, len(steps))
    dot = round(min(each * 0.6, c.m * 0.09))
    for k, (n, step) in enumerate(steps):
        y = t + k * each
        d.ellipse((x0, y, x0 + dot, y + dot), fill=c.primary)
        c.panels.append("step")
        num = _fit(
            c,
            str(n),
            (x0 + dot // 5, y + dot // 5, x0 + dot - dot // 5, y + dot - dot // 5),
            dot / c.m * 0.5,
            0.012,
            lines=1,
            bold=True,
        )
        if num is not None:
            cx = x0 + dot // 2 - (num.box[2] - num.box[0]) // 2 - num.box[0]
            cy = y + dot // 2 - (num.box[3] - num.box[1]) // 2 - num.box[1]
            _set_block(c, img, "step", _shift(num, cx, cy), [WHITE, INK])
        block = _fit(
            c,
            step,
            (x0 + dot + round(c.m * 0.03), y, r, y + each - round(c.m * 0.02)),
            0.05,
            0.026,
            lines=5,
            bold=False,
        )
        if block is None:
            c.dropped.append("step")
            continue
        _set_block(c, img, "step", block, [c.dark, INK])
