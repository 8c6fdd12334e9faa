"""Previews of full-screen vertical posts show the app's interface over its safe zones, and a
carousel shows every slide (apps/platforms/preview.py, safe_zones.py, templates/previews/)."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from apps.platforms.preview import MediaView, post_preview
from apps.platforms.safe_zones import REEL, SHORT, STORY, TIKTOK, safe_zone

PICTURE = [MediaView("/media/a.jpg")]


@pytest.mark.parametrize(
    ("platform", "post_type", "zone"),
    [
        ("instagram", "story", STORY),
        ("facebook", "story", STORY),
        ("instagram", "reel", REEL),
        ("facebook", "reel", REEL),
        ("tiktok", "feed", TIKTOK),
        ("tiktok", "reel", TIKTOK),
        ("youtube", "short", SHORT),
        ("instagram", "feed", None),
        ("youtube", "feed", None),
        ("x", "story", None),
        ("linkedin", "feed", None),
    ],
)
def test_each_full_screen_post_type_has_its_zone_and_a_feed_post_none(platform, post_type, zone):
    assert safe_zone(platform, post_type) is zone


def test_a_story_is_drawn_full_screen_with_the_interface_over_its_edges():
    p = post_preview(platform="instagram", caption="Hi", ratio="4:5", media=PICTURE, post_type="story")
    assert (p.safe_zone, p.ratio, p.aspect) == (STORY, "9:16", "9 / 16")  # full screen, not the feed's 4:5
    html = render_to_string("previews/post.html", {"p": p})
    assert 'class="pv-media pv-vertical"' in html
    assert 'data-safe-zone="story"' in html
    assert "--sz-top: 14%; --sz-bottom: 14%; --sz-left: 0%; --sz-right: 0%" in html
    assert "progress bar · profile" in html and "Send message · reply bar" in html
    assert "pv-ui-right" not in html  # a story has no button rail
    assert 'class="pv-sz-toggle" checked' in html


def test_a_reel_has_its_button_rail_and_a_feed_post_no_overlay():
    reel = render_to_string(
        "previews/post.html",
        {"p": post_preview(platform="instagram", caption="Hi", media=PICTURE, post_type="reel")},
    )
    assert 'data-safe-zone="reel"' in reel and "pv-ui-right" in reel and "--sz-bottom: 35%" in reel
    feed = post_preview(platform="instagram", caption="Hi", ratio="4:5", media=PICTURE)
    assert feed.safe_zone is None and feed.aspect == "4 / 5"
    assert "pv-safe" not in render_to_string("previews/post.html", {"p": feed})
    no_media = post_preview(platform="instagram", caption="Hi", post_type="story")
    assert no_media.safe_zone is None  # nothing to cover


def test_a_carousel_shows_every_slide_numbered_and_a_row_of_them_all():
    media = [MediaView(f"/media/{n}.jpg") for n in range(1, 4)] + [
        MediaView("/media/4.mp4", kind="video", poster="/media/4.jpg")
    ]
    p = post_preview(platform="instagram", caption="Four", ratio="1:1", media=media)
    assert p.is_carousel
    html = render_to_string("previews/post.html", {"p": p})
    slides = re.findall(r'class="pv-slide" data-slide="(\d)"', html)
    assert slides == ["1", "2", "3", "4"]
    assert [f"{n}/4" for n in range(1, 5)] == re.findall(r'class="pv-count">(\d/4)<', html)
    assert re.findall(r'class="pv-strip-item" data-slide="(\d)"', html) == ["1", "2", "3", "4"]
    assert 'src="/media/3.jpg"' in html and 'poster="/media/4.jpg"' in html and 'src="/media/4.mp4"' in html
    one = render_to_string(
        "previews/post.html", {"p": post_preview(platform="instagram", caption="One", media=PICTURE)}
    )
    assert "pv-slide" not in one and "pv-strip" not in one


@pytest.mark.parametrize(
    ("platform", "post_type", "label"),
    [
        ("tiktok", "feed", "Show the TikTok interface over the frame"),
        ("instagram", "story", "Show the Instagram story interface over the frame"),
        ("instagram", "reel", "Show the Instagram reel interface over the frame"),
        ("youtube", "short", "Show the YouTube Shorts interface over the frame"),
    ],
)
def test_the_switchs_label_names_the_interface_once(platform, post_type, label):
    """Issue 28: the label read "TikTok tiktok interface"."""
    p = post_preview(platform=platform, caption="Hi", media=PICTURE, post_type=post_type)
    html = render_to_string("previews/post.html", {"p": p})
    assert label in html
    assert "TikTok tiktok" not in html
