"""Videos of a scene, encoded with libx264 through PyAV.

Frames are not drawn one by one: a canvas larger than the frame is rendered once, converted to
Y, Cb and Cr planes, and each frame is a moving crop of those planes with a few pre-rendered
sprites pasted on top, which keeps a 6 s 1080x1920 video within a few seconds on two cores.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import tempfile
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFilter, ImageOps

from ..base import EngineError, VideoRequest
from ..render_progress import report
from .encoding import MadeVideo, open_stream, planes
from .palette import darken, lighten
from .scene import (
    Scene,
    Shape,
    build_scene,
    draw_shape,
    fit,
    gradient,
    load_reference,
    normalise_style,
    render_flat,
    render_photo,
)

VIDEO_MIN_SECONDS = 5.0
VIDEO_MAX_SECONDS = 8.0


@dataclass
class _Sprite:
    y: Image.Image
    cb: Image.Image
    cr: Image.Image
    mask: Image.Image
    cmask: Image.Image
    shape: Shape
    half: int  # half of the sprite's side, even


def _make_sprite(scene: Scene, shape: Shape, frame_min: int, style: str) -> _Sprite:
    radius = shape.size * frame_min
    half = int(radius * 1.5 + 8) & ~1
    side = half * 2
    local = Shape(
        shape.kind, 0.5, 0.5, radius / side, shape.colour, shape.rotation, 0.0, shape.jitter, shape.motion
    )
    rgb = Image.new("RGB", (side, side), shape.colour)
    mask = Image.new("L", (side, side), 0)
    if style == "illustration":
        d = ImageDraw.Draw(rgb)
        line = max(2, frame_min // 140)
        draw_shape(d, local, side, side, shape.colour, outline=scene.outline, width=line)
        draw_shape(ImageDraw.Draw(mask), local, side, side, 255, outline=255, width=line)
    else:
        lx, ly = scene.light
        toward = math.degrees(math.atan2(ly - shape.cy, lx - shape.cx))
        rgb = gradient((side, side), lighten(shape.colour, 0.4), darken(shape.colour, 0.35), -toward - 90)
        draw_shape(ImageDraw.Draw(mask), local, side, side, 255)
        mask = mask.filter(ImageFilter.GaussianBlur(max(1.0, side / 90)))
    y, cb, cr = planes(rgb)
    return _Sprite(
        y, cb, cr, mask, mask.resize((side // 2, side // 2), Image.Resampling.BILINEAR), shape, half
    )


def check_video(width: int, height: int, seconds: float, fps: int) -> None:
    if not isinstance(seconds, (int, float)) or not (VIDEO_MIN_SECONDS <= seconds <= VIDEO_MAX_SECONDS):
        raise EngineError(f"video length must be between 5 and 8 seconds, got {seconds!r}")
    if not isinstance(fps, int) or not 1 <= fps <= 60:
        raise EngineError(f"video frame rate must be between 1 and 60 fps, got {fps!r}")
    if width < 16 or height < 16 or width % 2 or height % 2:
        raise EngineError(f"video size must be even and at least 16x16 (H.264 4:2:0), got {width}x{height}")
    if width * height > 2160 * 3840:
        raise EngineError(f"video size {width}x{height} is larger than the local engine allows (4K)")


@dataclass
class _Stage:
    """What every frame of a video is cut from: the canvas the camera drifts over, as
    limited-range Y, Cb and Cr planes padded to the encoder's line sizes, and the sprites that
    move over it."""

    scene: Scene
    width: int
    height: int
    pan_x: int
    pan_y: int
    y: Image.Image
    cb: Image.Image
    cr: Image.Image
    line: list[int]  # the encoder's line size of each plane
    sprites: list[_Sprite]


def _stage(av, scene: Scene, width: int, height: int, style: str) -> _Stage:
    frame_min = min(width, height)
    # The camera drifts over a canvas ~16% larger than the frame.
    pan_x = int(width * 0.16 * abs(scene.pan[0]) + width * 0.04) & ~1
    pan_y = int(height * 0.16 * abs(scene.pan[1]) + height * 0.04) & ~1
    cw, ch = width + pan_x, height + pan_y
    moving = [s for s in scene.shapes if s.depth < 0.6][:4] or scene.shapes[-2:]
    still = [s for s in scene.shapes if s not in moving]
    # Shapes are placed in canvas coordinates so they keep their frame-relative layout.
    scale_x, scale_y = width / cw, height / ch
    canvas_scene = Scene(
        **{
            **scene.__dict__,
            "shapes": [
                Shape(
                    s.kind,
                    s.cx * scale_x + (pan_x / 2) / cw,
                    s.cy * scale_y + (pan_y / 2) / ch,
                    s.size * frame_min / min(cw, ch),
                    s.colour,
                    s.rotation,
                    s.depth,
                    s.jitter,
                    s.motion,
                )
                for s in still
            ],
        }
    )
    if style == "illustration":
        canvas = render_flat(canvas_scene, (cw, ch))
    else:
        canvas = render_photo(canvas_scene, fit(cw, ch, 420)).resize((cw, ch), Image.Resampling.BILINEAR)
    cy_plane, ccb_plane, ccr_plane = planes(canvas)
    sprites = [_make_sprite(scene, s, frame_min, style) for s in moving]

    frame_proto = av.VideoFrame(width, height, "yuv420p")
    line = [p.line_size for p in frame_proto.planes]
    # Pad the canvas planes so a crop as wide as the encoder's line size never leaves them.
    if line[0] > width:
        pad = line[0] - width + 2
        cy_plane = ImageOps.expand(cy_plane, (0, 0, pad, 0), fill=16)
        ccb_plane = ImageOps.expand(ccb_plane, (0, 0, pad // 2 + 1, 0), fill=128)
        ccr_plane = ImageOps.expand(ccr_plane, (0, 0, pad // 2 + 1, 0), fill=128)
    return _Stage(scene, width, height, pan_x, pan_y, cy_plane, ccb_plane, ccr_plane, line, sprites)


def _frame_planes(
    stage: _Stage, i: int, frames: int, fps: int, seconds: float
) -> tuple[Image.Image, Image.Image, Image.Image]:
    """Frame ``i``'s Y, Cb and Cr: the eased camera's crop of the canvas, the sprites pasted on."""
    scene, width, height, line = stage.scene, stage.width, stage.height, stage.line
    t = i / max(1, frames - 1)
    ease = t * t * (3 - 2 * t)
    ox = int(stage.pan_x * (ease if scene.pan[0] >= 0 else 1 - ease)) & ~1
    oy = int(stage.pan_y * (ease if scene.pan[1] >= 0 else 1 - ease)) & ~1
    fy = stage.y.crop((ox, oy, ox + line[0], oy + height))
    fcb = stage.cb.crop((ox // 2, oy // 2, ox // 2 + line[1], oy // 2 + height // 2))
    fcr = stage.cr.crop((ox // 2, oy // 2, ox // 2 + line[2], oy // 2 + height // 2))
    seconds_in = i / fps
    for sp in stage.sprites:
        ax, ay, phase, freq = sp.shape.motion
        angle = phase + 2 * math.pi * freq * seconds_in / seconds
        x = int(sp.shape.cx * width + ax * width * math.sin(angle)) - sp.half
        y = int(sp.shape.cy * height + ay * height * math.cos(angle * 0.5 + phase)) - sp.half
        x, y = x & ~1, y & ~1
        fy.paste(sp.y, (x, y), sp.mask)
        fcb.paste(sp.cb, (x // 2, y // 2), sp.cmask)
        fcr.paste(sp.cr, (x // 2, y // 2), sp.cmask)
    return fy, fcb, fcr


def _encode(av, stage: _Stage, path: str, frames: int, fps: int, seconds: float) -> bytes:
    """Encode the frames into an MP4 at ``path``; returns the JPEG thumbnail of the first."""
    width, height = stage.width, stage.height
    thumbnail = b""
    container, stream = open_stream(av, path, width, height, fps)
    for i in range(frames):
        if i % 15 == 0:
            report(i, frames)
        fy, fcb, fcr = _frame_planes(stage, i, frames, fps, seconds)
        frame = av.VideoFrame(width, height, "yuv420p")
        frame.planes[0].update(fy.tobytes())
        frame.planes[1].update(fcb.tobytes())
        frame.planes[2].update(fcr.tobytes())
        frame.pts = i
        if i == 0:
            thumbnail = _thumbnail(fy, fcb, fcr, width, height)
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)
    container.close()
    return thumbnail


def make_video(request: VideoRequest) -> MadeVideo:
    """The post's design animated when the request carries it (``designed_video``), else the
    prompt's animated abstract scene."""
    check_video(request.width, request.height, request.seconds, request.fps)
    if request.design is not None:
        from .motion import designed_video

        return designed_video(request)
    data, thumbnail, seconds = _scene_video(request)
    from .describe import describe_abstract
    from .posts import style_note

    note = style_note(request.style, "moving abstract shapes")
    alt = describe_abstract(request.brand.primary_color, request.brand.secondary_color)
    return MadeVideo(data, thumbnail, seconds, alt, (note,) if note else ())


