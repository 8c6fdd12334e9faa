"""Adapting drafts to each platform and validating variants, by example (the properties over every
format are in test_adaptation_properties.py)."""

from __future__ import annotations

import pytest

from apps.platforms.adaptation import Draft, Variant, adapt, as_draft
from apps.platforms.captions import (
    ELLIPSIS,
    compose_caption,
    normalize_hashtag,
    normalize_hashtags,
    shorten,
)
from apps.platforms.rules import (
    UnsupportedFormat,
    count_text,
)
from apps.platforms.validation import validate_variant

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
SENTENCES = [
    "Our new espresso blend is finally here.",
    "It took two years of tasting to get it right!",
    "Come by the shop this weekend and try a free cup.",
    "We roast every batch by hand in small quantities.",
    "Tell your friends, bring your neighbours, and enjoy.",
]
LONG_CAPTION = " ".join(SENTENCES * 3)  # 716 characters


def _tags(n: int) -> list[str]:
    return [f"#tag{i}" for i in range(n)]


# --- examples ------------------------------------------------------------------------------


def test_a_caption_that_fits_is_left_alone():
    v = adapt("x", Draft("Fresh coffee today", ["#coffee"]))
    assert v.caption == "Fresh coffee today"
    assert v.hashtags == ["#coffee"]
    assert v.adaptations == []


def test_x_captions_are_shortened_to_280_weighted_characters_by_whole_sentences():
    v = adapt("twitter", Draft(LONG_CAPTION, []))
    assert count_text("x", LONG_CAPTION) == 716
    assert count_text("x", v.caption) <= 280
    # decoration goes first: the sentences with a fact ("this weekend") outlive the others
    assert v.caption == " ".join([*SENTENCES[:2], *[SENTENCES[2]] * 3])
    assert v.caption.endswith(".") or v.caption.endswith("!")
    assert not v.caption.endswith(ELLIPSIS)  # whole sentences dropped: nothing was cut
    assert v.adaptations == [
        f"caption shortened from 716 to {count_text('x', v.caption)} weighted characters"
        " (limit 280 weighted characters)"
    ]


def test_a_single_long_sentence_is_cut_between_words_with_an_ellipsis():
    sentence = " ".join(["wonderful"] * 60)
    v = adapt("x", Draft(sentence, []))
    assert v.caption.endswith("wonderful" + ELLIPSIS)
    assert count_text("x", v.caption) <= 280
    assert set(v.caption.removesuffix(ELLIPSIS).split()) == {"wonderful"}


def test_urls_count_as_23_when_fitting_an_x_caption():
    url = "https://example.com/" + "p" * 200
    v = adapt("x", Draft(f"Read this {url} now", []))
    assert v.caption == f"Read this {url} now"  # 10 + 23 + 4 weighted characters


def test_a_word_longer_than_the_limit_is_dropped_not_cut():
    v = adapt("bluesky", Draft("a" * 400, []))
    assert v.caption == ""
    assert "caption shortened from 400 to 0 graphemes" in v.adaptations[0]


def test_a_cut_never_leaves_a_dangling_hash_or_a_half_hashtag():
    caption = " ".join(["coffee"] * 40) + " # " + " ".join(["#espresso"] * 40)
    v = adapt("x", Draft(caption, []))
    tokens = v.caption.removesuffix(ELLIPSIS).split()
    assert "#" not in tokens
    assert all(t in ("coffee", "#espresso") for t in tokens)


def test_hashtags_in_the_caption_count_against_the_limit():
    caption = " ".join(SENTENCES * 2)  # 477 characters; Pinterest has no first comment
    v = adapt("pinterest", Draft(caption, _tags(10)))
    assert v.hashtags == _tags(5)  # issue 8: reduced to Pinterest's recommended 0-5 first
    assert count_text("pinterest", compose_caption(v.caption, v.hashtags)) <= 500
    assert caption.startswith(v.caption) and len(v.caption) < len(caption)
    assert any(a.endswith("(limit 500 characters including hashtags)") for a in v.adaptations)


