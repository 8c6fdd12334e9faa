"""apps/platforms/validation.py pinned with literal messages (issue 24): each field's checks at
their limits, formats without a field, wrong types, several problems in one field, and the
three ways a variant is given (mapping with either key style, Draft, Variant)."""

from __future__ import annotations

import pytest

from apps.platforms.adaptation import Draft, Variant
from apps.platforms.validation import validate_variant as validate

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"


def test_a_clean_variant_has_no_problems():
    assert validate("instagram", {"caption": "Fresh roast", "hashtags": ["#coffee"]}) == {}
    assert validate("instagram", Draft(caption="Fresh roast", hashtags=["#coffee"])) == {}
    assert validate("instagram", Variant(caption="Fresh roast", hashtags=["#coffee"])) == {}


def test_the_caption_at_and_past_each_limit():
    assert validate("x", {"caption": "a" * 280}) == {}
    assert validate("x", {"caption": "a" * 281}) == {
        "caption": "caption is 281 weighted characters; the limit on X is 280 weighted characters"
    }
    assert validate("x", {"caption": "日" * 140}) == {}
    assert validate("x", {"caption": "a" * 271, "hashtags": ["#coffee"]}) == {}
    assert validate("x", {"caption": "a" * 272, "hashtags": ["#coffee"]}) == {
        "caption": "caption with hashtags is 281 weighted characters; the limit on X is 280 weighted characters"
    }
    assert validate("mastodon", {"caption": "a" * 500}) == {}
    assert validate("mastodon", {"caption": "a" * 476 + " https://example.com/" + "x" * 100}) == {}
    assert validate("mastodon", {"caption": "a" * 478 + " https://example.com/x"}) == {
        "caption": "caption is 502 characters (each URL counts as 23); the limit on Mastodon is 500 characters (each URL counts as 23)"
    }


def test_bluesky_counts_graphemes_and_caps_the_bytes():
    assert validate("bluesky", {"caption": FAMILY * 118}) == {}  # 118 graphemes, 2950 bytes
    assert validate("bluesky", {"caption": FAMILY * 121})["caption"] == (
        "caption is 3025 bytes (UTF-8); the limit on Bluesky is 3000 bytes (UTF-8)"
    )
    assert validate("bluesky", {"caption": "a" * 301})["caption"] == (
        "caption is 301 graphemes; the limit on Bluesky is 300 graphemes"
    )


def test_forbidden_characters_in_caption_and_title():
    assert validate("youtube", {"caption": "a < b", "title": "ok"}, media_type="video") == {
        "caption": "caption must not contain '<' or '>' on YouTube"
    }
    assert validate("youtube", {"caption": "ok", "title": "a>b"}, media_type="video") == {
        "title": "title must not contain '<' or '>' on YouTube"
    }
    # two problems in one field are joined
    assert validate("youtube", {"caption": "<" * 5001, "title": "t"}, media_type="video") == {
        "caption": "caption is 5001 bytes (UTF-8); the limit on YouTube is 5000 bytes (UTF-8); "
        "caption must not contain '<' or '>' on YouTube"
    }


def test_formats_without_a_caption():
    assert validate("instagram", {"caption": "hi", "hashtags": ["#a"]}, post_type="story") == {
        "caption": "there is no caption on Instagram (story image)",
        "hashtags": "there is no caption on Instagram (story image), so no hashtags",
    }
    assert validate("instagram", {"caption": " \n "}, post_type="story") == {}
    assert validate("instagram", {"hashtags": ["#a"]}, post_type="story") == {
        "hashtags": "there is no caption on Instagram (story image), so no hashtags"
    }


