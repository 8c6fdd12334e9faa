"""Tests for apps.media.processing: real files built here, no mocks."""

from __future__ import annotations

import hashlib
import io
import os
import struct
import zlib
from fractions import Fraction

import av
import pytest
from PIL import Image, ImageSequence
from PIL.PngImagePlugin import PngInfo

from apps.media import processing
from apps.media.processing import (
    ProcessedUpload,
    UploadRejected,
    inspect_upload,
    make_thumbnail,
    sanitize_filename,
    sniff_type,
)

# --------------------------------------------------------------------------- builders

GPS_IFD = 0x8825
ORIENTATION = 0x0112


def _exif_with_gps(orientation: int = 1) -> Image.Exif:
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0110] = "PhoneModel X"  # Model
    exif[0x0131] = "EditorSoft 1.0"  # Software
    gps = exif.get_ifd(GPS_IFD)
    gps[1] = "N"
    gps[2] = (48.0, 51.0, 29.0)
    gps[3] = "E"
    gps[4] = (2.0, 17.0, 40.0)
    return exif


def _landscape_marked(width: int = 400, height: int = 200) -> Image.Image:
    """Left half red, right half blue: orientation changes are visible."""
    im = Image.new("RGB", (width, height), (0, 0, 255))
    im.paste((255, 0, 0), (0, 0, width // 2, height))
    return im


def jpeg_bytes(im: Image.Image | None = None, *, exif: Image.Exif | None = None, **kw) -> bytes:
    im = im or _landscape_marked()
    out = io.BytesIO()
    if exif is not None:
        kw["exif"] = exif.tobytes()
    im.save(out, format="JPEG", quality=95, **kw)
    return out.getvalue()


def png_bytes(im: Image.Image, **kw) -> bytes:
    out = io.BytesIO()
    im.save(out, format="PNG", **kw)
    return out.getvalue()


def animated_gif_bytes(frames: int = 3, size=(60, 40), duration: int = 120) -> bytes:
    colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255)]
    images = [Image.new("RGB", size, colours[i % len(colours)]) for i in range(frames)]
    out = io.BytesIO()
    images[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=duration,
        loop=0,
        comment=b"secret comment",
    )
    return out.getvalue()


def encode_video(
    path, *, fmt: str, codec: str = "libx264", frames: int = 25, fps: int = 25, size=(64, 48)
) -> None:
    """A real little video: a moving gradient, encoded and muxed by PyAV."""
    with av.open(str(path), mode="w", format=fmt) as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        for i in range(frames):
            picture = Image.linear_gradient("L").resize(size).point(lambda v, i=i: (v + i * 8) % 256)
            picture = Image.merge("RGB", (picture, Image.new("L", size, 128), Image.new("L", size, 40)))
            frame = av.VideoFrame.from_image(picture)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def bomb_png_bytes(width: int = 20000, height: int = 20000) -> bytes:
    """A valid 1-bit greyscale PNG of width x height, all black: tiny on disk."""

    def chunk(tag: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload))
            + tag
            + payload
            + struct.pack(">I", zlib.crc32(tag + payload) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    row = b"\x00" * (1 + (width + 7) // 8)
    comp = zlib.compressobj(9)
    parts = [comp.compress(row) for _ in range(height)]
    parts.append(comp.flush())
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


class CountingStream(io.RawIOBase):
    """An endless stream starting with `prefix`, recording how much was read."""

    def __init__(self, prefix: bytes):
        self.prefix = prefix
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = len(b)
        start = self.pos
        data = self.prefix[start : start + n] if start < len(self.prefix) else b""
        data += b"\x00" * (n - len(data))
        b[:n] = data
        self.pos += n
        return n


def open_result(result: ProcessedUpload) -> Image.Image:
    assert isinstance(result.data, bytes)
    return Image.open(io.BytesIO(result.data))


# --------------------------------------------------------------------------- type from bytes


def test_a_jpeg_named_png_is_recognised_as_jpeg_from_its_bytes():
    result = inspect_upload(
        io.BytesIO(jpeg_bytes()), filename="holiday.png", declared_content_type="image/png"
    )
    assert result.kind == "image"
    assert result.content_type == "image/jpeg"
    assert result.extension == "jpg"
    assert open_result(result).format == "JPEG"
    assert result.original_filename == "holiday.png"


def test_a_png_named_jpg_is_recognised_as_png():
    data = png_bytes(Image.new("RGB", (10, 10), "white"))
    result = inspect_upload(io.BytesIO(data), filename="x.jpg", declared_content_type="image/jpeg")
    assert (result.content_type, result.extension) == ("image/png", "png")


def test_a_text_file_named_png_is_refused_as_unsupported_type():
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(
            io.BytesIO(b"just some notes\nnot an image\n"),
            filename="notes.png",
            declared_content_type="image/png",
        )
    assert exc.value.status == 400
    assert exc.value.code == "unsupported_type"
    assert "image/png" in exc.value.message


def test_an_empty_file_is_refused():
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(b""), filename="empty.jpg")
    assert exc.value.status == 400


def test_a_heic_still_image_in_an_iso_container_is_not_taken_for_a_video():
    heic_head = struct.pack(">I", 24) + b"ftypheic" + b"\x00\x00\x00\x00" + b"mif1heic" + b"\x00" * 40
    assert sniff_type(heic_head) is None
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(heic_head), filename="IMG_0001.mp4")
    assert exc.value.code == "unsupported_type"