def test_hashtags_move_to_the_first_comment_when_the_caption_has_no_room():
    caption = "a" * 270
    v = adapt("x", Draft(caption, ["#coffee", "#espresso"]))
    assert v.caption == caption
    assert v.hashtags == []
    assert v.first_comment == "#coffee #espresso"
    assert "hashtags moved to first comment" in v.adaptations


def test_instagram_keeps_at_most_five_hashtags():
    v = adapt("instagram", Draft("Coffee time", _tags(12)))
    assert v.hashtags == _tags(5)
    assert any(a.startswith("hashtags reduced from 12 to 5") for a in v.adaptations)


def test_instagram_hashtag_cap_counts_hashtags_inside_the_caption():
    v = adapt("instagram", Draft("Love #coffee and #latte today", _tags(6)))
    assert v.caption == "Love #coffee and #latte today"
    assert v.hashtags == _tags(3)
    too_many = adapt("instagram", Draft(" ".join(f"#in{i}" for i in range(7)) + " done", []))
    assert too_many.caption == "#in0 #in1 #in2 #in3 #in4 done"


def test_threads_keeps_one_topic_tag():
    v = adapt("threads", Draft("Coffee time", ["#coffee", "#latte", "#beans"]))
    assert v.hashtags == ["#coffee"]
    assert any("hashtags reduced from 3 to 1" in a for a in v.adaptations)
    long_tag = "#" + "a" * 51
    assert adapt("threads", Draft("x", [long_tag, "#ok"])).hashtags == ["#ok"]


def test_hashtags_are_normalised_and_deduplicated_case_insensitively():
    assert normalize_hashtag("coffee") == "#coffee"
    assert normalize_hashtag("##Latte!") == "#Latte"
    assert normalize_hashtag("new york") == "#newyork"
    assert normalize_hashtag("#café") == "#café"
    assert normalize_hashtag("#2024") is None
    assert normalize_hashtag("#") is None
    assert normalize_hashtags(["#Coffee", "coffee", "#COFFEE", "#tea"]) == ["#Coffee", "#tea"]
    v = adapt("facebook", Draft("Hi", ["coffee", "#Coffee", "#"]))
    assert v.hashtags == ["#coffee"]
    assert any("normalised" in a for a in v.adaptations)


def test_hashtags_already_written_in_the_caption_are_not_repeated():
    v = adapt("linkedin", Draft("We love #Coffee", ["#coffee", "#tea"]))
    assert v.hashtags == ["#tea"]


def test_the_first_comment_is_folded_into_the_caption_where_there_is_none():
    v = adapt("tiktok", Draft("New video", ["#coffee"], first_comment="Link in bio!"), media_type="video")
    assert v.caption == "New video\n\nLink in bio!"
    assert v.first_comment == ""
    assert any(a.startswith("first comment folded into the caption") for a in v.adaptations)


def test_a_first_comment_that_does_not_fit_is_dropped_with_a_note():
    v = adapt("pinterest", Draft("x " * 240, [], first_comment="A long comment " * 10))
    assert v.first_comment == ""
    assert "A long" not in v.caption
    assert any(a.startswith("first comment dropped: not supported") for a in v.adaptations)


def test_stories_drop_the_caption_hashtags_and_first_comment():
    v = adapt("instagram", Draft("Hello", ["#a"], first_comment="hi", alt_text="alt"), post_type="story")
    assert (v.caption, v.hashtags, v.first_comment, v.alt_text) == ("", [], "", "")
    assert any(a.startswith("caption dropped") for a in v.adaptations)
    assert any(a.startswith("alt text dropped") for a in v.adaptations)


def test_alt_text_is_kept_only_where_supported_and_within_its_max():
    assert adapt("instagram", Draft("c", [], alt_text="A cup")).alt_text == "A cup"
    reel = adapt("instagram", Draft("c", [], alt_text="A cup"), post_type="reel", media_type="video")
    assert reel.alt_text == ""
    assert any(a.startswith("alt text dropped: not supported") for a in reel.adaptations)
    pin = adapt("pinterest", Draft("c", [], alt_text="A steaming cup of coffee. " * 40))
    assert len(pin.alt_text) <= 500 and pin.alt_text.endswith(".")


