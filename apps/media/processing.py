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
import re
import tempfile
import unicodedata
from typing import Any

from PIL import Image

from .image_processing import _process_image, _thumbnail_from_image, make_thumbnail
from .upload_rules import (  # re-exported: callers import them from here, as before the split
    CHUNK_SIZE,
    IMAGE_TYPES,
    JPEG_QUALITY,
    MAX_ANIMATION_PIXELS,
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_IMAGE_SIDE,
    MAX_PROBE_PACKETS,
    MAX_VIDEO_BYTES,
    MB,
    MP4_BRANDS,
    NON_VIDEO_BRANDS,
    QUICKTIME_BRANDS,
    QUICKTIME_LEADING_ATOMS,
    THUMBNAIL_JPEG_QUALITY,
    THUMBNAIL_MAX_SIDE,
    VIDEO_TYPES,
    WEBP_QUALITY,
    ProcessedUpload,
    UploadRejected,
    _discard,
    _human_size,
    _too_large,
    sniff_type,
)

__all__ = [
    "CHUNK_SIZE",
    "IMAGE_TYPES",
    "JPEG_QUALITY",
    "MAX_ANIMATION_PIXELS",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "MAX_IMAGE_SIDE",
    "MAX_PROBE_PACKETS",
    "MAX_VIDEO_BYTES",
    "MB",
    "MP4_BRANDS",
    "NON_VIDEO_BRANDS",
    "QUICKTIME_BRANDS",
    "QUICKTIME_LEADING_ATOMS",
    "THUMBNAIL_JPEG_QUALITY",
    "THUMBNAIL_MAX_SIDE",
    "VIDEO_TYPES",
    "WEBP_QUALITY",
    "ProcessedUpload",
    "UploadRejected",
    "_human_size",
    "inspect_upload",
    "make_thumbnail",
    "sanitize_filename",
    "sniff_type",
]


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