def test_sniffing_recognises_each_accepted_signature():
    assert sniff_type(b"\xff\xd8\xff\xe0" + b"\x00" * 10) == ("image", "JPEG")
    assert sniff_type(b"\x89PNG\r\n\x1a\n" + b"\x00" * 10) == ("image", "PNG")
    assert sniff_type(b"GIF89a" + b"\x00" * 10) == ("image", "GIF")
    assert sniff_type(b"RIFF\x10\x00\x00\x00WEBPVP8 ") == ("image", "WEBP")
    assert sniff_type(b"RIFF\x10\x00\x00\x00WAVEfmt ") is None
    for brand in (b"isom", b"iso2", b"mp41", b"mp42", b"avc1", b"M4V "):
        head = struct.pack(">I", 20) + b"ftyp" + brand + b"\x00\x00\x02\x00" + b"isom"
        assert sniff_type(head) == ("video", "mp4"), brand
    assert sniff_type(struct.pack(">I", 20) + b"ftypqt  \x00\x00\x02\x00qt  ") == ("video", "mov")
    assert sniff_type(struct.pack(">I", 20) + b"ftypM4A \x00\x00\x02\x00isom") is None


# --------------------------------------------------------------------------- metadata


def test_exif_and_gps_are_stripped_and_orientation_is_applied():
    source = jpeg_bytes(exif=_exif_with_gps(orientation=6))
    before = Image.open(io.BytesIO(source))
    assert before.getexif()[ORIENTATION] == 6
    assert before.getexif().get_ifd(GPS_IFD)
    assert before.size == (400, 200)

    result = inspect_upload(io.BytesIO(source), filename="gps.jpg")

    after = open_result(result)
    assert dict(after.getexif()) == {}
    assert after.getexif().get_ifd(GPS_IFD) == {}
    assert "exif" not in after.info
    assert b"Exif" not in result.data
    assert b"PhoneMaker" not in result.data
    # Orientation 6 means "rotate 90 clockwise to display": portrait now, and
    # the red left half of the stored pixels ends up on top.
    assert (result.width, result.height) == (200, 400) == after.size
    rgb = after.convert("RGB")
    top = rgb.getpixel((100, 50))
    bottom = rgb.getpixel((100, 350))
    assert top[0] > 200 and top[2] < 60
    assert bottom[2] > 200 and bottom[0] < 60