def test_sounds_are_kept_on_short_video_formats_and_dropped_elsewhere():
    draft = Draft("c", [], sounds=["sound_123"])
    assert adapt("tiktok", draft, media_type="video").sounds == ["sound_123"]
    assert adapt("instagram", draft, post_type="reel", media_type="video").sounds == ["sound_123"]
    assert adapt("youtube", draft, post_type="short", media_type="video").sounds == ["sound_123"]
    v = adapt("linkedin", draft)
    assert v.sounds == []
    assert any(a.startswith("sounds dropped: not supported") for a in v.adaptations)


def test_titles_are_derived_from_the_caption_where_the_platform_has_one():
    v = adapt("youtube", Draft("How we roast coffee. Step by step #coffee", []), media_type="video")
    assert v.title == "How we roast coffee."
    assert "title derived from the caption" in v.adaptations
    long_title = adapt("pinterest", Draft("c", [], title="word " * 40))
    assert len(long_title.title) <= 100 and long_title.title.endswith(ELLIPSIS)
    assert adapt("x", Draft("c", [], title="T")).title == ""
    assert adapt("tiktok", Draft("Photo dump", []), media_type="image").title == "Photo dump"
    assert adapt("tiktok", Draft("Video", []), media_type="video").title == ""


def test_youtube_angle_brackets_are_replaced():
    v = adapt("youtube", Draft("I <3 coffee > tea", [], title="A <b> title"), media_type="video")
    assert "<" not in v.caption and ">" not in v.caption
    assert v.caption == "I \u20393 coffee \u203a tea"
    assert v.title == "A \u2039b\u203a title"
    assert validate_variant("youtube", v, post_type="feed", media_type="video") == {}


def test_youtube_descriptions_are_shortened_in_bytes():
    caption = "你好世界。" * 400  # 2,000 characters, 6,000 bytes
    v = adapt("youtube", Draft(caption, []), post_type="short", media_type="video")
    assert len(v.caption.encode("utf-8")) <= 5000
    assert any("bytes (UTF-8)" in a for a in v.adaptations)


def test_bluesky_is_shortened_by_graphemes_and_bytes():
    v = adapt("bluesky", Draft(" ".join([FAMILY] * 200), []))
    assert len(v.caption.encode("utf-8")) <= 3000
    assert validate_variant("bluesky", v) == {}


def test_unsupported_media_types_raise():
    with pytest.raises(UnsupportedFormat):
        adapt("youtube", Draft("c", []), media_type="image")
    assert "mediaType" in validate_variant("youtube", Variant("c"), media_type="image")


def test_to_dict_uses_camel_case_keys():
    v = adapt("instagram", Draft("c", ["#a"], first_comment="fc", alt_text="alt"))
    assert v.to_dict() == {
        "caption": "c",
        "hashtags": ["#a"],
        "firstComment": "fc",
        "altText": "alt",
        "title": "",
        "sounds": [],
        "adaptations": [],
    }
    assert Variant.from_dict(v.to_dict()) == v
    assert adapt("instagram", v.to_dict()).to_dict() == v.to_dict()


# --- validation ----------------------------------------------------------------------------


def test_a_caption_over_the_limit_names_the_limit_and_the_unit():
    errors = validate_variant(
        "x", {"caption": "a" * 300, "hashtags": []}, post_type="feed", media_type="image"
    )
    assert errors == {
        "caption": "caption is 300 weighted characters; the limit on X is 280 weighted characters"
    }
    errors = validate_variant("bluesky", {"caption": FAMILY * 150})
    assert "3000 bytes (UTF-8)" in errors["caption"]
    errors = validate_variant("tiktok", {"caption": "😀" * 1101}, media_type="video")
    assert "2200 UTF-16 code units" in errors["caption"]


def test_hashtags_count_towards_the_caption_limit_in_validation():
    assert validate_variant("x", {"caption": "a" * 271, "hashtags": ["#coffee"]}) == {}  # 280
    errors = validate_variant("x", {"caption": "a" * 272, "hashtags": ["#coffee"]})
    assert errors["caption"] == (
        "caption with hashtags is 281 weighted characters; the limit on X is 280 weighted characters"
    )