def test_hashtags_one_by_one():
    assert validate("instagram", {"caption": "x", "hashtags": ["bad", "#ok", "#OK", "#no space"]}) == {
        "hashtags": "'bad' is not a valid hashtag ('#' followed by letters, digits or '_'); "
        "duplicate hashtag '#OK'; "
        "'#no space' is not a valid hashtag ('#' followed by letters, digits or '_')"
    }
    assert validate("threads", {"caption": "x", "hashtags": ["#" + "a" * 50]}) == {}
    assert validate("threads", {"caption": "x", "hashtags": ["#" + "a" * 51]}) == {
        "hashtags": f"'#{'a' * 51}' is longer than 50 characters on Threads"
    }
    assert validate("bluesky", {"caption": "x", "hashtags": ["#" + "b" * 64]}) == {}
    assert validate("bluesky", {"caption": "x", "hashtags": ["#" + "b" * 65]}) == {
        "hashtags": f"'#{'b' * 65}' is longer than 64 characters on Bluesky"
    }
    # no length cap elsewhere
    assert validate("x", {"caption": "x", "hashtags": ["#" + "c" * 100]}) == {}


def test_the_number_of_hashtags_counts_the_captions_own_once():
    assert validate("instagram", {"caption": "#a #b #c #d", "hashtags": ["#e"]}) == {}
    assert validate("instagram", {"caption": "#a #b #c #d", "hashtags": ["#A"]}) == {}  # the same tag
    assert validate("instagram", {"caption": "#a #b #c #d #e", "hashtags": ["#f"]}) == {
        "hashtags": "at most 5 hashtags are allowed on Instagram; found 6 (caption and hashtags)"
    }
    # an invalid one is reported as such and not counted
    assert validate("instagram", {"caption": "#a #b #c #d #e", "hashtags": ["bad"]}) == {
        "hashtags": "'bad' is not a valid hashtag ('#' followed by letters, digits or '_')"
    }
    assert validate("threads", {"caption": "x", "hashtags": ["#a"]}) == {}
    assert validate("threads", {"caption": "x", "hashtags": ["#a", "#b"]}) == {
        "hashtags": "at most 1 hashtag is allowed on Threads; found 2 (caption and hashtags)"
    }
    assert validate("threads", {"caption": "#a", "hashtags": ["#b"]})["hashtags"].endswith(
        "found 2 (caption and hashtags)"
    )


def test_first_comments():
    assert validate("instagram", {"caption": "x", "firstComment": "c" * 2200}) == {}
    assert validate("instagram", {"caption": "x", "first_comment": "c" * 2201}) == {
        "firstComment": "first comment is 2201 UTF-16 code units; the limit on Instagram is 2200 UTF-16 code units"
    }
    assert validate("tiktok", {"caption": "x", "firstComment": "c"}, media_type="video") == {
        "firstComment": "first comments are not supported on TikTok (feed video)"
    }
    assert validate("tiktok", {"caption": "x", "firstComment": "  "}, media_type="video") == {}


def test_alt_text():
    assert validate("x", {"caption": "x", "altText": "a" * 1000}) == {}
    assert validate("x", {"caption": "x", "alt_text": "a" * 1001}) == {
        "altText": "alt text is 1001 characters; the limit on X is 1000 characters"
    }
    assert validate("linkedin", {"caption": "x", "altText": "a" * 4087}) == {
        "altText": "alt text is 4087 characters; the limit on LinkedIn is 4086 characters"
    }
    assert validate("tiktok", {"caption": "x", "altText": "a"}, media_type="video") == {
        "altText": "alt text is not supported on TikTok (feed video)"
    }
    assert validate("tiktok", {"caption": "x", "altText": " "}, media_type="video") == {}


def test_titles():
    assert validate("youtube", {"caption": "c", "title": "t" * 100}, media_type="video") == {}
    assert validate("youtube", {"caption": "c", "title": "t" * 101}, media_type="video") == {
        "title": "title is 101 characters; the limit on YouTube is 100 characters"
    }
    assert validate("youtube", {"caption": "c", "title": "  "}, media_type="video") == {
        "title": "a title is required on YouTube"
    }
    assert validate("youtube", {"caption": "c"}, media_type="video") == {
        "title": "a title is required on YouTube"
    }
    assert validate("pinterest", {"caption": "c"}) == {}  # a title is optional there
    assert validate("pinterest", {"caption": "c", "title": "t" * 101}) == {
        "title": "title is 101 characters; the limit on Pinterest is 100 characters"
    }
    assert validate("x", {"caption": "c", "title": "t"}) == {
        "title": "titles are not supported on X (feed image)"
    }
    assert validate("x", {"caption": "c", "title": "  "}) == {}


