"""The post's design as a 5-8 s video: the whole headline is on the first frame (a feed shows
it before anyone taps), the other lines appear one by one, the logo fades in, and the
last 1.5 s cross-fade to a closing card (logo, call to action, brand). An optional music bed
(``music``) is synthesised and loudness-normalised; silent when the brand says so.

Only a handful of distinct pictures exist (one per revealed line, the closing card): each is
converted to the encoder's Y, Cb and Cr planes once, and a frame is either one of them or a
blend of two, so a 6 s 1080x1920 video costs a few dozen blends plus the encoding.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import tempfile
from fractions import Fraction

from PIL import Image, ImageOps

from ..base import EngineError, VideoRequest
from ..render_progress import report
from .describe import describe
from .encoding import MadeVideo, open_stream, planes
from .music import RATE, synthesise
from .posts import design_for, style_note
from .scene import normalise_style

_REVEAL = 0.4  # seconds a line takes to appear
_CLOSING = 1.5  # seconds of the closing card, its cross-fade included
_FADE = 0.5
#: x264's preset for designed videos: mostly still pictures, where ultrafast's bigger files
#: stay small (a 6 s 1080x1920 clip is about 0.5 MB) and it encodes about twice as fast
PRESET = os.environ.get("POSTFORGE_DESIGN_VIDEO_PRESET", "ultrafast")


class _Planes:
    """One picture as the encoder's three planes, padded to its line sizes."""

    def __init__(self, img: Image.Image, line: list[int]):
        y, cb, cr = planes(img)
        self.images = [_pad(y, line[0], 16), _pad(cb, line[1], 128), _pad(cr, line[2], 128)]
        self.data = [p.tobytes() for p in self.images]

    def blend(self, other: _Planes, t: float) -> list[bytes]:
        return [Image.blend(a, b, t).tobytes() for a, b in zip(self.images, other.images, strict=True)]


def _pad(plane: Image.Image, width: int, fill: int) -> Image.Image:
    if plane.width >= width:
        return plane
    return ImageOps.expand(plane, (0, 0, width - plane.width, 0), fill=fill)


def _ease(t: float) -> float:
    t = max(0.0, min(1.0, t))
    return t * t * (3 - 2 * t)


def designed_video(request: VideoRequest) -> MadeVideo:
    import av

    assert request.design is not None
    width, height, seconds, fps = request.width, request.height, request.seconds, request.fps
    style = normalise_style(request.style)
    frames = round(seconds * fps)
    report(0, frames + 10)
    design = design_for(request, request.design)
    closing_spec = {**design.spec, "template": "closing", "background": "solid"}
    closing = design_for(request, dataclasses.replace(request.design, spec=closing_spec, slides=1, slide=0))
    # the first frame (the thumbnail a feed shows) carries the whole headline, the rest follows
    extra = max(0, next((len(b.set.lines) for b in design.blocks if b.role == "headline"), 1) - 1)
    lines = max(1, design.line_count - extra)
    proto = av.VideoFrame(width, height, "yuv420p")
    line = [p.line_size for p in proto.planes]
    # the pictures: k lines shown (k = 1..lines) without and with the logo, and the closing card
    states = [_Planes(design.draw(lines=k + extra, logo=False), line) for k in range(1, lines + 1)]
    full = _Planes(design.draw(), line)
    last = _Planes(closing.draw(), line)
    report(5, frames + 10)

    reveal_end = seconds - _CLOSING - 0.6
    step = min(0.45, max(0.15, (reveal_end - 0.3) / max(1, lines - 1)))
    logo_at = min(reveal_end, 0.3 + step * (lines - 1) + _REVEAL)
    closing_at = seconds - _CLOSING

    def planes_at(time: float) -> list[bytes]:
        if time >= closing_at:
            return (
                full.blend(last, _ease((time - closing_at) / _FADE))
                if time < closing_at + _FADE
                else last.data
            )
        if time >= logo_at:
            return (
                states[-1].blend(full, _ease((time - logo_at) / _FADE))
                if time < logo_at + _FADE
                else full.data
            )
        shown = 1 + int(max(0.0, time - 0.3) // step) if time >= 0.3 else 1
        shown = min(lines, shown)
        if shown < lines:
            into = time - (0.3 + step * (shown - 1)) if time >= 0.3 else -1
            if 0 <= into < _REVEAL and shown < lines:
                return states[shown - 1].blend(states[shown], _ease(into / _REVEAL))
        return states[shown - 1].data

    music = request.design.music
    data = _encode(av, request, planes_at, frames, music=music)
    report(frames + 10, frames + 10)
    cover = design.draw()
    buf = io.BytesIO()
    cover.save(buf, "JPEG", quality=85)
    template = design.spec.get("template", "announcement")
    note = style_note(style, f"a designed {template} graphic, animated")
    alt = describe(design, request.design.language, video=True)
    return MadeVideo(data, buf.getvalue(), frames / fps, alt, (note,) if note else (), music)


def _encode(av, request: VideoRequest, planes_at, frames: int, *, music: bool) -> bytes:
    """The MP4 of ``frames`` frames (``planes_at(seconds)``) with the music bed when asked."""
    width, height, fps = request.width, request.height, request.fps
    tmpdir = tempfile.mkdtemp(prefix="postforge-video-")
    path = os.path.join(tmpdir, "out.mp4")
    try:
        container, stream = open_stream(av, path, width, height, fps, PRESET)
        audio = container.add_stream("aac", rate=RATE) if music else None
        if audio is not None:
            audio.layout = "mono"
            audio.bit_rate = 96_000
        for i in range(frames):
            if i % 10 == 0:
                report(5 + i, frames + 10)
            frame = av.VideoFrame(width, height, "yuv420p")
            for plane, data in zip(frame.planes, planes_at(i / fps), strict=True):
                plane.update(data)
            frame.pts = i
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
        if audio is not None:
            _encode_audio(av, container, audio, request.seconds, request.brand.tone, request.seed)
        container.close()
        with open(path, "rb") as fh:
            return fh.read()
    except av.FFmpegError as exc:
        raise EngineError(f"video encoding failed: {exc}", retryable=True) from exc
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
        os.rmdir(tmpdir)


def _encode_audio(av, container, stream, seconds: float, tone: str, seed: int) -> None:
    samples = synthesise(seconds, tone=tone, seed=seed, channels=1)
    chunk = 1024
    stream.time_base = Fraction(1, RATE)
    both = samples[None, :]
    for start in range(0, both.shape[1], chunk):
        part = both[:, start : start + chunk].copy()
        frame = av.AudioFrame.from_ndarray(part, format="fltp", layout="mono")
        frame.sample_rate = RATE
        frame.pts = start
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)