def test_validation_reports_each_field_problem():
    errors = validate_variant(
        "tiktok",
        {
            "caption": "ok",
            "hashtags": ["#ok", "bad tag", "#OK"],
            "firstComment": "nope",
            "altText": "nope",
            "title": "nope",
            "sounds": ["s"],
        },
        post_type="feed",
        media_type="video",
    )
    assert "'bad tag' is not a valid hashtag" in errors["hashtags"]
    assert "duplicate hashtag '#OK'" in errors["hashtags"]
    assert errors["firstComment"].startswith("first comments are not supported on TikTok")
    assert errors["altText"].startswith("alt text is not supported on TikTok")
    assert errors["title"].startswith("titles are not supported on TikTok")
    assert "sounds" not in errors


def test_validation_of_instagram_hashtag_cap_and_youtube_title():
    errors = validate_variant("instagram", {"caption": "#a #b #c", "hashtags": _tags(3)})
    assert errors["hashtags"].startswith("at most 5 hashtags are allowed on Instagram; found 6")
    errors = validate_variant("youtube", {"caption": "c", "title": ""}, media_type="video")
    assert errors["title"] == "a title is required on YouTube"
    errors = validate_variant("youtube", {"caption": "a < b", "title": "t" * 101}, media_type="video")
    assert "'<' or '>'" in errors["caption"]
    assert "is 101 characters; the limit on YouTube is 100 characters" in errors["title"]


def test_validation_rejects_wrong_types_without_raising():
    errors = validate_variant("x", {"caption": 5, "hashtags": "#a"})
    assert errors["caption"] == "caption must be a string"
    assert errors["hashtags"] == "hashtags must be a list of strings"


def test_shorten_keeps_whole_sentences_then_whole_words():
    fits = lambda t: len(t) <= 20  # noqa: E731
    assert shorten("One two. Three four five six.", fits) == "One two."
    assert shorten("Onetwothree fourfive sixseven", fits) == "Onetwothree" + ELLIPSIS
    assert shorten("x" * 30, fits) == ""


# --- the notes of what changed, literal (issue 24) ------------------------------------------

A50, B51 = "#" + "a" * 50, "#" + "b" * 51


@pytest.mark.parametrize(
    ("platform", "draft", "caption", "hashtags", "notes"),
    [
        (
            "threads",
            Draft(caption="Hello #one", hashtags=["#one", A50, B51, "#two"]),
            "Hello #one",
            [],
            [
                "hashtags already in the caption not repeated: #one",
                f"hashtags longer than 50 characters dropped (on Threads): {B51}",  # 50 is allowed
                "hashtags reduced from 3 to 1 (at most 1 on Threads)",  # the caption's own tag stays
            ],
        ),
        (
            "instagram",
            Draft(caption="Fresh roast", hashtags=[f"#t{i}" for i in range(6)]),
            "Fresh roast",
            ["#t0", "#t1", "#t2", "#t3", "#t4"],
            ["hashtags reduced from 6 to 5 (at most 5 on Instagram)"],
        ),
        ("x", Draft(caption="Fresh roast", hashtags=["#a", "#b"]), "Fresh roast", ["#a", "#b"], []),  # at 2
        (
            "x",
            Draft(caption="Fresh #a #b roast", hashtags=["#c"]),
            "Fresh #a #b roast",
            [],
            ["hashtags reduced from 3 to 2 (recommended 1-2 on X; the caption comes first)"],
        ),
        (
            "mastodon",
            Draft(caption="#a #b hi", hashtags=["#a", "#b", "#c"]),
            "#a #b hi",
            ["#c"],
            ["hashtags already in the caption not repeated: #a #b"],
        ),
        (
            "bluesky",
            Draft(caption="hi", hashtags=["#" + "a" * 65, "#" + "b" * 65, "#" + "c" * 64]),
            "hi",
            ["#" + "c" * 64],
            [f"hashtags longer than 64 characters dropped (on Bluesky): #{'a' * 65} #{'b' * 65}"],
        ),
        (
            "x",
            Draft(caption="word " * 60),
            "word " * 54 + "word" + ELLIPSIS,  # 55 words, 5 each with the ellipsis (weight 2)
            [],
            ["caption shortened from 299 to 276 weighted characters (limit 280 weighted characters)"],
        ),
    ],
)
def test_hashtag_and_caption_notes(platform, draft, caption, hashtags, notes):
    v = adapt(platform, draft)
    assert (v.caption, v.hashtags, v.adaptations) == (caption, hashtags, notes)


