"""The local engine's pictures as posts: a designed image when the request carries the post's
text (``ImageRequest.design``), else the abstract composition; each with alt text written from
what was drawn, and a note when the style asked for is one the engine cannot draw."""

from __future__ import annotations

from typing import Any

from PIL import Image

from ..base import ImageRequest, PostDesign, VideoRequest
from ..render_progress import report
from .composer import Design
from .describe import describe, describe_abstract
from .design import compose
from .scene import build_scene, check_size, encode_image, load_reference, normalise_style, render_scene


def style_note(style: str, drawn: str) -> str:
    """The adaptation note for a style the local engine does not draw ("" when it does)."""
    if normalise_style(style) != "photorealistic":
        return ""
    return (
        f'style "photorealistic" needs an image model: the local engine drew {drawn} instead '
        "(set GENERATION_ENGINE to openai, gemini or replicate for photographs)"
    )


def design_for(request: ImageRequest | VideoRequest, design: PostDesign) -> Design:
    """``design`` laid out at the request's size, in its style and with its brand."""
    spec: dict[str, Any] = dict(design.spec)
    if design.fonts:
        spec["fonts"] = list(design.fonts)
    # the photorealistic style is not faked: its abstract backgrounds are the soft render of
    # the same shapes, and the note says what was drawn
    return compose(
        spec,
        request.width,
        request.height,
        platform=design.platform,
        post_type=design.post_type,
        style=normalise_style(request.style),
        seed=request.seed,
        logo=design.logo,
        photo=design.photo,
        brand=request.brand,
        slide=design.slide,
        slides=design.slides,
    )


def make_post_image(request: ImageRequest) -> tuple[bytes, str, str, tuple[str, ...], dict[str, Any] | None]:
    """(data, content type, alt text, notes, design spec) of the request's picture."""
    check_size(request.width, request.height)
    style = normalise_style(request.style)
    report(0, 3)
    if request.design is None:
        scene = build_scene(request.prompt, request.brand, request.seed, load_reference(request.reference))
        report(1, 3)
        img = render_scene(scene, request.width, request.height, style, request.seed)
        report(2, 3)
        data, content_type = encode_image(img, request.format)
        report(3, 3)
        note = style_note(style, "an abstract composition of shapes")
        alt = describe_abstract(request.brand.primary_color, request.brand.secondary_color)
        return data, content_type, alt, ((note,) if note else ()), None
    design = design_for(request, request.design)
    report(1, 3)
    drawn: Image.Image = design.draw()
    report(2, 3)
    data, content_type = encode_image(drawn, request.format)
    report(3, 3)
    template = design.spec.get("template", "announcement")
    note = style_note(style, f"a designed {template} graphic")
    alt = describe(design, request.design.language)
    stored = {
        **{k: v for k, v in design.spec.items() if k != "fonts"},
        "fonts": list(request.design.fonts),
        "platform": request.design.platform,
        "postType": request.design.post_type,
        "language": request.design.language,
        "slide": request.design.slide,
        "slides": request.design.slides,
        "style": style,
        "seed": request.seed,
        "font": design.font,
        # the font file each drawn block was set in, by role (the brand's, or the fallback that
        # covers its script)
        "fontFiles": {b.role: b.set.font.path for b in design.blocks},
        "variant": design.variant,
    }
    return data, content_type, alt, ((note,) if note else ()), stored
