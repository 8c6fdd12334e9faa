"""Images of an upload: dimensions checked before decoding (decompression bombs), the EXIF
orientation applied and every metadata block dropped by re-encoding (stills and animations),
and the JPEG thumbnail. Part of ``apps.media.processing``, which re-exports ``make_thumbnail``."""

from __future__ import annotations

import hashlib
import io
from typing import Any

from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

from .upload_rules import (
    IMAGE_TYPES,
    JPEG_QUALITY,
    MAX_IMAGE_PIXELS,
    THUMBNAIL_JPEG_QUALITY,
    THUMBNAIL_MAX_SIDE,
    WEBP_QUALITY,
    ProcessedUpload,
    UploadRejected,
)

_EXIF_ORIENTATION = 0x0112
_ORIENTATION_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def _check_image_dimensions(width: int, height: int, *, max_side: int, max_pixels: int) -> None:
    if width <= 0 or height <= 0:
        raise UploadRejected("corrupt", "The image has no pixels.")
    if width * height > max_pixels:
        raise UploadRejected(
            "decompression_bomb",
            f"The image declares {width}x{height} pixels, more than the budget of {max_pixels} pixels.",
            details={"width": width, "height": height, "max_pixels": max_pixels},
        )
    if width > max_side or height > max_side:
        raise UploadRejected(
            "image_too_large",
            f"The image is {width}x{height}; at most {max_side} px a side is accepted.",
            details={"width": width, "height": height, "max_side": max_side},
        )


def _open_image(data: bytes, fmt: str | None, *, max_side: int, max_pixels: int) -> Image.Image:
    """Open (header only) with Pillow, refusing bombs before decoding."""
    try:
        im = Image.open(io.BytesIO(data), formats=[fmt] if fmt else None)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise UploadRejected("decompression_bomb", f"The image is a decompression bomb: {exc}") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, IndexError) as exc:
        raise UploadRejected("corrupt", "The image file is corrupt or truncated.") from exc
    if fmt and im.format != fmt:
        raise UploadRejected("corrupt", "The image content does not match its signature.")
    _check_image_dimensions(im.width, im.height, max_side=max_side, max_pixels=max_pixels)
    return im


_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError, KeyError, TypeError)


def _to_rgb_for_jpeg(im: Image.Image) -> Image.Image:
    """Flatten any mode to RGB (alpha composited over white) or keep L."""
    if im.mode in ("L", "RGB") and "transparency" not in im.info:
        return im
    if im.mode == "P":
        im = im.convert("RGBA")
    if im.mode in ("RGBA", "LA", "PA", "RGB", "L"):
        rgba = im.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        background.alpha_composite(rgba)
        return background.convert("RGB")
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):
        # Scale 16-bit greyscale into 8 bits rather than clipping it.
        return im.convert("I").point(lambda v: v * (1 / 256)).convert("L")
    return im.convert("RGB")


def _thumbnail_from_image(im: Image.Image, max_side: int) -> tuple[bytes, tuple[int, int]]:
    thumb = _to_rgb_for_jpeg(im)
    if thumb is im:
        thumb = im.copy()
    thumb.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    thumb.save(out, format="JPEG", quality=THUMBNAIL_JPEG_QUALITY, optimize=True)
    return out.getvalue(), thumb.size


def make_thumbnail(
    image_bytes: bytes,
    max_side: int = THUMBNAIL_MAX_SIDE,
    *,
    max_pixels: int = MAX_IMAGE_PIXELS,
) -> tuple[bytes, tuple[int, int]]:
    """A JPEG thumbnail no larger than ``max_side`` on its long side.

    The EXIF orientation is applied, animations give their first frame and
    transparency is flattened over white. Never upscales. Raises
    :class:`UploadRejected` for unreadable, corrupt or bomb-sized input.
    """
    if max_side < 1:
        raise ValueError("max_side must be at least 1")
    # The side limit is an upload rule; here only the pixel budget applies.
    im = _open_image(bytes(image_bytes), None, max_side=1 << 30, max_pixels=max_pixels)
    try:
        if im.format == "JPEG":
            # Let libjpeg decode at a reduced scale: far cheaper for big photos.
            im.draft("RGB", (max_side, max_side))
        im.load()
        im = ImageOps.exif_transpose(im)
        return _thumbnail_from_image(im, max_side)
    except UploadRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise UploadRejected("decompression_bomb", f"The image is a decompression bomb: {exc}") from exc
    except _DECODE_ERRORS as exc:
        raise UploadRejected("corrupt", "The image file is corrupt or truncated.") from exc