def test_drafts_and_variants_from_mappings():
    assert Draft.from_dict({}) == Draft()
    assert Draft.from_dict({"caption": None, "title": None, "firstComment": None}) == Draft()
    assert Draft.from_dict({"caption": 5, "alt_text": "a"}) == Draft(caption="5", alt_text="a")
    assert Draft.from_dict({"hashtags": "#a, #b  #c,,#d", "sounds": ("s",)}).hashtags == [
        "#a",
        "#b",
        "#c",
        "#d",
    ]
    assert Draft.from_dict({"sounds": ("s", 1)}).sounds == ["s", "1"]
    v = Variant.from_dict({"caption": "x", "adaptations": ["a", 1]})
    assert (v.caption, v.adaptations) == ("x", ["a", "1"])
    assert Variant.from_dict({"caption": "x"}).adaptations == []


def test_a_first_comment_over_its_limit_is_shortened_with_a_note():
    v = adapt("instagram", Draft(caption="hi", first_comment="word " * 500))
    assert v.first_comment == "word " * 439 + "word" + ELLIPSIS  # 2200 units
    assert v.adaptations == [
        "first comment shortened from 2499 to 2200 UTF-16 code units (limit 2200 UTF-16 code units)"
    ]


def test_hashtags_that_cannot_fit_even_alone_give_way_one_by_one():
    v = adapt("mastodon", Draft(caption="hi", hashtags=["#" + c * 120 for c in "abcde"]))
    assert v.caption == "hi" and v.hashtags == ["#" + c * 120 for c in "abcd"]  # 4 x 121 + 3 + 4 = 491
    assert v.adaptations == ["hashtags reduced from 5 to 4 to fit the caption limit"]


def test_hashtags_filling_the_limit_exactly_alone_move_to_the_first_comment():
    tags = ["#" + "a" * 124, "#" + "b" * 123, "#" + "c" * 123, "#" + "d" * 123]  # 500 with spaces
    v = adapt("mastodon", Draft(caption="hi", hashtags=tags))
    assert (v.caption, v.hashtags, v.first_comment) == ("hi", [], " ".join(tags))
    assert v.adaptations == ["hashtags moved to first comment"]


def test_hashtags_moved_to_the_first_comment_follow_the_one_there():
    tags = [f"#tag{i}" for i in range(5)]
    v = adapt("instagram", Draft(caption="a" * 2190, hashtags=tags, first_comment="Thanks"))
    assert (v.caption, v.hashtags) == ("a" * 2190, [])  # 2190 + 2 + 29 would be 2221
    assert v.first_comment == "Thanks\n\n#tag0 #tag1 #tag2 #tag3 #tag4"
    assert v.adaptations == ["hashtags moved to first comment"]


def test_forbidden_characters_replaced_with_a_note_per_field():
    v = adapt("youtube", Draft(caption="a < b", title="x > y"), media_type="video")
    assert (v.caption, v.title) == ("a \u2039 b", "x \u203a y")
    assert v.adaptations == [
        "'<' and '>' replaced in the caption (not allowed on YouTube)",
        "'<' and '>' replaced in the title (not allowed on YouTube)",
    ]


def test_hashtags_give_way_before_a_sentence_with_a_fact():
    caption = "Code SAVE10 works today. " + ("Call 555-0100 now. " * 25).strip()  # 499, all facts
    v = adapt("pinterest", Draft(caption=caption, hashtags=["#a", "#b"]))  # no first comment there
    assert (v.caption, v.hashtags) == (caption, [])  # with one tag: 503
    assert v.adaptations == [
        "2 hashtag(s) dropped so that the caption keeps its first sentence and its facts",
        "title derived from the caption",
    ]


