"""Issue 21, platform previews: a story drawn full screen with the app's interface over its safe
zones, and a carousel that shows every slide, on the content page in Chromium against the real
`serve` (screenshots under var/screenshots/)."""

from __future__ import annotations

import pytest

from .conftest import SHOTS, login

pytestmark = pytest.mark.services


def _uuid(cnt_id: str) -> str:
    raw = cnt_id.removeprefix("cnt_")
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None
    return box


def test_a_story_preview_shows_the_interface_over_its_safe_zones(browser, serve):
    story = serve.generate(
        "Last call: the autumn menu ends Sunday", ["instagram"], media={"generate": True, "postType": "story"}
    )
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/content/content/{_uuid(story['id'])}/change/")
    preview = page.locator('.pv[data-platform="instagram"]').first
    frame = preview.locator(".pv-media.pv-vertical")
    frame_box = _box(frame)
    assert abs(frame_box["height"] / frame_box["width"] - 16 / 9) < 0.02  # the 9:16 screen
    top, bottom, safe = (
        _box(preview.locator(".pv-ui-top")),
        _box(preview.locator(".pv-ui-bottom")),
        _box(preview.locator(".pv-safe-box")),
    )
    assert abs(top["height"] / frame_box["height"] - 0.14) < 0.01
    assert abs(bottom["height"] / frame_box["height"] - 0.14) < 0.01
    assert abs(safe["y"] - (frame_box["y"] + top["height"])) < 1.5  # the safe zone starts below the bar
    assert preview.locator(".pv-ui-top").inner_text() == "progress bar · profile"
    assert preview.locator(".pv-media img").evaluate("(img) => img.complete && img.naturalWidth > 0")
    SHOTS.mkdir(parents=True, exist_ok=True)
    preview.screenshot(path=str(SHOTS / "preview-story-safe-zones.png"))
    # the reviewer can take the interface away to see the whole picture
    preview.locator(".pv-sz-toggle").uncheck()
    assert preview.locator(".pv-safe").is_hidden()
    page.context.close()


def test_a_carousel_preview_shows_every_slide(browser, serve):
    carousel = serve.generate(
        "Three new single origins this week", ["instagram"], media={"generate": True, "count": 3}
    )
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/content/content/{_uuid(carousel['id'])}/change/")
    preview = page.locator('.pv[data-platform="instagram"]').first
    assert preview.locator(".pv-media").get_attribute("data-slides") == "3"
    slides = preview.locator(".pv-slide")
    assert slides.count() == 3
    assert preview.locator(".pv-strip-item img").count() == 3  # all three in a row
    assert preview.locator(".pv-count").all_inner_texts() == ["1/3", "2/3", "3/3"]
    # the strip scrolls to the third slide, which is then the one in the frame
    slides.nth(2).scroll_into_view_if_needed()
    frame, third = _box(preview.locator(".pv-media")), _box(slides.nth(2))
    assert abs(third["x"] - frame["x"]) < 2
    SHOTS.mkdir(parents=True, exist_ok=True)
    preview.screenshot(path=str(SHOTS / "preview-carousel.png"))
    page.context.close()
