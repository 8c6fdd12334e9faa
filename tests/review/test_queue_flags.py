"""The review queue's flags per platform variant (apps.content.review_queue): exact figures."""

from __future__ import annotations

from types import SimpleNamespace

from apps.content.review_queue import variant_flags, variant_lines


def _content(prompt="A quiet morning", **kw):
    return SimpleNamespace(prompt=prompt, post_type="feed", media_type="image", settings={}, **kw)


def _variant(platform, caption, hashtags=(), alt_text="An espresso cup on a sunny table."):
    return SimpleNamespace(platform=platform, caption=caption, hashtags=list(hashtags), alt_text=alt_text)


def test_over_the_limit_in_the_platforms_own_unit():
    flags = variant_flags(_content(), _variant("x", "😀" * 141), has_media=True)
    assert flags == ["over the limit (282 / 280 weighted characters)"]
    assert variant_flags(_content(), _variant("x", "😀" * 140), has_media=True) == []


def test_missing_alt_text_only_where_there_is_an_image_and_the_platform_takes_alt_text():
    assert variant_flags(_content(), _variant("bluesky", "Morning.", alt_text=""), has_media=True) == [
        "no alt text"
    ]
    assert variant_flags(_content(), _variant("bluesky", "Morning.", alt_text=""), has_media=False) == []


def test_a_link_in_an_instagram_caption():
    flags = variant_flags(_content(), _variant("instagram", "Menu: https://example.com/menu"), has_media=True)
    assert flags == ["link in an Instagram caption (not clickable)"]
    assert variant_flags(_content(), _variant("x", "Menu: https://example.com/menu"), has_media=True) == []


def test_a_fact_of_the_brief_lost_in_the_caption():
    content = _content("Doors open Friday at https://example.com/doors")
    flags = variant_flags(content, _variant("threads", "Doors open soon!"), has_media=False)
    assert flags == ["lost fact: Friday, https://example.com/doors"]


def test_each_line_has_the_platform_name_and_an_excerpt():
    (line,) = variant_lines(_content(), [_variant("linkedin", "word " * 40)], has_media=False)
    assert line.name == "LinkedIn" and line.platform == "linkedin"
    assert line.excerpt == "word " * 18 + "…"  # the first 90 characters


def test_a_story_carries_no_caption_so_no_caption_flag_a_reviewer_could_never_clear():
    """Issue 28: an Instagram story was flagged "lost fact: Ethiopian, today, $18" although a
    story has no caption (the facts are on the picture)."""
    brief = "New Ethiopian single origin today, $18 a bag. See https://example.com/shop"
    story = SimpleNamespace(prompt=brief, post_type="story", media_type="image", settings={})
    caption = "Fresh beans on the shelf."
    assert variant_flags(story, _variant("instagram", caption), has_media=True) == []
    feed = _content(brief)
    assert variant_flags(feed, _variant("instagram", caption), has_media=True)[0].startswith("lost fact: ")
