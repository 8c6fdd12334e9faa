"""Encoding frames to H.264: the limited-range YCbCr planes of a picture, the MP4 stream, and
what a made video is (``MadeVideo``). Below both the abstract video (``video``) and the designed
one (``motion``), which each encode with it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction

from PIL import Image

# Pillow's YCbCr is full range; H.264 players expect limited ("TV") range.
_Y_LUT = [16 + (v * 219 + 127) // 255 for v in range(256)]
_C_LUT = [16 + (v * 224 + 127) // 255 for v in range(256)]


def planes(img: Image.Image) -> tuple[Image.Image, Image.Image, Image.Image]:
    y, cb, cr = img.convert("YCbCr").split()
    cw, ch = img.width // 2, img.height // 2
    return (
        y.point(_Y_LUT),
        cb.resize((cw, ch), Image.Resampling.BILINEAR).point(_C_LUT),
        cr.resize((cw, ch), Image.Resampling.BILINEAR).point(_C_LUT),
    )


def open_stream(av, path: str, width: int, height: int, fps: int, preset: str = "superfast"):
    container = av.open(path, "w", format="mp4", options={"movflags": "+faststart"})
    stream = container.add_stream("libx264", rate=fps)
    stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
    stream.time_base = Fraction(1, fps)
    # One encoder thread by default: workers run one generation per core, and a batch
    # scales with processes (bench/generation.py); a lone 6 s 1080x1920 video still
    # encodes in about 4 s. POSTFORGE_VIDEO_THREADS=0 lets x264 use every core.
    threads = int(os.environ.get("POSTFORGE_VIDEO_THREADS", "1"))
    stream.codec_context.thread_count = threads if threads > 0 else max(1, min(os.cpu_count() or 2, 4))
    stream.codec_context.thread_type = "AUTO"
    stream.options = {
        # superfast: High profile with CABAC, ~2x ultrafast's compression at small cost
        "preset": preset,
        "crf": "23",
        "profile": "high",
        "g": str(fps * 2),
        "x264-params": "colorprim=smpte170m:transfer=smpte170m:colormatrix=smpte170m:range=tv",
    }
    return container, stream


@dataclass
class MadeVideo:
    data: bytes
    thumbnail: bytes
    seconds: float
    alt_text: str = ""
    notes: tuple[str, ...] = ()
    has_audio: bool = False