# --------------------------------------------------------------------------- images


def _save_clean(im: Image.Image, out: io.BytesIO, fmt: str, **params: Any) -> None:
    """Save with an empty ``info`` so no metadata rides along.

    Several Pillow writers fall back to ``im.info`` (JPEG comments, GIF
    comments and extensions, ...); only what ``params`` names is written.
    ``im.info`` is restored afterwards so callers (the thumbnailer) still see
    the transparency.
    """
    saved = im.info
    im.info = {}
    try:
        im.save(out, format=fmt, **params)
    finally:
        im.info = saved


_GREY_MODES = ("1", "L", "LA", "I", "I;16", "I;16B", "I;16L", "F")


def _reencode_still(im: Image.Image, fmt: str, webp_lossless: bool) -> tuple[Image.Image, bytes]:
    icc = im.info.get("icc_profile")
    im.load()
    im = ImageOps.exif_transpose(im)
    transparency = im.info.get("transparency")
    out = io.BytesIO()
    params: dict[str, Any] = {}
    if icc:
        params["icc_profile"] = icc
    if fmt == "JPEG":
        if im.mode not in ("RGB", "L"):
            # A CMYK/other profile would describe the wrong colour space now.
            im = _to_rgb_for_jpeg(im)
            params.pop("icc_profile", None)
        _save_clean(im, out, "JPEG", quality=JPEG_QUALITY, optimize=True, **params)
    elif fmt == "PNG":
        if transparency is not None and im.mode in ("P", "L", "RGB", "1"):
            params["transparency"] = transparency
        _save_clean(im, out, "PNG", **params)
    elif fmt == "GIF":
        params.pop("icc_profile", None)
        if transparency is not None and im.mode in ("P", "L"):
            params["transparency"] = transparency
        _save_clean(im, out, "GIF", **params)
    elif fmt == "WEBP":
        if im.mode not in ("RGB", "RGBA"):
            if im.mode in _GREY_MODES:
                params.pop("icc_profile", None)
            im = im.convert("RGBA" if im.has_transparency_data else "RGB")
        if webp_lossless:
            _save_clean(im, out, "WEBP", lossless=True, **params)
        else:
            _save_clean(im, out, "WEBP", quality=WEBP_QUALITY, **params)
    else:  # pragma: no cover - guarded by sniff_type
        raise UploadRejected("unsupported_type", f"Unsupported image format {fmt}.")
    return im, out.getvalue()


