"""Two pages issue 30 added, under the real `serve` as `make run` starts it (no static or media
serving by a test server: what serve itself serves), in headless Chromium: a brand's font
uploaded in the admin, and a content's own picture per platform shape on its page, each image
loaded from serve's media URL."""

from __future__ import annotations

import pytest

from tests.media.test_brand_fonts import latin_font

from .conftest import login, shot

pytestmark = [pytest.mark.services, pytest.mark.browser]


def _uuid(prefixed: str) -> str:
    raw = prefixed.split("_", 1)[1]
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def test_a_brand_font_uploaded_in_the_admin_under_serve(browser, serve, tmp_path):
    # a brand of its own: the font (every glyph a slab) would set the headlines of every picture
    # the demo brand makes for the other tests on this server
    made = serve.v1("POST", "/brands", json={"name": "Slab Foundry"})
    assert made.status_code == 201, made.text
    brand = made.json()
    font = tmp_path / "ServeSlab.ttf"
    font.write_bytes(latin_font(family="Serve Slab"))
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/media/fonts/upload/")
    page.select_option("#id_brand", _uuid(brand["id"]))
    page.set_input_files("#id_file", str(font))
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("input[type=submit]")
    assert answer.value.status == 200
    assert "Serve Slab (latin)" in page.inner_text(".messagelist")
    assert "ServeSlab.ttf" in page.inner_text("#brand-fonts")
    # the admin's own stylesheet came from serve (no test server fills in static files)
    loaded = page.evaluate(
        "[...document.styleSheets].filter(s => s.href && s.href.includes('/static/admin/css/base')"
        " && s.cssRules.length > 0).length"
    )
    assert loaded == 1
    shot(page, "serve-brand-font-upload")
    # stored as a font asset of that brand, in serve's own database
    stored = serve.python(
        "from apps.media.models import Kind, MediaAsset\n"
        f"print(MediaAsset.objects.filter(kind=Kind.FONT, brand_id={_uuid(brand['id'])!r}).count())"
    )
    assert stored.strip() == "1"


def test_each_platform_shape_has_its_own_picture_on_the_content_page_under_serve(browser, serve):
    content = serve.generate(
        "Our bakery opens a second shop on Mill Street on 3 May: 20% off all loaves that weekend.",
        ["instagram", "linkedin"],
        media={"generate": True},
    )
    assert content["status"] not in ("failed",), content
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/content/content/{_uuid(content['id'])}/change/")
    figures = page.locator("#pf-media figure.pf-medium")
    captions = [figures.nth(i).locator("figcaption").inner_text() for i in range(figures.count())]
    shapes = {}
    for i, caption in enumerate(captions):
        img = figures.nth(i).locator("img")
        img.scroll_into_view_if_needed()
        page.wait_for_function("(img) => img.complete", arg=img.element_handle())
        natural = img.evaluate("(img) => [img.naturalWidth, img.naturalHeight]")
        assert natural[0] > 0, (caption, "the picture did not load from serve's media URL")
        shapes[caption] = natural[0] / natural[1]
    instagram = [r for c, r in shapes.items() if "4:5 for instagram" in c.lower()]
    linkedin = [r for c, r in shapes.items() if "for linkedin" in c.lower() and "1.91:1" in c]
    assert instagram and linkedin, captions
    assert instagram[0] == pytest.approx(4 / 5, abs=0.02)
    assert linkedin[0] == pytest.approx(1.91, abs=0.03)
    shot(page, "serve-content-pictures-per-platform")