def test_jpeg_comments_and_xmp_are_stripped_but_icc_profile_kept():
    from PIL import ImageCms

    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>author-secret</rdf:RDF></x:xmpmeta>'
    source = jpeg_bytes(comment=b"camera owner: alice", xmp=xmp, icc_profile=icc)
    assert b"alice" in source and b"author-secret" in source

    result = inspect_upload(io.BytesIO(source), filename="c.jpg")
    assert b"alice" not in result.data
    assert b"author-secret" not in result.data
    after = open_result(result)
    assert "comment" not in after.info and "xmp" not in after.info
    assert after.info.get("icc_profile") == icc


def test_jpeg_is_re_encoded_at_quality_90():
    big = Image.effect_noise((256, 256), 60).convert("RGB")
    result = inspect_upload(io.BytesIO(jpeg_bytes(big)), filename="n.jpg")
    q90 = io.BytesIO()
    Image.open(io.BytesIO(jpeg_bytes(big))).save(q90, format="JPEG", quality=90, optimize=True)
    assert len(result.data) == len(q90.getvalue())


def test_png_keeps_transparency_and_loses_text_and_exif_chunks():
    im = Image.new("RGBA", (50, 30), (10, 200, 30, 255))
    im.paste((0, 0, 0, 0), (0, 0, 25, 30))
    info = PngInfo()
    info.add_text("Author", "Secret Person")
    info.add_text("Location", "52.52,13.40")
    source = png_bytes(im, pnginfo=info, exif=_exif_with_gps())
    assert b"Secret Person" in source

    result = inspect_upload(io.BytesIO(source), filename="alpha.png")
    after = open_result(result)
    assert after.mode == "RGBA"
    assert after.getpixel((5, 5))[3] == 0
    assert after.getpixel((40, 5)) == (10, 200, 30, 255)
    assert b"Secret Person" not in result.data
    assert b"eXIf" not in result.data
    assert dict(after.getexif()) == {}
    assert after.text == {}


def test_palette_png_keeps_its_transparent_colour():
    im = Image.new("P", (20, 20), 0)
    im.putpalette([255, 0, 0, 0, 255, 0] + [0] * (256 * 3 - 6))
    im.paste(1, (10, 0, 20, 20))
    source = png_bytes(im, transparency=0)
    after = open_result(inspect_upload(io.BytesIO(source), filename="p.png"))
    rgba = after.convert("RGBA")
    assert rgba.getpixel((2, 2))[3] == 0
    assert rgba.getpixel((15, 2)) == (0, 255, 0, 255)


