"""The templates' layouts: each draws its decoration on the picture and sets its blocks inside
``area`` (the platform's safe zone below the logo), through the composer, which measures the
type and checks its contrast on the pixels behind it."""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from .composer import Block, Composer, cover
from .contrast import extremes
from .palette import RGB, lighten
from .typeset import contrast, fit_text, font_for, text_colour, truetype

# Each draws its decoration on ``img`` and sets its blocks inside ``area`` (the safe zone
# below the logo).


def _split(
    area: tuple[int, int, int, int], share: float, vertical: bool
) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    x0, t, r, b = area
    if vertical:
        cut = t + round((b - t) * share)
        return (x0, t, r, cut), (x0, cut, r, b)
    cut = x0 + round((r - x0) * share)
    return (x0, t, cut, b), (cut, t, r, b)


def _headline_and_sub(
    c: Composer,
    img: Image.Image,
    spec: dict[str, Any],
    area: tuple[int, int, int, int],
    *,
    preferred: list[RGB],
    align: str = "left",
    size: float = 0.1,
    valign: str = "top",
    panel: RGB | None = None,
) -> None:
    """The headline and, under it, the fact sentence (dropped when it fits nowhere), placed as a
    group at the top, centre or bottom of ``area`` (tall frames centre it)."""
    x0, t, r, b = area
    if c.h / c.w > 1.5 and valign == "top":
        valign = "center"
    gap = round(c.m * 0.035)
    headline, sub = spec.get("headline", ""), spec.get("sub") or ""
    head_floor, sub_size, sub_floor = 0.042, 0.05, 0.03
    head_area = (x0, t, r, b - (round((b - t) * 0.3) if sub else 0))
    head_font = c.font(headline)
    head = (
        fit_text(
            headline,
            head_font,
            head_area,
            max_size=round(c.m * size),
            min_size=max(8, round(c.m * head_floor)),
            balance=True,
        )
        if head_font
        else None
    )
    if not head and sub:
        headline, sub, size = sub, "", size * 0.8  # the fact sentence carries the message alone
        head_font = c.font(headline)
        head = (
            fit_text(
                headline,
                head_font,
                area,
                max_size=round(c.m * size),
                min_size=max(8, round(c.m * head_floor)),
                balance=True,
            )
            if head_font
            else None
        )
    sub_block = None
    if head and sub:
        sub_font = c.font(sub, False)
        sub_block = (
            fit_text(
                sub,
                sub_font,
                (x0, head.box[3] + gap, r, b),
                max_size=round(c.m * sub_size),
                min_size=max(8, round(c.m * sub_floor)),
                max_lines=5,
            )
            if sub_font
            else None
        )
    group = (head.box[3] - head.box[1] if head else 0) + (
        (sub_block.box[3] - head.box[3]) if head and sub_block else 0
    )
    shift = 0 if valign == "top" or not head else ((b - t) - group) // (2 if valign == "center" else 1)
    shift = max(0, shift)
    head_size = head.size if head else round(c.m * size)
    got = c.text(
        img,
        "headline",
        headline,
        (x0, t + shift, r, b),
        size=head_size / c.m,
        floor=head_floor,
        preferred=preferred,
        align=align,
        panel=panel,
    )
    if got is not None and sub_block is not None:
        c.text(
            img,
            "sub",
            sub,
            (x0, got.box[3] + gap, r, b),
            size=sub_block.size / c.m,
            floor=sub_floor,
            preferred=preferred,
            align=align,
            bold=False,
            max_lines=5,
            panel=panel,
        )
    elif sub and got is not None:
        c.dropped.append("sub")