@pytest.mark.parametrize(
    ("platform", "draft", "caption", "hashtags", "notes"),
    [
        (
            "tiktok",
            Draft(caption="hi", first_comment="Thanks all"),
            "hi\n\nThanks all",
            [],
            ["first comment folded into the caption: no first comment on TikTok (feed image)"],
        ),
        (  # five hashtags with it: TikTok's recommended most, still folded
            "tiktok",
            Draft(caption="hi", hashtags=[f"#t{i}" for i in range(5)], first_comment="thanks"),
            "hi\n\nthanks",
            [f"#t{i}" for i in range(5)],
            ["first comment folded into the caption: no first comment on TikTok (feed image)"],
        ),
        (  # six: dropped
            "tiktok",
            Draft(caption="hi #x", hashtags=[f"#t{i}" for i in range(4)], first_comment="thanks #y"),
            "hi #x",
            [f"#t{i}" for i in range(4)],
            [
                "first comment dropped: not supported on TikTok (feed image) and it does not fit in the caption"
            ],
        ),
        (
            "pinterest",
            Draft(caption="a" * 490, first_comment="Thanks for reading!"),
            "a" * 490,
            [],
            [
                "first comment dropped: not supported on Pinterest (feed image) and it does not fit in the caption"
            ],
        ),
    ],
)
def test_a_first_comment_where_there_is_none_is_folded_or_dropped(platform, draft, caption, hashtags, notes):
    v = adapt(platform, draft)
    assert (v.caption, v.hashtags, v.first_comment) == (caption, hashtags, "")
    assert v.adaptations == [*notes, "title derived from the caption"]


def test_a_story_drops_its_first_comment_without_a_reason_about_the_caption():
    v = adapt("instagram", Draft(caption="hi", first_comment="Thanks"), post_type="story")
    assert (v.caption, v.first_comment) == ("", "")
    assert v.adaptations == [
        "caption dropped: there is no caption on Instagram (story image)",
        "first comment dropped: not supported on Instagram (story image)",
    ]


def test_facts_go_from_the_end_when_even_without_hashtags_they_do_not_fit():
    facts = "Code SAVE10 works today. " + ("Call 555-0100 now. " * 27).strip()  # 537
    v = adapt("pinterest", Draft(caption=facts, hashtags=["#a"]))
    assert (v.caption, v.hashtags) == ("Code SAVE10 works today. " + ("Call 555-0100 now. " * 25).strip(), [])
    assert v.adaptations == [
        "1 hashtag(s) dropped so that the caption keeps its first sentence and its facts",
        "caption shortened from 537 to 499 characters (limit 500 characters)",
        "title derived from the caption",
    ]


def test_decoration_goes_first_and_the_hashtags_stay():
    v = adapt("pinterest", Draft(caption="Code SAVE10 works. " + "Nice day. " * 60, hashtags=["#a"]))
    assert (v.caption, v.hashtags) == ("Code SAVE10 works. " + ("Nice day. " * 47).strip(), ["#a"])
    assert v.adaptations == [
        "caption shortened from 618 to 488 characters (limit 500 characters including hashtags)",
        "title derived from the caption",
    ]


@pytest.mark.parametrize(
    ("platform", "media_type", "draft", "title", "notes"),
    [
        (
            "x",
            "image",
            Draft(caption="hi", title="A title"),
            "",
            ["title dropped: not supported on X (feed image)"],
        ),
        (
            "youtube",
            "video",
            Draft(caption="hi", title="word " * 30),
            "word " * 19 + "word" + ELLIPSIS,
            ["title shortened from 149 to 100 characters (limit 100 characters)"],
        ),
        # derived: from the caption, else the first comment, the alt text, the hashtags
        (
            "youtube",
            "video",
            Draft(caption="#only", hashtags=["#coffee"]),
            "#coffee",
            ["title derived from the caption"],
        ),
        (
            "youtube",
            "video",
            Draft(caption="#a", first_comment="a < b. Come by"),
            "a \u2039 b.",
            ["title derived from the caption"],
        ),
        (
            "pinterest",
            "image",
            Draft(caption="#a", alt_text="A cup of coffee. On a table"),
            "A cup of coffee.",
            ["title derived from the caption"],
        ),
        (
            "youtube",
            "video",
            Draft(caption="#a", hashtags=["#" + "a" * 60, "#" + "b" * 60]),
            "#" + "a" * 60 + " " + ELLIPSIS,
            ["title derived from the caption"],
        ),
    ],
)
def test_titles_dropped_shortened_or_derived(platform, media_type, draft, title, notes):
    v = adapt(platform, draft, media_type=media_type)
    assert (v.title, v.adaptations) == (title, notes)