def test_animated_gif_stays_animated_and_loses_its_comment():
    source = animated_gif_bytes(frames=3, duration=120)
    assert b"secret comment" in source
    result = inspect_upload(io.BytesIO(source), filename="anim.gif")
    assert result.content_type == "image/gif"
    assert result.animated is True
    assert result.frames == 3
    after = open_result(result)
    assert after.is_animated and after.n_frames == 3
    assert b"secret comment" not in result.data
    colours = [f.convert("RGB").getpixel((5, 5)) for f in ImageSequence.Iterator(after)]
    assert colours == [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    after.seek(1)
    assert after.info["duration"] == 120
    assert (result.width, result.height) == (60, 40)
    assert result.thumbnail_size == (60, 40)


def _moving_bar_frames(background=(0, 0, 0, 0)) -> list[Image.Image]:
    frames = []
    for i in range(3):
        f = Image.new("RGBA", (40, 40), background)
        f.paste((255, 0, 0, 255) if i % 2 == 0 else (0, 0, 255, 255), (i * 10, 0, i * 10 + 10, 40))
        frames.append(f)
    return frames


def test_transparent_animated_gif_keeps_its_transparency_in_every_frame():
    frames = _moving_bar_frames()
    out = io.BytesIO()
    frames[0].save(
        out, format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0, disposal=2
    )
    result = inspect_upload(io.BytesIO(out.getvalue()), filename="bar.gif")
    after = open_result(result)
    seen = [
        (f.convert("RGBA").getpixel((5, 5)), f.convert("RGBA").getpixel((15, 5)))
        for f in ImageSequence.Iterator(after)
    ]
    assert seen == [
        ((255, 0, 0, 255), (0, 0, 0, 0)),
        ((0, 0, 0, 0), (0, 0, 255, 255)),
        ((0, 0, 0, 0), (0, 0, 0, 0)),
    ]
    # The thumbnail is the first frame flattened over white.
    thumb = Image.open(io.BytesIO(result.thumbnail)).convert("RGB")
    assert min(thumb.getpixel((15, 5))) > 240


def test_animated_png_and_animated_webp_stay_animated_with_alpha():
    frames = _moving_bar_frames(background=(0, 255, 0, 128))
    for fmt, content_type in (("PNG", "image/png"), ("WEBP", "image/webp")):
        out = io.BytesIO()
        frames[0].save(out, format=fmt, save_all=True, append_images=frames[1:], duration=100, loop=0)
        result = inspect_upload(io.BytesIO(out.getvalue()), filename="anim.bin")
        assert result.content_type == content_type
        assert result.animated and result.frames == 3
        after = open_result(result)
        assert after.is_animated and after.n_frames == 3
        alphas = [f.convert("RGBA").getpixel((35, 5))[3] for f in ImageSequence.Iterator(after)]
        assert all(120 <= a <= 136 for a in alphas), (fmt, alphas)


def test_webp_exif_is_stripped_and_lossless_stays_lossless():
    im = Image.effect_noise((64, 64), 50).convert("RGB")
    out = io.BytesIO()
    im.save(out, format="WEBP", lossless=True, exif=_exif_with_gps().tobytes())
    source = out.getvalue()
    assert Image.open(io.BytesIO(source)).getexif().get_ifd(GPS_IFD)

    result = inspect_upload(io.BytesIO(source), filename="pic.bin")
    assert (result.content_type, result.extension) == ("image/webp", "webp")
    after = open_result(result)
    assert dict(after.getexif()) == {}
    assert b"EXIF" not in result.data and b"PhoneMaker" not in result.data
    assert list(after.convert("RGB").getdata()) == list(im.getdata())


def test_lossy_webp_with_alpha_keeps_alpha():
    im = Image.new("RGBA", (40, 40), (200, 10, 10, 255))
    im.paste((0, 0, 0, 0), (0, 0, 20, 40))
    out = io.BytesIO()
    im.save(out, format="WEBP", quality=80)
    result = inspect_upload(io.BytesIO(out.getvalue()), filename="a.webp")
    after = open_result(result)
    assert after.mode == "RGBA"
    assert after.getpixel((5, 5))[3] == 0
    assert after.getpixel((35, 5))[3] == 255


def test_sha256_and_size_describe_the_cleaned_bytes():
    result = inspect_upload(io.BytesIO(jpeg_bytes(exif=_exif_with_gps())), filename="a.jpg")
    assert result.size == len(result.data)
    assert result.sha256 == hashlib.sha256(result.data).hexdigest()


# --------------------------------------------------------------------------- limits


def test_an_image_exactly_at_the_byte_limit_is_accepted_and_one_byte_over_is_413():
    data = jpeg_bytes()
    ok = inspect_upload(io.BytesIO(data), filename="a.jpg", max_image_bytes=len(data))
    assert ok.kind == "image"
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(data), filename="a.jpg", max_image_bytes=len(data) - 1)
    assert (exc.value.status, exc.value.code) == (413, "too_large")


def test_a_huge_stream_is_refused_while_reading_without_reading_it_all():
    stream = CountingStream(jpeg_bytes()[:64])
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(stream, filename="huge.jpg", max_image_bytes=300_000, chunk_size=64 * 1024)
    assert (exc.value.status, exc.value.code) == (413, "too_large")
    assert stream.pos <= 300_000 + 64 * 1024 + 64


def test_a_declared_size_over_the_limit_is_refused_before_reading_the_body():
    class Uploaded(io.BytesIO):
        size = 10**12

    stream = Uploaded(jpeg_bytes())
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(stream, filename="a.jpg")
    assert exc.value.status == 413
    assert stream.tell() == 64


