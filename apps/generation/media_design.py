"""What a generation's pictures carry once its text is written: the design of the post (its
hook and fact sentences, never invented text), the brand's logo, photo and fonts, the carousel
slide, and the brand's music setting; and, after the media exist, the alt text and the notes the
content shows (a style the engine could not draw).

Engines that draw designs (the local one) read ``request.design``; provider engines ignore it
and get a picture description (``visual_prompt``)."""

from __future__ import annotations

import dataclasses
import re

from apps.content.models import Content, GenerationMode
from apps.core import ids
from apps.media.fonts import font_file
from apps.media.models import Kind, MediaAsset
from apps.platforms import rules as platform_rules
from apps.platforms.facts import language_code, split_sentences

from .base import ImageRequest, ImageResult, PostDesign, TextRequest, TextResult, VideoRequest, VideoResult
from .local_media.brief import spec_from_text
from .local_words.brief import author_sentences
from .visual_prompt import alt_from_prompt, visual_description

CAROUSEL_PLATFORMS = frozenset({"instagram", "facebook", "linkedin", "x", "threads", "bluesky", "tiktok"})


def _read(asset: MediaAsset | None) -> bytes | None:
    if asset is None or asset.media_type != "image" or not asset.file:
        return None
    try:
        with asset.file.open("rb") as fh:
            return fh.read()
    except OSError:
        return None


def brand_logo(content: Content) -> bytes | None:
    brand = content.brand
    return _read(brand.logo) if brand is not None and brand.logo_id else None


def brand_photo(content: Content) -> bytes | None:
    """The brand's own picture for the design: the content's source image, else the brand's
    latest reference image, else its latest brand asset."""
    if content.source_media_id:
        data = _read(content.source_media)
        if data:
            return data
    if content.brand_id is None:
        return None
    for kind in (Kind.REFERENCE, Kind.ASSET):
        asset = (
            MediaAsset.objects.filter(brand_id=content.brand_id, kind=kind, media_type="image")
            .order_by("-created_at")
            .first()
        )
        data = _read(asset)
        if data:
            return data
    return None


def brand_fonts(brand: object) -> tuple[str, ...]:
    """The brand's fonts for the design, headline font first, then body (issue 30): each entry of
    its ``fonts`` setting (Family A ``assets.fonts``) that names one of its uploaded fonts (by
    asset id ``ast_…``/uuid, or by the uploaded font's family name) becomes that file's path;
    other entries stay family names installed on the server. The uploaded fonts the setting does
    not name follow, oldest first, so a brand that uploads one font and sets nothing has it for
    every text."""
    brand_pk = getattr(brand, "pk", None)
    if brand_pk is None:
        return ()
    uploaded = list(MediaAsset.objects.filter(brand_id=brand_pk, kind=Kind.FONT).order_by("created_at"))
    by_id = {str(a.pk): a for a in uploaded}
    by_family = {str(((a.metadata or {}).get("font") or {}).get("family", "")).lower(): a for a in uploaded}
    out: list[str] = []
    used: set[str] = set()
    for entry in (str(f).strip() for f in (getattr(brand, "fonts", None) or []) if f):
        pk = ids.parse(entry, "asset")
        asset = by_id.get(str(pk)) if pk else by_family.get(entry.lower())
        if asset is None:
            out.append(entry)
            continue
        path = font_file(asset)
        if path and str(asset.pk) not in used:
            out.append(path)
            used.add(str(asset.pk))
    for asset in uploaded:
        if str(asset.pk) not in used:
            path = font_file(asset)
            if path:
                out.append(path)
    return tuple(out)


def hook_of(caption: str, language: str = "en") -> str:
    """The caption's hook: the first sentence of its first paragraph. A short platform's post
    (X, Threads, Bluesky) is one paragraph, hook and facts together: the whole of it would be
    set as the headline with its first fact again under it."""
    paragraph = (caption or "").strip().split("\n\n", 1)[0].strip()
    sentences = split_sentences(paragraph, language)
    return sentences[0].strip() if sentences else paragraph


def cta_of(caption: str) -> str:
    """The caption's call to action: its last short paragraph that is not the hook, a link, a
    list or hashtags ("" when there is none)."""
    paragraphs = [p.strip() for p in (caption or "").split("\n\n") if p.strip()]
    for paragraph in reversed(paragraphs[1:]):
        if len(paragraph) <= 90 and not re.search(r"https?://|#\w|^•", paragraph):
            return paragraph
    return ""


#: the picture's layout for what the text was written for (``apps.platforms.intents.INTENTS``)
INTENT_TEMPLATES = {
    "recall": "notice",
    "apology": "notice",
    "incident": "notice",
    "hiring": "hiring",
    "recipe": "recipe",
    "offer": "offer",
    "event": "event",
    "release": "product",
    "launch": "product",
    "tip": "quote",
    "opening": "announcement",
    "podcast": "announcement",
    "fundraiser": "announcement",
    "announcement": "announcement",
}


def with_design(
    content: Content, requests: list[ImageRequest | VideoRequest], text: TextResult, text_request: TextRequest
) -> list[ImageRequest | VideoRequest]:
    """``requests`` carrying the design of the post written as ``text`` (for ``text_request``'s
    intent: the picture and the words say the same thing)."""
    if not requests:
        return requests
    brand = requests[0].brand
    language = language_code(text_request.language)
    spec = spec_from_text(
        prompt=content.prompt,
        hook=hook_of(text.caption, language),
        facts=author_sentences(content.prompt, language, brand.dont),
        cta=cta_of(text.caption),
        brand=brand,
        template=INTENT_TEMPLATES.get(text_request.intent, ""),
        background=str(content.media_request.get("background") or "auto"),
        language=language,
        intent=text_request.intent,  # a set intent: the picture says what the words were written for
    )
    logo, photo = brand_logo(content), brand_photo(content)
    if photo is None and content.generation_mode == GenerationMode.REFERENCE:
        photo = requests[0].reference
    fonts = brand_fonts(content.brand)
    music = bool((getattr(content.brand, "settings", None) or {}).get("videoMusic", True))
    # one render per ratio (steps.picture_targets): a carousel's slides are counted per ratio,
    # and each render follows the safe zones of the platform it was made for
    groups: dict[str, list[int]] = {}
    for n, request in enumerate(requests):
        if isinstance(request, ImageRequest):
            groups.setdefault(request.ratio, []).append(n)
    out: list[ImageRequest | VideoRequest] = []
    for n, request in enumerate(requests):
        platform = getattr(request, "platform", "") or content.platforms[0]
        group = groups.get(request.ratio, []) if isinstance(request, ImageRequest) else []
        carousel = len(group) > 1 and platform in CAROUSEL_PLATFORMS
        design = PostDesign(
            spec=spec,
            platform=platform,
            # the post type this platform publishes it as (an X "story" is a feed post)
            post_type=platform_rules.resolve_post_type(platform, content.post_type, content.media_type),
            language=language,
            logo=logo,
            photo=photo,
            fonts=fonts,
            slide=group.index(n) if carousel else 0,
            slides=len(group) if carousel else 1,
            music=music,
        )
        out.append(dataclasses.replace(request, design=design))
    return out


def media_alt(result: ImageResult | VideoResult, request: ImageRequest | VideoRequest) -> str:
    """The alt text of a picture made: what the engine drew, or, for a provider's picture, what
    its final prompt asked for."""
    if result.alt_text:
        return result.alt_text
    return alt_from_prompt(visual_description(request))


def media_notes(result: ImageResult | VideoResult) -> list[str]:
    return list(result.notes)
