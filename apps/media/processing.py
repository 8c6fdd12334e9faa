"""Pure media processing for uploads (design section 9, "Uploads").

Nothing here touches Django models or settings, so it can be used from views,
tasks and tests alike:

* ``inspect_upload(fileobj, filename=..., declared_content_type=...)`` reads an
  upload in chunks, decides its type from the bytes (never the name), enforces
  the size limits while reading, validates and re-encodes images (which strips
  EXIF/XMP/comments after applying the EXIF orientation), probes videos with
  PyAV, and returns a :class:`ProcessedUpload` with a JPEG thumbnail.
* ``make_thumbnail(image_bytes, max_side=480)`` is the reusable thumbnailer.

Every refusal is an :class:`UploadRejected` carrying an HTTP status and a
machine code (``unsupported_type``, ``too_large``, ``image_too_large``,
``decompression_bomb``, ``corrupt``) so either API family can render it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import tempfile
import unicodedata
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

# --------------------------------------------------------------------------- limits

MB = 1024 * 1024
MAX_IMAGE_BYTES = 20 * MB
MAX_VIDEO_BYTES = 500 * MB
MAX_IMAGE_SIDE = 8192
# Decoded-pixel budget for one frame: anything above it is treated as a
# decompression bomb before a single pixel is decoded.
MAX_IMAGE_PIXELS = 8192 * 8192
# Budget for all frames of an animation together (frames x width x height):
# re-encoding holds every frame in memory.
MAX_ANIMATION_PIXELS = 8192 * 8192
THUMBNAIL_MAX_SIDE = 480
JPEG_QUALITY = 90
WEBP_QUALITY = 90
THUMBNAIL_JPEG_QUALITY = 85
CHUNK_SIZE = 1 * MB
# How many packets PyAV may demux looking for the first decodable video frame.
MAX_PROBE_PACKETS = 2000

# --------------------------------------------------------------------------- types

IMAGE_TYPES = {
    # pillow format: (content type, extension)
    "JPEG": ("image/jpeg", "jpg"),
    "PNG": ("image/png", "png"),
    "WEBP": ("image/webp", "webp"),
    "GIF": ("image/gif", "gif"),
}
VIDEO_TYPES = {
    "mp4": ("video/mp4", "mp4"),
    "mov": ("video/quicktime", "mov"),
}

# ISO BMFF brands we accept as video. "qt  " is QuickTime (MOV); the rest are
# MP4 flavours.
QUICKTIME_BRANDS = {b"qt  "}
MP4_BRANDS = {
    b"isom",
    b"iso2",
    b"iso3",
    b"iso4",
    b"iso5",
    b"iso6",
    b"iso7",
    b"iso8",
    b"iso9",
    b"mp41",
    b"mp42",
    b"avc1",
    b"hvc1",
    b"hev1",
    b"av01",
    b"M4V ",
    b"M4VH",
    b"M4VP",
    b"mmp4",
    b"dash",
    b"MSNV",
    b"XAVC",
    b"f4v ",
}
# Still-image and audio-only members of the ISO BMFF family (HEIC, AVIF, M4A...)
# often list "iso8"/"mp42" as compatible brands; they are not videos.
NON_VIDEO_BRANDS = {
    b"heic",
    b"heix",
    b"heim",
    b"heis",
    b"hevc",
    b"hevx",
    b"mif1",
    b"msf1",
    b"avif",
    b"avis",
    b"M4A ",
    b"M4B ",
    b"M4P ",
    b"jp2 ",
    b"crx ",
}
# Top-level atoms an old QuickTime file may start with when it has no ftyp.
QUICKTIME_LEADING_ATOMS = {b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"}

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


class UploadRejected(Exception):
    """An upload that cannot be accepted; ``status`` is the HTTP status to answer."""

    def __init__(self, code: str, message: str, status: int = 400, details: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.details = details or {}

    def __repr__(self) -> str:
        return f"UploadRejected(code={self.code!r}, status={self.status}, message={self.message!r})"


@dataclass
class ProcessedUpload:
    """The result of :func:`inspect_upload`.

    ``data`` is the cleaned image bytes for images, and for videos the path of a
    temporary file holding the upload (call :meth:`cleanup` once it is stored).
    ``extension`` has no leading dot. ``sha256`` is the hex digest of what
    ``data`` holds.
    """

    kind: str  # "image" | "video"
    content_type: str
    extension: str
    data: bytes | str
    size: int
    width: int
    height: int
    sha256: str
    thumbnail: bytes
    thumbnail_size: tuple[int, int]
    original_filename: str
    duration: float | None = None
    codec: str | None = None
    animated: bool = False
    frames: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> str | None:
        return self.data if isinstance(self.data, str) else None

    def open(self) -> BinaryIO:
        """A readable binary file object over ``data`` (caller closes it)."""
        if isinstance(self.data, str):
            return open(self.data, "rb")
        return io.BytesIO(self.data)

    def cleanup(self) -> None:
        """Remove the temporary file of a video (no-op for images)."""
        if isinstance(self.data, str):
            _discard(self.data)


# --------------------------------------------------------------------------- helpers


def sanitize_filename(name: str, *, default: str = "upload", max_length: int = 200) -> str:
    """Basename only, ASCII letters/digits/``._-``; never empty, never hidden."""
    name = (name or "").replace("\\", "/").split("/")[-1]
    name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
    name = re.sub(r"_{2,}", "_", name)
    name = re.sub(r"\.{2,}", ".", name)
    name = name.strip("._- ")
    if not name:
        return default
    if len(name) > max_length:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 16 and stem:
            name = stem[: max_length - len(ext) - 1] + "." + ext
        else:
            name = name[:max_length]
    return name


def sniff_type(head: bytes) -> tuple[str, str] | None:
    """Identify an upload from its first bytes.

    Returns ``("image", pillow_format)``, ``("video", "mp4"|"mov")`` or ``None``.
    """
    if head.startswith(b"\xff\xd8\xff"):
        return ("image", "JPEG")
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return ("image", "PNG")
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return ("image", "GIF")
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ("image", "WEBP")
    if len(head) >= 12 and head[4:8] == b"ftyp":
        return _sniff_ftyp(head)
    if len(head) >= 8 and head[4:8] in QUICKTIME_LEADING_ATOMS:
        # Pre-ftyp QuickTime; PyAV has the final word when the file is probed.
        return ("video", "mov")
    return None


def _sniff_ftyp(head: bytes) -> tuple[str, str] | None:
    box_size = int.from_bytes(head[0:4], "big")
    major = head[8:12]
    end = min(len(head), box_size) if box_size >= 16 else min(len(head), 16)
    compatible = {head[i : i + 4] for i in range(16, end - 3, 4)}
    brands = {major} | compatible
    if major in NON_VIDEO_BRANDS:
        return None
    if major in QUICKTIME_BRANDS:
        return ("video", "mov")
    if major in MP4_BRANDS:
        return ("video", "mp4")
    if brands & NON_VIDEO_BRANDS:
        return None
    if compatible & QUICKTIME_BRANDS:
        return ("video", "mov")
    if compatible & MP4_BRANDS:
        return ("video", "mp4")
    return None


def _too_large(limit: int, kind: str) -> UploadRejected:
    return UploadRejected(
        "too_large",
        f"The {kind} is larger than the limit of {_human_size(limit)}.",
        status=413,
        details={"limit": limit, "kind": kind},
    )


def _human_size(n: int) -> str:
    if n >= MB and n % MB == 0:
        return f"{n // MB} MB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KB"
    return f"{n} bytes"


def _read_exact(fileobj: Any, n: int) -> bytes:
    """Read up to n bytes, looping over short reads (sockets, upload streams)."""
    parts: list[bytes] = []
    remaining = n
    while remaining > 0:
        chunk = fileobj.read(remaining)
        if not chunk:
            break
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


def _declared_size(fileobj: Any) -> int | None:
    size = getattr(fileobj, "size", None)
    return size if isinstance(size, int) and size >= 0 else None


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


# --------------------------------------------------------------------------- videos

_FRAME_ROTATION = {
    90: Image.Transpose.ROTATE_90,
    -90: Image.Transpose.ROTATE_270,
    270: Image.Transpose.ROTATE_270,
    180: Image.Transpose.ROTATE_180,
    -180: Image.Transpose.ROTATE_180,
}


def _probe_video(path: str, container_kind: str, *, thumbnail_max_side: int) -> dict[str, Any]:
    import av  # imported lazily: image-only callers need not load FFmpeg

    try:
        container = av.open(path, mode="r", format=None)
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise UploadRejected("corrupt", "The video file is corrupt or truncated.") from exc
    try:
        if "mov" not in container.format.name and "mp4" not in container.format.name:
            raise UploadRejected("unsupported_type", "Only MP4 and MOV videos are accepted.")
        if not container.streams.video:
            raise UploadRejected("unsupported_type", "The file has no video stream.")
        stream = container.streams.video[0]
        codec = stream.codec_context.name if stream.codec_context else None
        duration: float | None = None
        if stream.duration is not None and stream.time_base:
            duration = float(stream.duration * stream.time_base)
        elif container.duration is not None:
            duration = container.duration / av.time_base
        image = None
        rotation = 0
        packets = 0
        try:
            for packet in container.demux(stream):
                packets += 1
                for frame in packet.decode():
                    image = frame.to_image()
                    rotation = round(getattr(frame, "rotation", 0) or 0)
                    break
                if image is not None or packets >= MAX_PROBE_PACKETS:
                    break
            if image is None:
                # Drain the decoder: some codecs only emit frames on flush.
                for frame in stream.codec_context.decode(None):
                    image = frame.to_image()
                    rotation = round(getattr(frame, "rotation", 0) or 0)
                    break
        except (av.error.FFmpegError, ValueError) as exc:
            raise UploadRejected("corrupt", "The video could not be decoded.") from exc
        if image is None:
            raise UploadRejected("corrupt", "The video has no decodable frame.")
        transpose = _FRAME_ROTATION.get(rotation)
        if transpose is not None:
            image = image.transpose(transpose)
        width, height = image.size
        thumb, thumb_size = _thumbnail_from_image(image, thumbnail_max_side)
        return {
            "width": width,
            "height": height,
            "duration": duration,
            "codec": codec,
            "thumbnail": thumb,
            "thumbnail_size": thumb_size,
            "format": container.format.name,
            "rotation": rotation,
            "frame_rate": float(stream.average_rate) if stream.average_rate else None,
            "has_audio": bool(container.streams.audio),
        }
    finally:
        container.close()


# --------------------------------------------------------------------------- entry point


def _discard(path: str) -> None:
    """Remove a temporary file that may already be gone."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _rewind(fileobj: Any) -> None:
    """Read from the start of a seekable upload (one a previous reader left part-read)."""
    seekable = getattr(fileobj, "seekable", None)
    with contextlib.suppress(OSError, ValueError):
        if callable(seekable) and seekable():
            fileobj.seek(0)


