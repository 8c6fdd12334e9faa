"""A brand's own fonts (issue 30): uploaded through both families, checked with fontTools (tables,
scripts, the OS/2 embedding permission), and used by the designs the local engine draws, with a
covering fallback for the scripts the brand's font lacks."""

from __future__ import annotations

import io
import string

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont

from apps.brands.models import Brand
from apps.generation.base import BrandVoice
from apps.generation.local_media.brief import spec_from_text
from apps.generation.local_media.design import compose
from apps.generation.media_design import brand_fonts
from apps.media.models import Kind, MediaAsset

pytestmark = pytest.mark.django_db

LATIN = string.ascii_letters + string.digits + ".,!?'-:%$&"
BRAND = BrandVoice(name="Crumb Co", tone="friendly", primary_color="#7A3E2B", secondary_color="#F2C572")


def latin_font(*, fs_type: int = 0, family: str = "Crumb Block", flavor: str | None = None) -> bytes:
    """A tiny TrueType font: every glyph of ``LATIN`` a slab (so it draws unlike any Noto)."""
    names = [".notdef", "space", *(f"g{ord(c)}" for c in LATIN)]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({32: "space", **{ord(c): f"g{ord(c)}" for c in LATIN}})
    glyphs = {}
    for name in names:
        pen = TTGlyphPen(None)
        if name != "space":
            pen.moveTo((50, 0))
            pen.lineTo((50, 700))
            pen.lineTo((550, 700))
            pen.lineTo((550, 0))
            pen.closePath()
        glyphs[name] = pen.glyph()
    fb.setupGlyf(glyphs)
    fb.setupHorizontalMetrics({n: (600, 50) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": family, "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200, fsType=fs_type)
    fb.setupPost()
    if flavor:
        fb.font.flavor = flavor
    out = io.BytesIO()
    fb.save(out)
    return out.getvalue()


def font_upload(data: bytes, name: str = "CrumbBlock.ttf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="font/ttf")


@pytest.fixture
def b(owner):
    return owner.token_client(subject="fonts-owner")


def new_brand(api) -> str:
    return api.post("/v1/brands", {"name": "Crumb Co"}, format="json").json()["id"]


# --- upload: Family A -----------------------------------------------------------------------


def test_v1_accepts_a_font_and_reports_the_scripts_it_covers(api, owner):
    brand_id = new_brand(api)
    response = api.post(
        f"/v1/brands/{brand_id}/assets",
        {"file": font_upload(latin_font()), "type": "font"},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["type"] == "font"
    assert body["metadata"]["contentType"] == "font/ttf"
    assert body["metadata"]["font"]["family"] == "Crumb Block"
    assert body["metadata"]["font"]["scripts"] == ["latin"]
    assert body["metadata"]["font"]["fsType"] == 0
    asset = MediaAsset.objects.get(organization=owner.org)
    assert asset.kind == Kind.FONT
    TTFont(asset.file.path)  # the stored file is the font itself


def test_v1_refuses_a_font_whose_licence_forbids_embedding(api, owner):
    brand_id = new_brand(api)
    response = api.post(
        f"/v1/brands/{brand_id}/assets",
        {"file": font_upload(latin_font(fs_type=2)), "type": "font"},
        format="multipart",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["details"]["reason"] == "font_embedding_restricted"
    assert "fsType 0x0002" in error["message"]
    assert not MediaAsset.objects.filter(organization=owner.org).exists()


def test_v1_refuses_a_broken_font(api, owner):
    brand_id = new_brand(api)
    data = latin_font()
    broken = data[:12] + b"\x00" * 200 + data[212:]  # the table directory destroyed
    response = api.post(
        f"/v1/brands/{brand_id}/assets", {"file": font_upload(broken), "type": "font"}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"]["reason"] == "broken_font"
    not_a_font = api.post(
        f"/v1/brands/{brand_id}/assets",
        {"file": font_upload(b"hello, I am text"), "type": "font"},
        format="multipart",
    )
    assert not_a_font.status_code == 400
    assert not_a_font.json()["error"]["details"]["reason"] == "not_a_font"
    assert not MediaAsset.objects.filter(organization=owner.org).exists()


def test_v1_accepts_woff2_and_stores_the_decompressed_font(api, owner):
    pytest.importorskip("brotli")
    brand_id = new_brand(api)
    woff2 = latin_font(flavor="woff2")
    assert woff2[:4] == b"wOF2"
    response = api.post(
        f"/v1/brands/{brand_id}/assets",
        {"file": font_upload(woff2, "CrumbBlock.woff2"), "type": "font"},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["metadata"]["font"]["container"] == "woff2"
    asset = MediaAsset.objects.get(organization=owner.org)
    with open(asset.file.path, "rb") as fh:
        assert fh.read(4) == b"\x00\x01\x00\x00"


def test_a_font_sent_as_a_plain_brand_asset_is_stored_as_a_font(api, owner):
    brand_id = new_brand(api)
    response = api.post(
        f"/v1/brands/{brand_id}/assets", {"file": font_upload(latin_font())}, format="multipart"
    )
    assert response.status_code == 201
    assert response.json()["type"] == "font"
    assert MediaAsset.objects.get(organization=owner.org).kind == Kind.FONT


# --- upload: Family B -----------------------------------------------------------------------


def test_api_uploads_a_font_for_a_brand(b, owner, api):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    response = b.post(
        "/api/media/upload",
        {"file": font_upload(latin_font()), "kind": "font", "brandId": str(brand.pk)},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()["data"]
    assert (body["kind"], body["type"], body["brandId"]) == ("font", "font", str(brand.pk))
    assert body["font"]["scripts"] == ["latin"]
    listed = b.get("/api/media", {"kind": "font"}).json()["data"]
    assert [m["id"] for m in listed] == [body["id"]]  # the brand's fonts, listed by kind


def test_api_refuses_a_restricted_font_in_its_own_format(b, owner):
    response = b.post(
        "/api/media/upload", {"file": font_upload(latin_font(fs_type=2)), "kind": "font"}, format="multipart"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["details"]["reason"] == "font_embedding_restricted"
    assert "forbids embedding" in body["error"]
    assert not MediaAsset.objects.filter(organization=owner.org).exists()


def test_api_refuses_a_broken_font(b, owner):
    response = b.post(
        "/api/media/upload", {"file": font_upload(b"OTTO" + b"\x00" * 64), "kind": "font"}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["details"]["reason"] == "broken_font"


# --- the designs use it ---------------------------------------------------------------------


def _spec(headline: str, facts: list[str], fonts: tuple[str, ...], language: str = "en") -> dict:
    spec = spec_from_text(
        prompt=" ".join(facts),
        hook=headline,
        facts=facts,
        brand=BRAND,
        template="announcement",
        language=language,
    )
    return {**spec, "headline": headline, "fonts": list(fonts)}


def _uploaded_brand_fonts(api, owner) -> tuple[str, ...]:
    brand_id = new_brand(api)
    response = api.post(
        f"/v1/brands/{brand_id}/assets",
        {"file": font_upload(latin_font()), "type": "font"},
        format="multipart",
    )
    assert response.status_code == 201
    brand = Brand.objects.get(organization=owner.org, name="Crumb Co")
    fonts = brand_fonts(brand)
    assert fonts == (MediaAsset.objects.get(kind=Kind.FONT, brand=brand).file.path,)
    return fonts


def test_a_design_for_a_brand_with_its_font_is_set_in_it(api, owner):
    fonts = _uploaded_brand_fonts(api, owner)
    facts = ["Fresh bread daily from 7am."]
    with_font = compose(
        _spec("Fresh bread daily", facts, fonts), 1080, 1080, platform="instagram", brand=BRAND
    )
    without = compose(_spec("Fresh bread daily", facts, ()), 1080, 1080, platform="instagram", brand=BRAND)
    headline = next(b for b in with_font.blocks if b.role == "headline")
    assert headline.set.font.path == fonts[0] and headline.set.font.brand
    assert next(b for b in without.blocks if b.role == "headline").set.font.path != fonts[0]
    a = np.asarray(with_font.draw().convert("L"), dtype=np.int16)
    z = np.asarray(without.draw().convert("L"), dtype=np.int16)
    assert np.abs(a - z).mean() > 0.5  # the slab letters are drawn, not Noto's


def test_the_brand_setting_can_name_the_uploaded_font_by_asset_id(api, owner):
    fonts = _uploaded_brand_fonts(api, owner)
    brand = Brand.objects.get(organization=owner.org, name="Crumb Co")
    asset = MediaAsset.objects.get(kind=Kind.FONT, brand=brand)
    brand.fonts = ["DejaVu Sans", f"ast_{asset.pk.hex}"]  # headline: installed; body: uploaded
    brand.save()
    assert brand_fonts(brand) == ("DejaVu Sans", fonts[0])


def test_a_japanese_post_for_a_latin_only_brand_font_falls_back_without_tofu(api, owner):
    fonts = _uploaded_brand_fonts(api, owner)
    headline = "新しいパン屋が東京に開店します"
    facts = ["毎朝7時から焼きたてのパンをどうぞ。"]
    design = compose(_spec(headline, facts, fonts, "ja"), 1080, 1080, platform="instagram", brand=BRAND)
    design.draw()
    drawn = [b for b in design.blocks if b.role == "headline"]
    assert drawn, "the Japanese headline was not set"
    for block in design.blocks:
        cmap = TTFont(block.set.font.path, lazy=True, fontNumber=0).getBestCmap()
        missing = {ch for line in block.set.lines for ch in line if not ch.isspace() and ord(ch) not in cmap}
        assert not missing, f"{block.role} set in {block.set.font.path} would draw tofu for {missing}"
        if any(ord(ch) > 0x3000 for line in block.set.lines for ch in line):
            assert block.set.font.path != fonts[0]  # the CJK run is not given to the Latin font


# --- through the service: generate a post for the brand -------------------------------------


def test_a_generated_post_for_the_brand_is_set_in_its_uploaded_font(
    api, owner, django_capture_on_commit_callbacks
):
    brand_id = new_brand(api)
    assert (
        api.post(
            f"/v1/brands/{brand_id}/assets",
            {"file": font_upload(latin_font()), "type": "font"},
            format="multipart",
        ).status_code
        == 201
    )
    font = MediaAsset.objects.get(organization=owner.org, kind=Kind.FONT)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/content/generate",
            {
                "prompt": "Fresh bread daily at Crumb Co from 7am. Sourdough and rye every morning.",
                "platforms": ["instagram"],
                "settings": {"brandId": brand_id, "language": "en"},
                "media": {"generate": True, "style": "illustration", "count": 1},
            },
            format="json",
        )
    assert response.status_code == 202, response.content
    body = api.get(f"/v1/content/{response.json()['id']}").json()
    assert body["status"] == "generated", body
    picture = MediaAsset.objects.get(pk=body["media"][0]["id"].removeprefix("med_"))
    design = picture.metadata["design"]
    assert design["fonts"] == [font.file.path]
    assert design["fontFiles"]["headline"] == font.file.path  # the typeset step's own report
    assert design["font"] == "Crumb Block"


def test_a_deleted_brand_font_named_by_an_older_design_falls_back_instead_of_failing(tmp_path):
    from apps.generation.local_media.typeset import font_for

    gone = tmp_path / "Gone.ttf"
    gone.write_bytes(latin_font())
    assert font_for("Fresh bread", brand_fonts=(str(gone),)).path == str(gone)
    gone.unlink()  # the brand deleted the font; an edit of an old picture still names it
    chosen = font_for("Fresh bread", brand_fonts=(str(gone),))
    assert chosen is not None and not chosen.brand
