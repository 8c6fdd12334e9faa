"""The pictures of docs/samples.md: for each sample, the designed image the pipeline makes for
Instagram's 4:5 feed (the sample brand given a palette and a logo) with its alt text, the three
designs a reviewer can choose from (three generations whose seeds pick each layout), each
platform's own picture (X, LinkedIn, Pinterest and an Instagram story from one content), and
for the first sample a strip of frames from its TikTok video. Written next to samples.md in
``docs/samples/`` by ``manage.py write_samples``."""

from __future__ import annotations

import io
from pathlib import Path

from django.conf import settings
from PIL import Image, ImageDraw

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


def _run(
    organization,
    brand,
    sample,
    platforms: list[str],
    *,
    media_type: str,
    post_type: str,
    seed: int,
    dimensions: str | None = "",
):
    """One content made by the pipeline with its media (the caller's transaction is rolled back)."""
    from apps.content.models import Content
    from apps.content.services import GenerationInput, content_request_generation

    from .pipeline import run

    content = content_request_generation(
        organization=organization,
        inp=GenerationInput(
            prompt=sample.prompt,
            platforms=platforms,
            brand=brand,
            media_type=media_type,
            post_type=post_type,
            # "" : the feed's 4:5 or the video's 9:16; None: each platform its own ratio
            dimensions=(("4:5" if media_type == "image" else "9:16") if dimensions == "" else dimensions),
            settings=dict(sample.settings),
            media_request={"generate": True, "style": "illustration", "count": 1},
        ),
        enqueue=False,
    )
    Content.objects.filter(pk=content.pk).update(seed=seed)
    run(content.pk)
    return Content.objects.get(pk=content.pk)


def _take(asset) -> bytes:
    """The stored file's bytes; the file is removed (its row goes with the rollback)."""
    with asset.file.open("rb") as fh:
        data = fh.read()
    for f in (asset.file, asset.thumbnail):
        if f:
            f.storage.delete(f.name)
    return data


def sample_pictures(organization, brand, sample, n: int, directory: Path | None = None) -> list[str]:
    """Markdown lines showing sample ``n``'s designed image as the pipeline makes it for Instagram
    (4:5, the brand given a palette and a logo), and for the first sample its TikTok video as a
    strip of frames. Called inside the samples' rolled-back transaction."""
    from apps.media.models import Kind, MediaAsset
    from apps.media.services import media_create_from_bytes

    directory = directory or Path(settings.BASE_DIR) / "docs" / "samples"
    directory.mkdir(parents=True, exist_ok=True)
    primary, secondary = PALETTES[(n - 1) % len(PALETTES)]
    logo = media_create_from_bytes(
        organization=organization,
        data=sample_logo(brand.name, primary),
        content_type="image/png",
        kind=Kind.LOGO,
        brand=brand,
    )
    type(brand).objects.filter(pk=brand.pk).update(
        primary_color=primary, secondary_color=secondary, logo=logo
    )
    brand.refresh_from_db()
    content = _run(organization, brand, sample, ["instagram"], media_type="image", post_type="feed", seed=n)
    asset = MediaAsset.objects.filter(content=content, kind=Kind.GENERATED).first()
    if asset is None:
        return [f"<sub>No picture: {content.status_reason or content.status}</sub>", ""]
    image = Image.open(io.BytesIO(_take(asset))).convert("RGB")
    image.thumbnail((540, 675))
    name = f"{n:02d}-instagram.jpg"
    image.save(directory / name, "JPEG", quality=85)
    variant = content.variants.get(platform="instagram")
    design = asset.metadata.get("design") or {}
    lines = [
        f"![{variant.alt_text}](samples/{name})",
        "",
        f"<sub>Designed image, {design.get('template', '?')} layout, Instagram 4:5 (shown at 540x675). "
        f"Alt text: {variant.alt_text}</sub>",
        "",
    ]
    lines += _designs_strip(organization, brand, sample, n, directory)
    lines += _platforms_strip(organization, brand, sample, n, directory)
    if n == 1:
        lines += _video_strip(organization, brand, sample, n, directory)
    _take(logo)
    return lines


def _pictures(content) -> list:
    from apps.media.models import Kind, MediaAsset

    return list(
        MediaAsset.objects.filter(content=content, kind=Kind.GENERATED).order_by("position", "created_at")
    )