def _sniff(head: bytes, declared_content_type: str) -> tuple[str, str]:
    """(kind, format) the first bytes show; an empty or unknown file is refused."""
    if not head:
        raise UploadRejected("corrupt", "The file is empty.")
    sniffed = sniff_type(head)
    if sniffed is None:
        declared = f" (declared as {declared_content_type})" if declared_content_type else ""
        raise UploadRejected(
            "unsupported_type",
            f"Unsupported file type{declared}: images must be JPEG, PNG, WebP or GIF and videos MP4 or MOV.",
            details={"declaredContentType": declared_content_type} if declared_content_type else {},
        )
    return sniffed


def _read_image(fileobj: Any, head: bytes, limit: int, chunk_size: int) -> bytes:
    """The whole image in memory, refused (413) as soon as it passes ``limit``."""
    buf = bytearray(head)
    while True:
        chunk = fileobj.read(chunk_size)
        if not chunk:
            break
        buf += chunk
        if len(buf) > limit:
            raise _too_large(limit, "image")
    return bytes(buf)


def _spool_video(
    fileobj: Any, head: bytes, fmt: str, limit: int, chunk_size: int, temp_dir: str | None
) -> tuple[str, int, Any]:
    """(path, size, sha256) of the video spooled to a temporary file, refused (413) as soon as
    it passes ``limit`` (the file is removed then)."""
    digest = hashlib.sha256(head)
    total = len(head)
    with tempfile.NamedTemporaryFile(
        prefix="postforge-upload-", suffix="." + VIDEO_TYPES[fmt][1], dir=temp_dir, delete=False
    ) as tmp:
        path = tmp.name
        try:
            tmp.write(head)
            while True:
                chunk = fileobj.read(chunk_size)
                if not chunk:
                    break
                total += len(chunk)
                if total > limit:
                    raise _too_large(limit, "video")
                digest.update(chunk)
                tmp.write(chunk)
        except BaseException:
            tmp.close()
            _discard(path)
            raise
    return path, total, digest