def test_sounds():
    assert (
        validate("tiktok", {"caption": "x", "sounds": ["abc"]}, post_type="short", media_type="video") == {}
    )
    assert validate(
        "tiktok", {"caption": "x", "sounds": ["abc", " "]}, post_type="short", media_type="video"
    ) == {"sounds": "sound identifiers must not be blank"}
    assert validate("youtube", {"caption": "x", "title": "t", "sounds": ["s"]}, media_type="video") == {
        "sounds": "sounds are not supported on YouTube (feed video)"
    }
    assert validate("youtube", {"caption": "x", "title": "t", "sounds": []}, media_type="video") == {}


def test_wrong_types_are_problems_not_exceptions():
    assert validate("x", {"caption": 5, "hashtags": "#a"}) == {
        "caption": "caption must be a string",
        "hashtags": "hashtags must be a list of strings",
    }
    assert validate(
        "x",
        {"caption": None, "hashtags": None, "firstComment": 3, "altText": [], "title": b"t", "sounds": [1]},
    ) == {
        "firstComment": "firstComment must be a string",
        "altText": "altText must be a string",
        "title": "title must be a string",
        "sounds": "sounds must be a list of strings",
    }
    assert validate("x", {"caption": "x", "hashtags": ("#a", "#b")}) == {}
    assert validate("x", {"caption": "x", "hashtags": ["#a", 5]}) == {
        "hashtags": "hashtags must be a list of strings"
    }


def test_the_camel_case_key_wins_over_the_snake_case_one():
    assert validate("x", {"caption": "x", "firstComment": "ok", "first_comment": "c" * 5000}) == {}


def test_what_cannot_be_checked_raises():
    with pytest.raises(TypeError, match="expected a Variant or mapping, got int"):
        validate("x", 5)
    with pytest.raises(ValueError, match="unknown platform 'myspace'"):
        validate("myspace", {})
    with pytest.raises(ValueError, match="unknown post type 'nope'"):
        validate("x", {}, post_type="nope")
    assert validate("youtube", {"caption": "x"}) == {"mediaType": "YouTube does not publish images"}
    assert validate("Twitter", {"caption": "a" * 280}) == {}


STORY_PROBLEMS = {
    "caption": "there is no caption on Instagram (story image)",
    "hashtags": "there is no caption on Instagram (story image), so no hashtags",
    "firstComment": "first comments are not supported on Instagram (story image)",
    "altText": "alt text is not supported on Instagram (story image)",
    "title": "titles are not supported on Instagram (story image)",
    "sounds": "sounds are not supported on Instagram (story image)",
}


@pytest.mark.parametrize(
    "variant",
    [
        Draft(caption="hi", hashtags=["#a"], first_comment="c", alt_text="alt", title="t", sounds=["s"]),
        Variant(caption="hi", hashtags=["#a"], first_comment="c", alt_text="alt", title="t", sounds=["s"]),
        {
            "caption": "hi",
            "hashtags": ["#a"],
            "firstComment": "c",
            "altText": "alt",
            "title": "t",
            "sounds": ["s"],
        },
        {
            "caption": "hi",
            "hashtags": ["#a"],
            "first_comment": "c",
            "alt_text": "alt",
            "title": "t",
            "sounds": ["s"],
        },
    ],
    ids=["draft", "variant", "camel", "snake"],
)
def test_every_field_is_read_from_every_kind_of_variant(variant):
    assert validate("instagram", variant, post_type="story") == STORY_PROBLEMS
