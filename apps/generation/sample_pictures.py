"""The pictures of docs/samples.md: for each sample, the designed image the local engine makes
from the post's own text (Instagram's 4:5 feed, the brand's colours), its alt text, and for the
first sample a strip of frames from its 6 s 9:16 video. Written next to samples.md in
``docs/samples/`` by ``manage.py write_samples``."""

from __future__ import annotations

import io
from pathlib import Path

from django.conf import settings
from PIL import Image, ImageDraw

from apps.platforms.facts import detect_intent, language_code

from .base import BrandVoice, ImageRequest, PostDesign, TextRequest, VideoRequest
from .local import LocalEngine
from .local_media.brief import spec_from_text
from .local_words import make_text
from .local_words.brief import author_sentences
from .media_design import INTENT_TEMPLATES, cta_of, hook_of

#: a palette per sample brand, as a brand would set it (the samples have no brand colours)
PALETTES = (
    ("#6B3E26", "#F2D0A4"),
    ("#2E6B5E", "#F4B860"),
    ("#1F2A44", "#5BC0EB"),
    ("#7A1F3D", "#F7C59F"),
    ("#3D5A80", "#EE6C4D"),
    ("#2D6A4F", "#FFD166"),
    ("#22223B", "#C9ADA7"),
    ("#9C2C2C", "#F4E1C1"),
    ("#264653", "#E9C46A"),
    ("#5C4033", "#A3C4BC"),
)


def sample_logo(name: str, colour: str) -> bytes:
    """A simple logo for a sample brand: a disc with the brand's initial."""
    from .local_media.typeset import FONT_DIR, truetype

    img = Image.new("RGBA", (160, 160), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((0, 0, 159, 159), fill=colour)
    font = truetype(str(FONT_DIR / "NotoSans-Bold.ttf"), 96)
    d.text((80, 84), (name or "B")[:1].upper(), font=font, fill=(255, 255, 255), anchor="mm")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _design(sample, n: int, platform: str, post_type: str, media: str) -> tuple[PostDesign, BrandVoice]:
    primary, secondary = PALETTES[(n - 1) % len(PALETTES)]
    name = sample.brand.name or f"Sample {n}"
    brand = BrandVoice(
        **{**sample.brand.__dict__, "name": name, "primary_color": primary, "secondary_color": secondary}
    )
    language = language_code(sample.language)
    intent = detect_intent(sample.prompt, language)
    text = make_text(
        TextRequest(
            prompt=sample.prompt,
            platform=platform,
            post_type=post_type,
            media_type=media,
            tone=sample.tone,
            length=sample.length,
            hashtag_count=sample.hashtag_count,
            include_emojis=sample.include_emojis,
            language=sample.language,
            brand=brand,
            intent=intent,
        )
    )
    spec = spec_from_text(
        prompt=sample.prompt,
        hook=hook_of(text.caption),
        facts=author_sentences(sample.prompt, language, brand.dont),
        cta=cta_of(text.caption),
        brand=brand,
        template=INTENT_TEMPLATES.get(intent, ""),
    )
    design = PostDesign(
        spec=spec,
        platform=platform,
        post_type=post_type,
        language=language,
        logo=sample_logo(name, primary),
    )
    return design, brand


def sample_pictures(sample, n: int, directory: Path | None = None) -> list[str]:
    """Markdown lines showing sample ``n``'s designed image (and, for the first, its video)."""
    directory = directory or Path(settings.BASE_DIR) / "docs" / "samples"
    directory.mkdir(parents=True, exist_ok=True)
    engine = LocalEngine()
    design, brand = _design(sample, n, "instagram", "feed", "image")
    result = engine.image(
        ImageRequest(
            prompt=sample.prompt,
            width=540,
            height=675,
            style="illustration",
            brand=brand,
            seed=n,
            format="JPEG",
            design=design,
        )
    )
    name = f"{n:02d}-instagram.jpg"
    (directory / name).write_bytes(result.data)
    lines = [
        f"![{result.alt_text}](samples/{name})",
        "",
        f"<sub>Designed image ({design.spec['template']} layout, Instagram 4:5, rendered at 540x675 for this page). "
        f"Alt text: {result.alt_text}</sub>",
        "",
    ]
    if n == 1:
        lines += _video_strip(sample, n, directory, engine)
    return lines


def _video_strip(sample, n: int, directory: Path, engine: LocalEngine) -> list[str]:
    import av

    design, brand = _design(sample, n, "tiktok", "short", "video")
    video = engine.video(
        VideoRequest(
            prompt=sample.prompt,
            width=540,
            height=960,
            seconds=6.0,
            style="illustration",
            brand=brand,
            design=design,
        )
    )
    times = (0.0, 0.4, 0.8, 2.5, 4.7, 5.9)
    frames: list[Image.Image] = []
    with av.open(io.BytesIO(video.data)) as container:
        for frame in container.decode(video=0):
            t = float(frame.pts * frame.time_base)
            if len(frames) < len(times) and t >= times[len(frames)] - 1e-6:
                frames.append(frame.to_image().resize((180, 320)))
    strip = Image.new("RGB", (180 * len(frames) + 8 * (len(frames) - 1), 320), (255, 255, 255))
    for i, frame in enumerate(frames):
        strip.paste(frame, (i * 188, 0))
    strip.save(directory / f"{n:02d}-tiktok-frames.jpg", "JPEG", quality=85)
    return [
        f"![Frames of the 6 s TikTok video at {', '.join(f'{t:g}' for t in times)} s](samples/{n:02d}-tiktok-frames.jpg)",
        "",
        f"<sub>Its 6 s 9:16 video (H.264 30 fps, "
        f"{'with' if video.has_audio else 'without'} a synthesised music bed): frames at "
        f"{', '.join(f'{t:g}' for t in times)} s: the headline line by line, the line under it, the logo, the closing "
        "card with the call to action.</sub>",
        "",
    ]