def test_default_limits_match_the_design():
    assert processing.MAX_IMAGE_BYTES == 20 * 1024 * 1024
    assert processing.MAX_VIDEO_BYTES == 500 * 1024 * 1024
    assert processing.MAX_IMAGE_SIDE == 8192


def test_an_image_8192_px_wide_is_accepted():
    data = png_bytes(Image.new("L", (8192, 2), 128))
    result = inspect_upload(io.BytesIO(data), filename="wide.png")
    assert (result.width, result.height) == (8192, 2)
    assert result.thumbnail_size == (480, 1)


def test_an_image_8193_px_on_a_side_is_refused():
    for size in ((8193, 2), (2, 8193)):
        data = png_bytes(Image.new("L", size, 128))
        with pytest.raises(UploadRejected) as exc:
            inspect_upload(io.BytesIO(data), filename="wide.png")
        assert (exc.value.status, exc.value.code) == (400, "image_too_large")


def test_a_decompression_bomb_png_is_refused_without_decoding_it():
    data = bomb_png_bytes(20000, 20000)
    assert len(data) < 200_000  # 400 million pixels in a few kilobytes
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(data), filename="innocent.png")
    assert (exc.value.status, exc.value.code) == (400, "decompression_bomb")


def test_the_pixel_budget_is_enforced_even_below_pillows_own_threshold():
    data = png_bytes(Image.new("L", (100, 100)))
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(data), filename="a.png", max_image_pixels=9_999)
    assert exc.value.code == "decompression_bomb"
    assert inspect_upload(io.BytesIO(data), filename="a.png", max_image_pixels=10_000).width == 100


def test_an_animation_over_the_frame_pixel_budget_is_refused():
    data = animated_gif_bytes(frames=5, size=(60, 40))
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(data), filename="a.gif", max_animation_pixels=60 * 40 * 4)
    assert exc.value.code == "decompression_bomb"


def test_make_thumbnail_refuses_a_decompression_bomb():
    with pytest.raises(UploadRejected) as exc:
        make_thumbnail(bomb_png_bytes(20000, 20000))
    assert exc.value.code == "decompression_bomb"


# --------------------------------------------------------------------------- corrupt


def test_a_truncated_jpeg_is_refused_as_corrupt():
    data = jpeg_bytes(Image.effect_noise((300, 300), 80).convert("RGB"))
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(data[: len(data) // 2]), filename="cut.jpg")
    assert (exc.value.status, exc.value.code) == (400, "corrupt")


def test_a_jpeg_signature_followed_by_garbage_is_refused_as_corrupt():
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(b"\xff\xd8\xff\xe0" + os.urandom(2000)), filename="x.jpg")
    assert (exc.value.status, exc.value.code) == (400, "corrupt")


def test_a_png_with_a_damaged_body_is_refused_as_corrupt():
    data = bytearray(png_bytes(Image.effect_noise((100, 100), 80)))
    data[60:200] = b"\x00" * 140
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(bytes(data)), filename="x.png")
    assert (exc.value.status, exc.value.code) == (400, "corrupt")


# --------------------------------------------------------------------------- thumbnails


def test_thumbnails_are_jpegs_bounded_to_480_px_on_the_long_side():
    result = inspect_upload(io.BytesIO(jpeg_bytes(_landscape_marked(2000, 1000))), filename="a.jpg")
    assert result.thumbnail_size == (480, 240)
    thumb = Image.open(io.BytesIO(result.thumbnail))
    assert thumb.format == "JPEG" and thumb.size == (480, 240)

    tall = inspect_upload(io.BytesIO(png_bytes(Image.new("RGB", (300, 1500)))), filename="t.png")
    assert tall.thumbnail_size == (96, 480)


def test_thumbnails_are_never_upscaled():
    result = inspect_upload(io.BytesIO(jpeg_bytes(_landscape_marked(100, 50))), filename="s.jpg")
    assert result.thumbnail_size == (100, 50)