def _scene_video(request: VideoRequest) -> tuple[bytes, bytes, float]:
    """Encode the prompt's animated scene as H.264 MP4; returns (mp4, jpeg thumbnail, seconds)."""
    import av  # imported lazily: only video generation needs FFmpeg

    width, height, seconds, fps = request.width, request.height, request.seconds, request.fps
    style = normalise_style(request.style)
    scene = build_scene(request.prompt, request.brand, request.seed, load_reference(request.reference))
    frames = round(seconds * fps)
    stage = _stage(av, scene, width, height, style)

    tmpdir = tempfile.mkdtemp(prefix="postforge-video-")
    path = os.path.join(tmpdir, "out.mp4")
    try:
        thumbnail = _encode(av, stage, path, frames, fps, seconds)
        with open(path, "rb") as fh:
            data = fh.read()
    except av.FFmpegError as exc:
        raise EngineError(f"video encoding failed: {exc}", retryable=True) from exc
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
        os.rmdir(tmpdir)
    return data, thumbnail, frames / fps


_Y_INV = [min(255, max(0, (v - 16) * 255 // 219)) for v in range(256)]
_C_INV = [min(255, max(0, 128 + ((v - 128) * 255) // 224)) for v in range(256)]


def _thumbnail(y: Image.Image, cb: Image.Image, cr: Image.Image, width: int, height: int) -> bytes:
    yy = y.crop((0, 0, width, height)).point(_Y_INV)
    full = (width, height)
    cbb = cb.crop((0, 0, width // 2, height // 2)).point(_C_INV).resize(full, Image.Resampling.BILINEAR)
    crr = cr.crop((0, 0, width // 2, height // 2)).point(_C_INV).resize(full, Image.Resampling.BILINEAR)
    img = Image.merge("YCbCr", (yy, cbb, crr)).convert("RGB")
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()