def test_alt_text_shortened_or_dropped_with_a_note():
    v = adapt("x", Draft(caption="hi", alt_text="word " * 250))
    assert v.alt_text == "word " * 199 + "word" + ELLIPSIS
    assert v.adaptations == ["alt text shortened from 1249 to 1000 characters (limit 1000 characters)"]
    v = adapt("tiktok", Draft(caption="hi", alt_text="A cup"))
    assert v.alt_text == ""
    assert v.adaptations == [
        "alt text dropped: not supported on TikTok (feed image)",
        "title derived from the caption",
    ]


def test_sounds_and_hashtags_normalised_with_a_note():
    v = adapt(
        "tiktok", Draft(caption="hi", sounds=["  ", "a", "a", ""]), post_type="short", media_type="video"
    )
    assert (v.sounds, v.adaptations) == (["a"], ["sounds normalised (blank and duplicate entries removed)"])
    v = adapt("instagram", Draft(caption="hi", hashtags=["coffee", "#Coffee", "#1"]))
    assert v.hashtags == ["#coffee"]
    assert v.adaptations == [
        "hashtags normalised to '#' + letters/digits/_ (invalid and duplicate tags removed)"
    ]


def test_an_empty_draft_stays_empty_and_anything_else_is_refused():
    assert as_draft(Draft()) == Draft()
    assert as_draft(Variant()) == Draft()
    assert adapt("x", Draft()).to_dict() == Variant().to_dict()
    with pytest.raises(TypeError, match=r"^expected a Draft, Variant or mapping, got int$"):
        adapt("x", 5)


PIN_TAGS = ["#" + "a" * 124, "#" + "b" * 123, "#" + "c" * 123, "#" + "d" * 123]  # 500 with spaces
DROPPED_ONE = "1 hashtag(s) dropped so that the caption keeps its first sentence and its facts"
DERIVED = "title derived from the caption"


@pytest.mark.parametrize(
    ("draft", "caption", "hashtags", "notes"),
    [
        # hashtags filling the limit exactly alone still fit alone; with the caption one goes
        (Draft(caption="hi", hashtags=PIN_TAGS), "hi", PIN_TAGS[:3], [DROPPED_ONE, DERIVED]),
        # one more: it goes first (then the caption needs one more gone)
        (
            Draft(caption="hi", hashtags=[*PIN_TAGS, "#" + "e" * 9]),
            "hi",
            PIN_TAGS[:3],
            ["hashtags reduced from 5 to 4 to fit the caption limit", DROPPED_ONE, DERIVED],
        ),
        # 496 characters of facts: one hashtag of two has room, and stays
        (
            Draft(
                caption="Code SAVE10 is valid. " + ("Call 555-0100 now. " * 25).strip(), hashtags=["#a", "#b"]
            ),
            "Code SAVE10 is valid. " + ("Call 555-0100 now. " * 25).strip(),
            ["#a"],
            [DROPPED_ONE, DERIVED],
        ),
    ],
)
def test_hashtags_give_way_one_at_a_time_at_the_limit(draft, caption, hashtags, notes):
    v = adapt("pinterest", draft)  # 500 characters, no first comment to move them to
    assert (v.caption, v.hashtags, v.adaptations) == (caption, hashtags, notes)


def test_facts_dropped_from_the_end_keep_a_later_fact_over_an_earlier_decoration():
    fact, decoration = "Code SAVE10 works today.", "Nice day."
    long_fact = "Call 555-0100 and " + "more " * 89 + "info."  # 468
    v = adapt("pinterest", Draft(caption=f"{fact} {decoration} {long_fact} Call 555-0199 later."))
    assert v.caption == f"{fact} {long_fact}"  # not the prefix "fact decoration" a cut would keep
    assert v.adaptations == ["caption shortened from 524 to 493 characters (limit 500 characters)", DERIVED]