def test_make_thumbnail_applies_orientation_flattens_alpha_and_honours_max_side():
    rotated = jpeg_bytes(_landscape_marked(1000, 500), exif=_exif_with_gps(orientation=8))
    data, size = make_thumbnail(rotated, max_side=100)
    assert size == (50, 100)
    thumb = Image.open(io.BytesIO(data))
    assert thumb.format == "JPEG" and thumb.size == (50, 100)
    assert dict(thumb.getexif()) == {}

    transparent = png_bytes(Image.new("RGBA", (800, 400), (0, 0, 0, 0)))
    data, size = make_thumbnail(transparent)
    assert size == (480, 240)
    assert Image.open(io.BytesIO(data)).convert("RGB").getpixel((10, 10)) == (255, 255, 255)


def test_make_thumbnail_refuses_bytes_that_are_not_an_image():
    with pytest.raises(UploadRejected) as exc:
        make_thumbnail(b"hello")
    assert exc.value.code == "corrupt"


# --------------------------------------------------------------------------- videos


def test_an_mp4_is_spooled_to_a_file_and_its_duration_codec_and_size_are_read(tmp_path):
    src = tmp_path / "clip.mp4"
    encode_video(src, fmt="mp4", frames=50, fps=25, size=(640, 360))
    raw = src.read_bytes()
    spool = tmp_path / "spool"
    spool.mkdir()

    with open(src, "rb") as fh:
        result = inspect_upload(
            fh, filename="clip.jpg", declared_content_type="image/jpeg", temp_dir=str(spool), chunk_size=4096
        )
    try:
        assert result.kind == "video"
        assert (result.content_type, result.extension) == ("video/mp4", "mp4")
        assert result.codec == "h264"
        assert result.duration == pytest.approx(2.0, abs=0.05)
        assert (result.width, result.height) == (640, 360)
        assert result.size == len(raw)
        assert result.sha256 == hashlib.sha256(raw).hexdigest()
        assert isinstance(result.data, str) and os.path.dirname(result.data) == str(spool)
        with open(result.data, "rb") as fh:
            assert fh.read() == raw
        thumb = Image.open(io.BytesIO(result.thumbnail))
        assert thumb.format == "JPEG"
        assert result.thumbnail_size == thumb.size == (480, 270)
        assert result.original_filename == "clip.jpg"
    finally:
        result.cleanup()
    assert list(spool.iterdir()) == []


def test_a_mov_is_recognised_as_quicktime(tmp_path):
    src = tmp_path / "movie.mov"
    encode_video(src, fmt="mov", codec="mpeg4", frames=10, fps=10, size=(96, 64))
    assert src.read_bytes()[4:12] == b"ftypqt  "
    result = inspect_upload(io.BytesIO(src.read_bytes()), filename="movie.mp4", temp_dir=str(tmp_path))
    try:
        assert (result.content_type, result.extension) == ("video/quicktime", "mov")
        assert result.codec == "mpeg4"
        assert result.duration == pytest.approx(1.0, abs=0.11)
        assert (result.width, result.height) == (96, 64)
        assert result.thumbnail_size == (96, 64)
        assert result.data.endswith(".mov")
    finally:
        result.cleanup()


def test_a_portrait_phone_video_gets_its_rotation_applied_to_size_and_thumbnail(tmp_path):
    src = tmp_path / "phone.mp4"
    size = (64, 32)
    with av.open(str(src), mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=10)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        for _ in range(5):
            picture = _landscape_marked(*size)
            for packet in stream.encode(av.VideoFrame.from_image(picture)):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    data = bytearray(src.read_bytes())
    # Write a 90-degree clockwise display matrix into the track header, as
    # phones do for portrait recordings (tkhd v0: the matrix follows 40 bytes).
    matrix_at = data.index(b"tkhd") + 4 + 40
    data[matrix_at : matrix_at + 36] = struct.pack(
        ">9i", 0, 0x10000, 0, -0x10000, 0, 0, size[1] << 16, 0, 0x40000000
    )
    result = inspect_upload(io.BytesIO(bytes(data)), filename="phone.mp4", temp_dir=str(tmp_path))
    try:
        assert (result.width, result.height) == (32, 64)
        assert result.thumbnail_size == (32, 64)
        thumb = Image.open(io.BytesIO(result.thumbnail)).convert("RGB")
        top, bottom = thumb.getpixel((16, 8)), thumb.getpixel((16, 56))
        assert top[0] > 200 and top[2] < 60  # the red left half is now on top
        assert bottom[2] > 200 and bottom[0] < 60
    finally:
        result.cleanup()