def inspect_upload(
    fileobj: Any,
    *,
    filename: str,
    declared_content_type: str = "",
    max_image_bytes: int = MAX_IMAGE_BYTES,
    max_video_bytes: int = MAX_VIDEO_BYTES,
    max_image_side: int = MAX_IMAGE_SIDE,
    max_image_pixels: int = MAX_IMAGE_PIXELS,
    max_animation_pixels: int = MAX_ANIMATION_PIXELS,
    thumbnail_max_side: int = THUMBNAIL_MAX_SIDE,
    chunk_size: int = CHUNK_SIZE,
    temp_dir: str | None = None,
) -> ProcessedUpload:
    """Validate and clean one upload.

    ``fileobj`` is anything with ``read(n)`` (a Django ``UploadedFile``, an open
    file, ``io.BytesIO``) or plain ``bytes``. It is read in chunks of
    ``chunk_size`` and reading stops as soon as the limit for the detected kind
    is passed (413 ``too_large``), so an oversized stream is never held whole.
    Images are held in memory (they are at most ``max_image_bytes``); videos are
    spooled to a temporary file in ``temp_dir`` whose path is ``result.data``.
    ``declared_content_type`` is informational only: the bytes decide.
    """
    if isinstance(fileobj, (bytes, bytearray, memoryview)):
        fileobj = io.BytesIO(bytes(fileobj))
    _rewind(fileobj)
    original_filename = sanitize_filename(filename)

    head = _read_exact(fileobj, 64)
    kind, fmt = _sniff(head, declared_content_type)
    limit = max_image_bytes if kind == "image" else max_video_bytes
    declared_size = _declared_size(fileobj)
    if declared_size is not None and declared_size > limit:
        raise _too_large(limit, kind)
    if len(head) > limit:
        raise _too_large(limit, kind)

    if kind == "image":
        return _process_image(
            _read_image(fileobj, head, limit, chunk_size),
            fmt,
            original_filename=original_filename,
            max_side=max_image_side,
            max_pixels=max_image_pixels,
            max_animation_pixels=max_animation_pixels,
            thumbnail_max_side=thumbnail_max_side,
        )

    path, total, digest = _spool_video(fileobj, head, fmt, limit, chunk_size, temp_dir)
    try:
        info = _probe_video(path, fmt, thumbnail_max_side=thumbnail_max_side)
    except BaseException:
        _discard(path)
        raise
    # Brand and demuxer agree on MP4 vs MOV only loosely; the brand decides.
    content_type, extension = VIDEO_TYPES[fmt]
    return ProcessedUpload(
        kind="video",
        content_type=content_type,
        extension=extension,
        data=path,
        size=total,
        width=info["width"],
        height=info["height"],
        sha256=digest.hexdigest(),
        thumbnail=info["thumbnail"],
        thumbnail_size=info["thumbnail_size"],
        original_filename=original_filename,
        duration=info["duration"],
        codec=info["codec"],
        extra={
            "container": info["format"],
            "rotation": info["rotation"],
            "frame_rate": info["frame_rate"],
            "has_audio": info["has_audio"],
        },
    )


__all__ = [
    "CHUNK_SIZE",
    "JPEG_QUALITY",
    "MAX_ANIMATION_PIXELS",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "MAX_IMAGE_SIDE",
    "MAX_VIDEO_BYTES",
    "THUMBNAIL_MAX_SIDE",
    "ProcessedUpload",
    "UploadRejected",
    "inspect_upload",
    "make_thumbnail",
    "sanitize_filename",
    "sniff_type",
]