def _strip(images: list[Image.Image], height: int) -> Image.Image:
    scaled = [im.resize((round(im.width * height / im.height), height)) for im in images]
    strip = Image.new(
        "RGB", (sum(im.width for im in scaled) + 8 * (len(scaled) - 1), height), (255, 255, 255)
    )
    x = 0
    for im in scaled:
        strip.paste(im, (x, 0))
        x += im.width + 8
    return strip


def _designs_strip(organization, brand, sample, n: int, directory: Path) -> list[str]:
    """The three layouts of the brief's Instagram picture side by side (seeds 3n, 3n+1, 3n+2: the
    local engine picks its layout by seed, as regenerate and the admin's design picker do)."""
    images, names = [], []
    for seed in (3 * n, 3 * n + 1, 3 * n + 2):
        content = _run(
            organization, brand, sample, ["instagram"], media_type="image", post_type="feed", seed=seed
        )
        for asset in _pictures(content)[:1]:
            images.append(Image.open(io.BytesIO(_take(asset))).convert("RGB"))
            names.append((asset.metadata.get("design") or {}).get("variant") or "ABC"[seed % 3])
    if len(images) < 2:
        return []
    name = f"{n:02d}-designs.jpg"
    _strip(images, 420).save(directory / name, "JPEG", quality=85)
    return [
        f"![Three designs of the same brief: {', '.join(names)}](samples/{name})",
        "",
        f"<sub>The three designs a reviewer can choose from (layouts {', '.join(names)}), Instagram 4:5.</sub>",
        "",
    ]


def _platforms_strip(organization, brand, sample, n: int, directory: Path) -> list[str]:
    """Each platform's own picture: one content for X, LinkedIn and Pinterest (each in its ratio),
    and an Instagram story designed for 9:16."""
    feed = _run(
        organization,
        brand,
        sample,
        ["x", "linkedin", "pinterest"],
        media_type="image",
        post_type="feed",
        seed=n,
        dimensions=None,
    )
    story = _run(
        organization,
        brand,
        sample,
        ["instagram"],
        media_type="image",
        post_type="story",
        seed=n,
        dimensions="9:16",
    )
    assets = _pictures(feed) + _pictures(story)[:1]
    if not assets:
        return []
    labels = []
    images = []
    for asset in assets:
        images.append(Image.open(io.BytesIO(_take(asset))).convert("RGB"))
        labels.append(f"{asset.ratio or '?'} ({asset.width}x{asset.height})")
    name = f"{n:02d}-platforms.jpg"
    _strip(images, 360).save(directory / name, "JPEG", quality=85)
    return [
        f"![Each platform's own picture: {', '.join(labels)}](samples/{name})",
        "",
        f"<sub>Each platform its own picture, from one content for X, LinkedIn and Pinterest and an "
        f"Instagram story: {', '.join(labels)}.</sub>",
        "",
    ]


def _video_strip(organization, brand, sample, n: int, directory: Path) -> list[str]:
    import av

    from apps.media.models import Kind, MediaAsset

    content = _run(organization, brand, sample, ["tiktok"], media_type="video", post_type="short", seed=n)
    asset = MediaAsset.objects.filter(content=content, kind=Kind.GENERATED).first()
    if asset is None:
        return []
    data = _take(asset)
    times = (0.0, 0.4, 0.8, 2.5, 4.7, 5.9)
    frames: list[Image.Image] = []
    with av.open(io.BytesIO(data), mode="r") as container:
        has_audio = bool(container.streams.audio)
        for frame in container.decode(video=0):
            t = float((frame.pts or 0) * (frame.time_base or 0))
            if len(frames) < len(times) and t >= times[len(frames)] - 1e-6:
                frames.append(frame.to_image().resize((180, 320)))
    strip = Image.new("RGB", (180 * len(frames) + 8 * (len(frames) - 1), 320), (255, 255, 255))
    for i, still in enumerate(frames):
        strip.paste(still, (i * 188, 0))
    strip.save(directory / f"{n:02d}-tiktok-frames.jpg", "JPEG", quality=85)
    shown = ", ".join(f"{t:g}" for t in times)
    return [
        f"![Frames of the TikTok video at {shown} s](samples/{n:02d}-tiktok-frames.jpg)",
        "",
        f"<sub>Its TikTok video ({asset.duration or 0:g} s, 9:16, H.264 30 fps, "
        f"{'with' if has_audio else 'without'} the synthesised music bed), frames at {shown} s: the headline "
        "line by line, the line under it, the logo, the closing card.</sub>",
        "",
    ]
