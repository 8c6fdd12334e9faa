"""What an upload may be: the size and pixel limits, the types recognised from the bytes (never
the name) and the refusal every check raises (``UploadRejected``, with an HTTP status and a
machine code either API family renders). Part of ``apps.media.processing``, which re-exports
these names."""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass, field
from typing import Any, BinaryIO

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


def _discard(path: str) -> None:
    """Remove a temporary file that may already be gone."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
