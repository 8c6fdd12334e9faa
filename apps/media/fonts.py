"""A brand's own typefaces as uploads (issue 30): the font is recognised from its bytes (TTF, OTF
or WOFF2), read whole with fontTools (every table must parse), measured for the scripts its cmap
covers, and refused when its OS/2 ``fsType`` forbids embedding (restricted-licence embedding,
bit 1 = 0x0002) or when it is larger than the cap. WOFF2 is decompressed (fontTools with
``brotli``) and stored as the TTF/OTF it wraps, so the renderer reads it directly."""

from __future__ import annotations

import hashlib
import io
from typing import Any

from .upload_rules import MB, ProcessedUpload, UploadRejected, _too_large

MAX_FONT_BYTES = 30 * MB  # a full CJK OpenType font is ~16-25 MB

#: the magic numbers of the font containers accepted, and what each is
FONT_MAGIC: dict[bytes, str] = {
    b"\x00\x01\x00\x00": "ttf",
    b"true": "ttf",
    b"OTTO": "otf",
    b"wOF2": "woff2",
}
#: containers recognised but refused (with a reason naming what to send instead)
OTHER_FONT_MAGIC: dict[bytes, str] = {b"wOFF": "WOFF 1.0", b"ttcf": "a font collection (TTC)"}

REQUIRED_TABLES = ("cmap", "head", "hhea", "hmtx", "maxp", "name", "post")

#: fsType bits (OpenType OS/2): usage permissions in bits 0-3
FS_RESTRICTED = 0x0002
FS_PREVIEW_PRINT = 0x0004
FS_EDITABLE = 0x0008
FS_BITMAP_ONLY = 0x0200

#: letters that show a script is covered: the font covers the script when it has at least
#: ``SCRIPT_SHARE`` of them
_SAMPLES: dict[str, str] = {
    "latin": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "latin-extended": "ÀÁÂÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÖØÙÚÛÜßàáâäåæçèéêëìíîïñòóôöøùúûüÿĀāČčĘęŁłŃńŒœŠšŽž",
    "cyrillic": "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюя",
    "greek": "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρστυφχψω",
    "arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
    "hebrew": "אבגדהוזחטיכלמנסעפצקרשת",
    "devanagari": "अआइईउऊएऐओऔकखगघचछजझटठडढणतथदधनपफबभमयरलवशषसह",
    "thai": "กขคงจฉชซญดตถทธนบปผพฟภมยรลวศษสหอฮ",
    "japanese-kana": "あいうえおかきくけこさしすせそたちつてとなにぬねのアイウエオカキクケコサシスセソ",
    "cjk": "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年日本東京新店開",
    "hangul": "가나다라마바사아자차카타파하한국어서울",
}
SCRIPT_SHARE = 0.9


def font_container(head: bytes) -> str | None:
    """``ttf``, ``otf`` or ``woff2`` when ``head`` starts like one of the accepted fonts."""
    return FONT_MAGIC.get(bytes(head[:4]))


def is_font(head: bytes) -> bool:
    """Whether ``head`` starts like any font file (accepted or not)."""
    return bytes(head[:4]) in FONT_MAGIC or bytes(head[:4]) in OTHER_FONT_MAGIC


def scripts_covered(cmap: set[int] | frozenset[int]) -> list[str]:
    """The scripts of ``_SAMPLES`` the code points ``cmap`` cover."""
    found = []
    for script, letters in _SAMPLES.items():
        have = sum(1 for ch in letters if ord(ch) in cmap)
        if have >= SCRIPT_SHARE * len(letters):
            found.append(script)
    return found


def _rejected(code: str, message: str, **details: Any) -> UploadRejected:
    return UploadRejected(code, message, status=400, details=details)