def _reencode_animation(im: Image.Image, fmt: str, webp_lossless: bool) -> tuple[Image.Image, bytes, int]:
    orientation = im.getexif().get(_EXIF_ORIENTATION)
    method = _ORIENTATION_TRANSPOSE.get(orientation) if isinstance(orientation, int) else None
    loop = im.info.get("loop")
    icc = im.info.get("icc_profile")
    frames: list[Image.Image] = []
    durations: list[int] = []
    for frame in ImageSequence.Iterator(im):
        frame.load()
        duration = frame.info.get("duration", im.info.get("duration", 100))
        copy = frame.copy()
        if copy.mode not in ("RGB", "RGBA"):
            # Convert while info still holds the transparent palette index.
            copy = copy.convert("RGBA")
        copy.info = {}
        if method is not None:
            copy = copy.transpose(method)
        frames.append(copy)
        durations.append(int(duration or 0))
    first, rest = frames[0], frames[1:]
    params: dict[str, Any] = {"save_all": True, "append_images": rest, "duration": durations}
    if loop is not None:
        params["loop"] = loop
    out = io.BytesIO()
    if fmt == "GIF":
        # Frames are full composited pictures: with transparency each must
        # clear the canvas (disposal 2), otherwise it may simply overlay.
        # an RGBA frame's extrema are one (min, max) per band; [3] is alpha
        transparent = any(f.mode == "RGBA" and f.getextrema()[3][0] < 255 for f in frames)  # type: ignore[misc]
        first.save(out, format="GIF", disposal=2 if transparent else 1, **params)
    elif fmt == "PNG":
        if icc:
            params["icc_profile"] = icc
        first.save(out, format="PNG", **params)
    elif fmt == "WEBP":
        if icc:
            params["icc_profile"] = icc
        params.setdefault("loop", 0)
        if webp_lossless:
            first.save(out, format="WEBP", lossless=True, **params)
        else:
            first.save(out, format="WEBP", quality=WEBP_QUALITY, **params)
    else:  # pragma: no cover - JPEG is never animated here
        raise UploadRejected("unsupported_type", f"Unsupported animated format {fmt}.")
    return first, out.getvalue(), len(frames)


def _webp_is_lossless(data: bytes) -> bool:
    """True when the WebP bitstream is VP8L (lossless)."""
    if data[12:16] == b"VP8L":
        return True
    if data[12:16] == b"VP8X":
        # Walk the chunks of the extended format; stop at the first bitstream.
        pos = 12
        limit = min(len(data), 1 << 20)
        while pos + 8 <= limit:
            tag = data[pos : pos + 4]
            size = int.from_bytes(data[pos + 4 : pos + 8], "little")
            if tag == b"VP8L":
                return True
            if tag == b"VP8 ":
                return False
            if tag == b"ANMF":
                # Animation frame: its bitstream sub-chunk follows 16 bytes of header.
                sub = data[pos + 8 + 16 : pos + 8 + 20]
                return sub == b"VP8L"
            pos += 8 + size + (size & 1)
    return False


def _process_image(
    data: bytes,
    fmt: str,
    *,
    original_filename: str,
    max_side: int,
    max_pixels: int,
    max_animation_pixels: int,
    thumbnail_max_side: int,
) -> ProcessedUpload:
    im = _open_image(data, fmt, max_side=max_side, max_pixels=max_pixels)
    try:
        animated = fmt in ("GIF", "PNG", "WEBP") and bool(getattr(im, "is_animated", False))
        webp_lossless = fmt == "WEBP" and _webp_is_lossless(data)
        if animated:
            n_frames = int(getattr(im, "n_frames", 1))
            if n_frames * im.width * im.height > max_animation_pixels:
                raise UploadRejected(
                    "decompression_bomb",
                    f"The animation has {n_frames} frames of {im.width}x{im.height}, "
                    f"more than the budget of {max_animation_pixels} pixels in all.",
                    details={"frames": n_frames, "max_animation_pixels": max_animation_pixels},
                )
            first, out, frames = _reencode_animation(im, fmt, webp_lossless)
        else:
            first, out = _reencode_still(im, fmt, webp_lossless)
            frames = 1
        width, height = first.size
        thumb, thumb_size = _thumbnail_from_image(first, thumbnail_max_side)
    except UploadRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise UploadRejected("decompression_bomb", f"The image is a decompression bomb: {exc}") from exc
    except _DECODE_ERRORS as exc:
        raise UploadRejected("corrupt", "The image file is corrupt or truncated.") from exc
    finally:
        im.close()
    content_type, extension = IMAGE_TYPES[fmt]
    return ProcessedUpload(
        kind="image",
        content_type=content_type,
        extension=extension,
        data=out,
        size=len(out),
        width=width,
        height=height,
        sha256=hashlib.sha256(out).hexdigest(),
        thumbnail=thumb,
        thumbnail_size=thumb_size,
        original_filename=original_filename,
        animated=animated,
        frames=frames,
        extra={"source_size": len(data), "source_sha256": hashlib.sha256(data).hexdigest()},
    )