def test_a_video_over_the_byte_limit_is_413_and_leaves_no_temp_file(tmp_path):
    src = tmp_path / "clip.mp4"
    encode_video(src, fmt="mp4", frames=10)
    raw = src.read_bytes()
    spool = tmp_path / "spool"
    spool.mkdir()
    ok = inspect_upload(io.BytesIO(raw), filename="c.mp4", max_video_bytes=len(raw), temp_dir=str(spool))
    ok.cleanup()
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(
            io.BytesIO(raw),
            filename="c.mp4",
            max_video_bytes=len(raw) - 1,
            temp_dir=str(spool),
            chunk_size=512,
        )
    assert (exc.value.status, exc.value.code) == (413, "too_large")
    assert list(spool.iterdir()) == []


def test_video_limit_is_separate_from_the_image_limit(tmp_path):
    src = tmp_path / "clip.mp4"
    encode_video(src, fmt="mp4", frames=10)
    raw = src.read_bytes()
    result = inspect_upload(io.BytesIO(raw), filename="c.mp4", max_image_bytes=10, temp_dir=str(tmp_path))
    result.cleanup()
    assert result.kind == "video"


def test_a_truncated_mp4_is_refused_as_corrupt_and_cleaned_up(tmp_path):
    src = tmp_path / "clip.mp4"
    encode_video(src, fmt="mp4", frames=25)
    raw = src.read_bytes()
    spool = tmp_path / "spool"
    spool.mkdir()
    # faststart is off, so moov is at the end: cutting it leaves an unplayable file.
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(raw[: len(raw) // 2]), filename="c.mp4", temp_dir=str(spool))
    assert (exc.value.status, exc.value.code) == (400, "corrupt")
    assert list(spool.iterdir()) == []


def test_an_mp4_without_a_video_stream_is_refused(tmp_path):
    src = tmp_path / "audio.mp4"
    with av.open(str(src), mode="w", format="mp4") as container:
        stream = container.add_stream("aac", rate=16000)
        stream.layout = "mono"
        for i in range(20):
            frame = av.AudioFrame(format="fltp", layout="mono", samples=1024)
            for plane in frame.planes:
                plane.update(bytes(plane.buffer_size))
            frame.sample_rate = 16000
            frame.pts = i * 1024
            frame.time_base = Fraction(1, 16000)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    with pytest.raises(UploadRejected) as exc:
        inspect_upload(io.BytesIO(src.read_bytes()), filename="a.mp4", temp_dir=str(tmp_path))
    assert (exc.value.status, exc.value.code) == (400, "unsupported_type")


# --------------------------------------------------------------------------- names


def test_original_filenames_are_reduced_to_a_safe_basename():
    assert sanitize_filename("../../etc/pass wd<script>.jpg") == "pass_wd_script_.jpg"
    assert sanitize_filename("C:\\Users\\bob\\Desktop\\photo (1).JPG") == "photo_1_.JPG"
    assert sanitize_filename(".htaccess") == "htaccess"
    assert sanitize_filename("") == "upload"
    assert sanitize_filename("////") == "upload"
    long = sanitize_filename("a" * 500 + ".png")
    assert len(long) == 200 and long.endswith(".png")
    result = inspect_upload(io.BytesIO(jpeg_bytes()), filename="/tmp/../évil name?.jpg")
    assert result.original_filename == "evil_name_.jpg"


def test_bytes_can_be_passed_directly():
    result = inspect_upload(jpeg_bytes(), filename="a.jpg")
    assert result.kind == "image"