def announcement(
    c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]
) -> None:
    # A colour block over the lower part (the side, when wide) holds the message.
    x0, t, r, b = area
    if c.wide:
        block = (0, 0, round(c.w * 0.56), c.h)
        text_area = (x0, t, block[2] - round(c.w * 0.05), b)
    else:
        top = t + round((b - t) * 0.42)
        block = (0, top - round(c.m * 0.05), c.w, c.h)
        text_area = (x0, top, r, b)
    ImageDraw.Draw(img).rectangle(block, fill=c.dark)
    ImageDraw.Draw(img).rectangle(
        (block[0], block[1], block[2], block[1] + max(4, c.m // 90)), fill=c.secondary
    )
    _headline_and_sub(c, img, spec, text_area, preferred=[(255, 255, 255), c.secondary])


def _offer(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    d = ImageDraw.Draw(img)
    # a lighter band across the corner
    d.polygon([(c.w * 0.55, 0), (c.w, 0), (c.w, c.h * 0.45)], fill=lighten(c.primary, 0.12))
    badge = spec.get("badge") or ""
    text_area, badge_area = _split(area, 0.68 if badge else 1.0, not c.wide)
    _headline_and_sub(c, img, spec, text_area, preferred=[(255, 255, 255), c.light], valign="top")
    if badge:
        bl, bt, br, bb = badge_area
        pad = round(c.m * 0.03)
        inner = (bl + pad, bt + pad, min(br, bl + round((br - bl) * 0.8)) - pad, bb - pad)
        font = c.font(badge)
        if font is None:
            return
        block = fit_text(
            badge,
            font,
            inner,
            max_size=round(c.m * 0.09),
            min_size=max(8, round(c.m * 0.035)),
            max_lines=1,
            valign="center",
        )
        if block is None:
            c.dropped.append("badge")
            return
        bx = (block.box[0] - pad, block.box[1] - pad, block.box[2] + pad, block.box[3] + pad)
        dash = max(2, c.m // 160)
        d.rounded_rectangle(bx, radius=pad, fill=c.secondary, outline=(255, 255, 255), width=dash)
        c.panels.append("badge")
        behind = extremes(img, (block.box[0], block.box[1], block.box[2], block.box[3]))
        colour = text_colour(list(behind), [c.dark, (17, 17, 20)])
        c.blocks.append(
            Block(
                "badge", block, colour, behind, min(contrast(colour, behind[0]), contrast(colour, behind[1]))
            )
        )
        c.fonts.append(font.name)


def _event(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    x0, t, r, b = area
    date = spec.get("date")
    if date:
        side = round(c.m * 0.24)
        box = (x0, t, x0 + side, t + side)
        ImageDraw.Draw(img).rounded_rectangle(box, radius=side // 8, fill=(255, 255, 255))
        c.panels.append("date")
        p = round(side * 0.08)
        inner = (box[0] + p, box[1] + p, box[2] - p, box[3] - p)
        top, mid, bottom = _split3(inner)
        colour = [c.dark, (17, 17, 20)]
        c.text(
            img,
            "date",
            date.get("weekday") or date.get("month", ""),
            top,
            size=0.05,
            floor=0.02,
            preferred=colour,
            align="center",
            max_lines=1,
        )
        c.text(
            img,
            "date",
            date.get("day", ""),
            mid,
            size=0.1,
            floor=0.03,
            preferred=colour,
            align="center",
            valign="center",
            max_lines=1,
        )
        c.text(
            img,
            "date",
            date.get("month", "") if date.get("weekday") else date.get("time", ""),
            bottom,
            size=0.05,
            floor=0.02,
            preferred=colour,
            align="center",
            max_lines=1,
        )
        gap = round(c.m * 0.05)
        area = (box[2] + gap, t, r, b) if c.wide else (x0, box[3] + gap, r, b)
    _headline_and_sub(c, img, spec, area, preferred=[(255, 255, 255), c.light])


def _split3(box: tuple[int, int, int, int]) -> tuple[tuple[int, int, int, int], ...]:
    x0, t, r, b = box
    h = b - t
    return (
        (x0, t, r, t + round(h * 0.27)),
        (x0, t + round(h * 0.25), r, t + round(h * 0.77)),
        (x0, t + round(h * 0.75), r, b),
    )


def _quote(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    x0, t, r, b = area
    d = ImageDraw.Draw(img)
    mark = round(c.m * 0.16)
    quote_font = font_for("\u201c")
    if quote_font is not None:  # the typeface's own opening quotation mark, as decoration
        d.text(
            (x0, t - round(mark * 0.2)),
            "\u201c",
            font=truetype(quote_font.path, round(mark * 1.6)),
            fill=c.primary,
            anchor="la",
        )
    rule_y = b - round(c.m * 0.02)
    d.rectangle((x0, rule_y, x0 + round((r - x0) * 0.25), rule_y + max(3, c.m // 120)), fill=c.primary)
    text_area = (x0, t + round(mark * 0.9), r, rule_y - round(c.m * 0.04))
    _headline_and_sub(c, img, spec, text_area, preferred=[c.dark, (17, 17, 20)], size=0.085, valign="center")


def _product(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    _, t, r, b = area
    frame_area, text_area = _split(area, 0.52 if not c.wide else 0.48, not c.wide)
    fl, ft, fr, fb = frame_area
    gap = round(c.m * 0.04)
    frame = (fl, ft, fr - (gap if c.wide else 0), fb - (0 if c.wide else gap))
    d = ImageDraw.Draw(img)
    border = max(4, c.m // 70)
    d.rounded_rectangle(
        (frame[0] - border, frame[1] - border, frame[2] + border, frame[3] + border),
        radius=border * 3,
        fill=c.primary,
    )
    inner = (frame[2] - frame[0], frame[3] - frame[1])
    if inner[0] > 8 and inner[1] > 8:
        pic = cover(c.photo, inner) if c.photo is not None else c.abstract(inner, c.seed, c.style, c.brand)
        c.framed = (
            "a photo from the brand's library"
            if c.photo is not None
            else "abstract shapes in the brand's colours"
        )
        img.paste(pic, (frame[0], frame[1]))
    if c.wide:
        text_area = (text_area[0] + gap, t, r, b)
    _headline_and_sub(c, img, spec, text_area, preferred=[c.dark, (17, 17, 20)], size=0.085)


def _hiring(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    # A band of the brand's colour holds the call; the role (the fact sentence) sits under it,
    # next to the brand's photo when there is one.
    x0, t, r, b = area
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, c.w, c.h), fill=c.light)
    if c.wide:
        cut = round(c.w * 0.58) if spec.get("sub") else c.w
        d.rectangle((0, 0, cut, c.h), fill=c.primary)
        head_area = (x0, t, (cut - round(c.w * 0.05)) if spec.get("sub") else r, b)
        sub_area = (cut + round(c.w * 0.05), t, r, b)
    else:
        cut = t + round((b - t) * (0.55 if spec.get("sub") else 1.0))
        d.rectangle((0, 0, c.w, cut if spec.get("sub") else c.h), fill=c.primary)
        if spec.get("sub"):
            d.rectangle((0, cut, c.w, cut + max(4, c.m // 80)), fill=c.secondary)
        head_area, sub_area = (x0, t, r, cut - round(c.m * 0.05)), (x0, cut + round(c.m * 0.06), r, b)
    c.text(
        img,
        "headline",
        spec.get("headline", ""),
        head_area,
        size=0.11,
        floor=0.042,
        preferred=[(255, 255, 255), c.light],
        valign="bottom" if spec.get("sub") and not c.wide else "center",
    )
    if spec.get("sub"):
        c.text(
            img,
            "sub",
            spec["sub"],
            sub_area,
            size=0.055,
            floor=0.03,
            preferred=[c.dark, (17, 17, 20)],
            bold=False,
            valign="center" if c.wide else "top",
        )


def _recipe(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    steps = spec.get("steps") or []
    head_area, steps_area = _split(area, 0.34 if steps else 1.0, not c.wide)
    head = c.text(
        img,
        "headline",
        spec.get("headline", ""),
        head_area,
        size=0.085,
        floor=0.04,
        preferred=[c.dark, (17, 17, 20)],
    )
    if not steps:
        return
    sl, st, sr, sb = steps_area
    if c.wide:
        sl += round(c.m * 0.05)
    elif head is not None:
        st = head.box[3] + round(c.m * 0.04)
    d = ImageDraw.Draw(img)
    each = (sb - st) // len(steps)
    dot = round(min(each * 0.7, c.m * 0.075))
    for n, step in enumerate(steps, start=1):
        y = st + (n - 1) * each
        d.ellipse((sl, y, sl + dot, y + dot), fill=c.primary)
        c.panels.append("step")
        inset = round(dot * 0.2)
        c.text(
            img,
            "step",
            str(n),
            (sl + inset, y + inset, sl + dot - inset, y + dot - inset),
            size=dot / c.m * 0.55,
            floor=0.012,
            preferred=[(255, 255, 255), (17, 17, 20)],
            align="center",
            valign="center",
            max_lines=1,
            pad=0,
        )
        c.text(
            img,
            "step",
            step,
            (sl + dot + round(c.m * 0.03), y, sr, y + each - round(c.m * 0.015)),
            size=0.045,
            floor=0.026,
            preferred=[(17, 17, 20)],
            bold=False,
            max_lines=4,
        )


def _notice(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    x0, t, r, b = area
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, c.w, max(6, c.m // 60)), fill=c.primary)
    _headline_and_sub(
        c,
        img,
        spec,
        (x0, t + round(c.m * 0.03), r, b),
        preferred=[(17, 17, 20)],
        size=0.095 if c.wide else 0.075,
        valign="center",
    )


def _closing(c: Composer, img: Image.Image, spec: dict[str, Any], area: tuple[int, int, int, int]) -> None:
    x0, t, r, b = area
    texts = [x for x in (spec.get("cta"), spec.get("brandName")) if x]
    if not texts:
        texts = [spec.get("headline", "")]
    c.text(
        img,
        "cta",
        texts[0],
        (x0, t, r, b - round((b - t) * 0.3)),
        size=0.085,
        floor=0.04,
        preferred=[(255, 255, 255), c.light],
        align="center",
        valign="center",
    )
    if len(texts) > 1:
        c.text(
            img,
            "brand",
            texts[1],
            (x0, b - round((b - t) * 0.25), r, b),
            size=0.05,
            floor=0.03,
            preferred=[(255, 255, 255), c.light],
            align="center",
            valign="center",
            max_lines=2,
        )


def carousel_slide(
    c: Composer,
    img: Image.Image,
    spec: dict[str, Any],
    area: tuple[int, int, int, int],
    slide: int,
    slides: int,
) -> None:
    """A carousel slide: the first is the template itself, then one fact per slide, the last
    the call to action; each carries its number ("2/5")."""
    ideas = [spec.get("headline", ""), *[f for f in [spec.get("sub", ""), *spec.get("more", [])] if f]]
    if spec.get("cta"):
        ideas.append(spec["cta"])
    x0, t, r, b = area
    counter_h = round(c.m * 0.07)
    counter_area = (x0, b - counter_h, r, b)
    if slide == 0:
        LAYOUTS.get(spec.get("template", ""), announcement)(
            c, img, {**spec, "sub": ""}, (x0, t, r, b - counter_h)
        )
    else:
        text = ideas[min(slide, len(ideas) - 1)]
        d = ImageDraw.Draw(img)
        d.rectangle((0, 0, c.w, c.h), fill=c.dark if slide % 2 else c.light)
        d.rectangle((x0, t, x0 + round(c.m * 0.12), t + max(4, c.m // 90)), fill=c.secondary)
        pref = [(255, 255, 255), c.light] if slide % 2 else [c.dark, (17, 17, 20)]
        c.text(
            img,
            "headline",
            text,
            (x0, t + round(c.m * 0.05), r, b - counter_h),
            size=0.085,
            floor=0.04,
            preferred=pref,
            valign="center",
        )
    pref = [(255, 255, 255), (17, 17, 20)]
    c.text(
        img,
        "counter",
        f"{slide + 1}/{slides}",
        counter_area,
        size=0.04,
        floor=0.02,
        preferred=pref,
        align="right",
        valign="bottom",
        max_lines=1,
    )


LAYOUTS = {
    "announcement": announcement,
    "offer": _offer,
    "event": _event,
    "quote": _quote,
    "product": _product,
    "hiring": _hiring,
    "recipe": _recipe,
    "notice": _notice,
    "closing": _closing,
}