def inspect_font(data: bytes, *, filename: str, max_bytes: int = MAX_FONT_BYTES) -> ProcessedUpload:
    """Check one font upload and return what to store: the TTF/OTF bytes (a WOFF2 decompressed),
    with ``extra`` holding the font's family, style, glyph count, the scripts it covers, its
    ``fsType`` and the container it came in. Raises ``UploadRejected`` with the reason."""
    from fontTools.ttLib import TTFont, TTLibError

    from .processing import sanitize_filename

    if len(data) > max_bytes:
        raise _too_large(max_bytes, "font")
    magic = bytes(data[:4])
    if magic in OTHER_FONT_MAGIC:
        raise _rejected(
            "unsupported_font",
            f"This is {OTHER_FONT_MAGIC[magic]}; send the font as TTF, OTF or WOFF2.",
        )
    container = font_container(data)
    if container is None:
        raise _rejected("not_a_font", "The file is not a font: send a TTF, OTF or WOFF2 file.")
    if container == "woff2":
        try:
            import brotli  # noqa: F401
        except ImportError:  # pragma: no cover - brotli is a dependency
            raise _rejected("woff2_unsupported", "This server cannot read WOFF2; send TTF or OTF.") from None
    try:
        font = TTFont(io.BytesIO(data), lazy=False, fontNumber=-1)
        missing = [tag for tag in REQUIRED_TABLES if tag not in font]
        if "glyf" not in font and "CFF " not in font and "CFF2" not in font:
            missing.append("glyf/CFF")
        if missing:
            raise _rejected(
                "broken_font",
                f"The font lacks the tables {', '.join(missing)}: it cannot be drawn.",
                missing_tables=missing,
            )
        for tag in font.keys():  # noqa: SIM118 - every table must parse, not just its entry
            if tag != "GlyphOrder":
                font[tag]
        cmap = set(font.getBestCmap() or {})
        os2 = font.get("OS/2")
        fs_type = int(getattr(os2, "fsType", 0) or 0)
        names = font["name"]
        family = str(names.getDebugName(16) or names.getDebugName(1) or "")
        style = str(names.getDebugName(17) or names.getDebugName(2) or "")
        glyphs = len(font.getGlyphOrder())
        weight = int(getattr(os2, "usWeightClass", 400) or 400)
        outlines = "cff" if ("CFF " in font or "CFF2" in font) else "truetype"
        out = io.BytesIO()
        if container == "woff2":
            font.flavor = None
            font.save(out)
            stored = out.getvalue()
        else:
            stored = bytes(data)
        font.close()
    except UploadRejected:
        raise
    except (TTLibError, Exception) as exc:  # noqa: BLE001 - any parse failure is a broken font
        raise _rejected(
            "broken_font", f"The font could not be read ({type(exc).__name__}): the file is damaged."
        ) from None
    if not cmap:
        raise _rejected("broken_font", "The font maps no characters (its cmap is empty).")
    if fs_type & FS_RESTRICTED and not fs_type & (FS_PREVIEW_PRINT | FS_EDITABLE):
        raise _rejected(
            "font_embedding_restricted",
            "The font's licence forbids embedding (OS/2 fsType 0x0002, restricted licence "
            "embedding), so it cannot be drawn into published images: use a font licensed for "
            "embedding.",
            fs_type=fs_type,
        )
    ext = "otf" if outlines == "cff" else "ttf"
    return ProcessedUpload(
        kind="font",
        content_type=f"font/{ext}",
        extension=ext,
        data=stored,
        size=len(stored),
        width=0,
        height=0,
        sha256=hashlib.sha256(stored).hexdigest(),
        thumbnail=b"",
        thumbnail_size=(0, 0),
        original_filename=sanitize_filename(filename),
        extra={
            "family": family,
            "style": style,
            "weight": weight,
            "glyphs": glyphs,
            "scripts": scripts_covered(cmap),
            "fsType": fs_type,
            "container": container,
            "uploadedSize": len(data),
        },
    )


def font_file(asset: Any) -> str | None:
    """A path on this machine to the uploaded font ``asset`` (a ``MediaAsset`` of kind font): the
    stored file itself on local storage, else a copy kept under ``VAR_DIR/font-cache`` by its
    digest (S3 storage has no paths and FreeType reads files)."""
    from pathlib import Path

    from django.conf import settings

    if not asset.file:
        return None
    try:
        path = asset.file.path
    except (NotImplementedError, AttributeError, ValueError):
        path = None
    if path and Path(path).is_file():
        return str(path)
    ext = "otf" if asset.content_type == "font/otf" else "ttf"
    digest = asset.sha256 or hashlib.sha256(str(asset.pk).encode()).hexdigest()
    cached = Path(settings.VAR_DIR) / "font-cache" / f"{digest}.{ext}"
    if not cached.is_file():
        try:
            with asset.file.open("rb") as fh:
                data = fh.read()
        except OSError:
            return None
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{ext}.part")
        tmp.write_bytes(data)
        tmp.replace(cached)
    return str(cached)
