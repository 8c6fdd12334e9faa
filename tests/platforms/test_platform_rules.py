"""Platform rules read from platforms.yaml, text counting per platform, sizes and durations."""

from __future__ import annotations

import pytest

from apps.platforms import rules as pr
from apps.platforms.rules import (
    ASPECT_RATIOS,
    MEDIA_TYPES,
    POST_TYPES,
    SUPPORTED_PLATFORMS,
    UnsupportedFormat,
    count_text,
    get_rules,
    normalize_platform,
    supported_ratio,
    target_size,
    video_seconds,
)
from apps.platforms.text import (
    UNIT_CHARACTERS,
    UNIT_EMOJI_BYTES,
    UNIT_GRAPHEMES,
    UNIT_UTF8_BYTES,
    UNIT_UTF16,
    UNIT_WEIGHTED,
    graphemes,
)

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man woman girl boy
THUMBS_MEDIUM = "\U0001f44d\U0001f3fd"
FLAG_FR = "\U0001f1eb\U0001f1f7"
HEART = "\u2764\ufe0f"
KEYCAP_ONE = "1\ufe0f\u20e3"
GRIN = "\U0001f600"


# --- platforms and loading -----------------------------------------------------------------


def test_every_supported_platform_has_rules_loaded_from_the_yaml():
    assert set(SUPPORTED_PLATFORMS) == {
        "instagram",
        "facebook",
        "tiktok",
        "youtube",
        "linkedin",
        "x",
        "threads",
        "pinterest",
        "bluesky",
        "mastodon",
    }
    for name in SUPPORTED_PLATFORMS:
        rules = get_rules(name)
        assert rules.name == name
        assert rules.caption_max > 0
        assert rules.hashtag_placement in ("caption", "first_comment")
        assert set(rules.post_types) <= set(POST_TYPES)


def test_twitter_is_an_alias_that_normalises_to_x():
    assert normalize_platform("twitter") == "x"
    assert normalize_platform(" Twitter ") == "x"
    assert get_rules("twitter") is get_rules("x")


def test_an_unknown_platform_raises_value_error():
    with pytest.raises(ValueError, match="unknown platform"):
        normalize_platform("myspace")
    with pytest.raises(ValueError):
        get_rules("")


def test_the_yaml_is_loaded_once_and_cached():
    assert pr.load_platforms_yaml() is pr.load_platforms_yaml()
    assert get_rules("instagram") is get_rules("instagram")


def test_unverified_values_are_read_from_their_value_key():
    assert get_rules("instagram").hashtag_max == 5  # {value: 5, unverified: true}
    assert get_rules("facebook").caption_max == 63206
    assert get_rules("linkedin").caption_max == 3000
    assert get_rules("linkedin").alt_text_max == 4086
    assert get_rules("mastodon").alt_text_max == 1500
    assert get_rules("youtube").hashtag_max == 60


def test_caption_limits_and_units_follow_each_platform():
    expected = {
        "instagram": (2200, UNIT_UTF16),
        "facebook": (63206, UNIT_CHARACTERS),
        "tiktok": (2200, UNIT_UTF16),
        "youtube": (5000, UNIT_UTF8_BYTES),
        "linkedin": (3000, UNIT_CHARACTERS),
        "x": (280, UNIT_WEIGHTED),
        "threads": (500, UNIT_EMOJI_BYTES),
        "pinterest": (500, UNIT_CHARACTERS),
        "bluesky": (300, UNIT_GRAPHEMES),
        "mastodon": (500, UNIT_CHARACTERS),
    }
    for name, (limit, unit) in expected.items():
        rules = get_rules(name)
        assert (rules.caption_max, rules.count_unit) == (limit, unit), name
    assert get_rules("bluesky").caption_max_bytes == 3000
    assert get_rules("x").url_length == 23
    assert get_rules("mastodon").url_length == 23


def test_hashtag_caps_are_instagram_five_and_threads_one_topic_tag():
    assert get_rules("instagram").hashtag_max == 5
    assert get_rules("threads").hashtag_max == 1
    assert get_rules("threads").hashtag_max_length == 50
    assert get_rules("bluesky").hashtag_max_length == 64
    assert get_rules("x").hashtag_max is None
    assert get_rules("facebook").hashtag_max is None


def test_titles_exist_on_youtube_pinterest_and_tiktok_photo_posts():
    assert get_rules("youtube").title_max == 100
    assert get_rules("youtube").title_required
    assert get_rules("pinterest").title_max == 100
    assert get_rules("tiktok").title_max == 90
    assert pr.get_format("tiktok", "feed", "image").title.max == 90
    assert pr.get_format("tiktok", "feed", "image").title.unit == UNIT_UTF16
    assert not pr.get_format("tiktok", "feed", "video").title_supported
    assert not get_rules("x").title_supported


def test_tiktok_photo_descriptions_allow_four_thousand_units():
    assert pr.get_format("tiktok", "feed", "image").caption.max == 4000
    assert pr.get_format("tiktok", "feed", "video").caption.max == 2200


def test_first_comment_support_follows_the_yaml_and_excludes_stories():
    for name in ("instagram", "facebook", "youtube", "linkedin", "x", "threads", "bluesky", "mastodon"):
        assert get_rules(name).first_comment_supported, name
    assert not get_rules("tiktok").first_comment_supported
    assert not get_rules("pinterest").first_comment_supported
    assert not pr.get_format("instagram", "story", "image").first_comment_supported
    assert pr.get_format("instagram", "feed", "image").first_comment_supported
    assert get_rules("linkedin").first_comment_max == 1250


def test_alt_text_only_where_the_yaml_allows_it():
    assert pr.get_format("instagram", "feed", "image").alt_text_supported
    assert pr.get_format("instagram", "feed", "image").alt_text.max == 1000
    assert not pr.get_format("instagram", "reel", "video").alt_text_supported
    assert not pr.get_format("instagram", "story", "image").alt_text_supported
    assert pr.get_format("x", "feed", "image").alt_text_supported
    assert not pr.get_format("x", "feed", "video").alt_text_supported
    assert pr.get_format("threads", "feed", "video").alt_text_supported
    assert pr.get_format("pinterest", "feed", "image").alt_text.max == 500
    assert pr.get_format("facebook", "feed", "image").alt_text_supported
    assert not pr.get_format("facebook", "feed", "video").alt_text_supported
    assert not get_rules("tiktok").alt_text_supported
    assert not get_rules("youtube").alt_text_supported


def test_sounds_only_on_short_video_formats():
    assert pr.get_format("tiktok", "feed", "video").sounds_supported
    assert pr.get_format("instagram", "reel", "video").sounds_supported
    assert pr.get_format("youtube", "short", "video").sounds_supported
    assert not pr.get_format("youtube", "feed", "video").sounds_supported
    assert not pr.get_format("instagram", "feed", "image").sounds_supported
    assert not pr.get_format("instagram", "story", "video").sounds_supported
    for name in ("facebook", "linkedin", "x", "threads", "pinterest", "bluesky", "mastodon"):
        assert not get_rules(name).sounds_supported, name


def test_instagram_stories_have_no_caption():
    assert not pr.get_format("instagram", "story", "video").caption_supported
    assert not pr.get_format("facebook", "story", "image").caption_supported
    assert pr.get_format("instagram", "reel", "video").caption_supported


def test_post_types_fall_back_to_what_the_platform_publishes():
    assert get_rules("instagram").post_types == ("feed", "story", "reel")
    assert pr.resolve_post_type("x", "story", "image") == "feed"
    assert pr.resolve_post_type("youtube", "reel", "video") == "short"
    assert pr.resolve_post_type("instagram", "short", "video") == "reel"
    assert pr.resolve_post_type("instagram", "reel", "image") == "feed"
    assert pr.get_format("instagram", "feed", "video").native == "reel"


def test_youtube_cannot_publish_images():
    with pytest.raises(UnsupportedFormat):
        pr.get_format("youtube", "feed", "image")
    with pytest.raises(ValueError):
        target_size("youtube", "short", "image", "9:16")


def test_unknown_post_or_media_types_raise_value_error():
    with pytest.raises(ValueError, match="post type"):
        pr.get_format("instagram", "carousel", "image")
    with pytest.raises(ValueError, match="media type"):
        pr.get_format("instagram", "feed", "gif")


# --- counting ------------------------------------------------------------------------------


def test_x_counts_plain_latin_text_one_per_character():
    assert count_text("x", "hello world") == 11
    assert count_text("x", "café") == 4


def test_x_counts_every_url_as_twenty_three():
    long_url = "https://example.com/a/very/long/path/that/is/much/longer/than/twenty/three"
    assert count_text("x", long_url) == 23
    assert count_text("x", "http://x.co") == 23
    assert count_text("x", f"Visit {long_url} now") == 6 + 23 + 4
    assert count_text("x", "see example.com.") == 4 + 23 + 1  # bare domain, trailing dot excluded
    assert count_text("x", "a https://a.io b https://b.io") == 2 + 23 + 3 + 23


def test_x_counts_emoji_as_two_including_zwj_sequences_flags_and_skin_tones():
    assert count_text("x", GRIN) == 2
    assert count_text("x", FAMILY) == 2
    assert count_text("x", FLAG_FR) == 2
    assert count_text("x", THUMBS_MEDIUM) == 2
    assert count_text("x", HEART) == 2
    assert count_text("x", KEYCAP_ONE) == 2
    assert count_text("x", f"hi {GRIN}") == 5


def test_x_counts_cjk_as_two_and_normalises_to_nfc():
    assert count_text("x", "你好") == 4
    assert count_text("x", "日本語") == 6
    assert count_text("x", "e\u0301") == 1  # NFC: é
    assert count_text("x", "\u2026") == 2  # the ellipsis is outside the light ranges
    assert count_text("x", "\u2014") == 1  # em dash is inside U+2010-U+201F


def test_x_boundary_is_two_hundred_and_eighty_weighted_characters():
    limit = pr.get_format("x", "feed", "image").caption
    assert limit.max == 280
    assert limit.fits("a" * 280)
    assert not limit.fits("a" * 281)
    assert limit.fits("你" * 140)
    assert not limit.fits("你" * 140 + "a")
    assert limit.fits("a" * 257 + " https://example.com/" + "p" * 100) is False
    assert limit.fits("a" * 256 + " https://example.com/" + "p" * 100)  # 256 + 1 + 23 = 280


def test_bluesky_counts_graphemes():
    assert count_text("bluesky", FAMILY) == 1
    assert count_text("bluesky", THUMBS_MEDIUM) == 1
    assert count_text("bluesky", FLAG_FR + "\U0001f1e9\U0001f1ea") == 2
    assert count_text("bluesky", HEART) == 1
    assert count_text("bluesky", KEYCAP_ONE) == 1
    assert count_text("bluesky", "e\u0301clair") == 6
    assert count_text("bluesky", "\u1100\u1161\u11a8") == 1  # Hangul jamo L V T
    assert count_text("bluesky", "a\r\nb") == 3
    assert count_text("bluesky", "hello") == 5


def test_bluesky_also_caps_the_text_at_three_thousand_utf8_bytes():
    limit = pr.get_format("bluesky", "feed", "image").caption
    assert limit.fits("a" * 300)
    assert not limit.fits("a" * 301)
    assert count_text("bluesky", FAMILY * 150) == 150
    assert not limit.fits(FAMILY * 150)  # 150 graphemes but 3,750 bytes
    assert "3000 bytes" in limit.problem(FAMILY * 150)


def test_grapheme_segmentation_keeps_zwj_sequences_together():
    assert graphemes(f"a{FAMILY}b") == ["a", FAMILY, "b"]
    assert graphemes(FLAG_FR * 3) == [FLAG_FR] * 3
    assert graphemes("\U0001f1eb") == ["\U0001f1eb"]


def test_tiktok_counts_utf16_code_units():
    assert count_text("tiktok", "abc") == 3
    assert count_text("tiktok", GRIN) == 2  # one surrogate pair
    assert count_text("tiktok", FAMILY) == 11  # 4 pairs + 3 ZWJ
    assert count_text("tiktok", "你好") == 2


def test_instagram_counts_utf16_code_units_conservatively():
    assert count_text("instagram", GRIN) == 2
    assert count_text("instagram", "hello") == 5


def test_youtube_descriptions_count_utf8_bytes_and_forbid_angle_brackets():
    assert count_text("youtube", "abc") == 3
    assert count_text("youtube", "é") == 2
    assert count_text("youtube", "你") == 3
    assert count_text("youtube", GRIN) == 4
    assert get_rules("youtube").forbidden_chars == ("<", ">")
    assert pr.get_format("youtube", "feed", "video").title.unit == UNIT_CHARACTERS


def test_threads_counts_an_emoji_as_its_utf8_bytes():
    assert count_text("threads", "hi") == 2
    assert count_text("threads", f"hi {GRIN}") == 3 + 4
    assert count_text("threads", HEART) == 6
    assert count_text("threads", FAMILY) == len(FAMILY.encode("utf-8"))
    assert count_text("threads", "你好") == 2


def test_mastodon_counts_urls_as_twenty_three_and_other_text_in_code_points():
    assert count_text("mastodon", "https://example.com/" + "x" * 100) == 23
    assert count_text("mastodon", "hi http://a.io") == 3 + 23
    assert count_text("mastodon", GRIN) == 1
    assert count_text("mastodon", "example.com") == 11  # no scheme: counted as written


def test_other_platforms_count_code_points():
    for name in ("facebook", "linkedin", "pinterest"):
        assert count_text(name, f"a{GRIN}你") == 3, name


def test_limit_problems_name_the_limit_and_the_unit():
    message = pr.get_format("x", "feed", "image").caption.problem("a" * 300, " on X")
    assert message == "is 300 weighted characters; the limit on X is 280 weighted characters"
    assert pr.get_format("x", "feed", "image").caption.problem("short") is None


# --- ratios, sizes, durations --------------------------------------------------------------


def test_stories_reels_and_shorts_are_nine_by_sixteen():
    assert supported_ratio("instagram", "story", "image", "16:9") == "9:16"
    assert supported_ratio("instagram", "reel", "video", "1:1") == "9:16"
    assert supported_ratio("facebook", "reel", "video", "4:5") == "9:16"
    assert supported_ratio("tiktok", "short", "video", "16:9") == "9:16"
    assert supported_ratio("youtube", "short", "video", None) == "9:16"
    assert supported_ratio("youtube", "short", "video", "9:16") == "9:16"


def test_youtube_shorts_may_also_be_square_as_the_yaml_says():
    assert supported_ratio("youtube", "short", "video", "1:1") == "1:1"
    assert supported_ratio("youtube", "short", "video", "16:9") == "1:1"  # the nearest allowed


def test_instagram_feed_images_stay_within_four_by_five_to_one_ninety_one():
    allowed = get_rules("instagram").aspect_ratios[("feed", "image")]
    assert set(allowed) == {"1:1", "16:9", "4:5", "3:2"}
    assert supported_ratio("instagram", "feed", "image", "9:16") == "4:5"
    assert supported_ratio("instagram", "feed", "image", "16:9") == "16:9"  # 1.78 <= 1.91
    assert supported_ratio("instagram", "feed", "image", None) == "4:5"


def test_youtube_feed_videos_are_landscape():
    assert supported_ratio("youtube", "feed", "video", "9:16") in ("16:9", "3:2")
    assert supported_ratio("youtube", "feed", "video", "4:5") in ("16:9", "3:2")
    assert supported_ratio("youtube", "feed", "video", None) == "16:9"


def test_a_requested_ratio_that_is_allowed_is_kept():
    for ratio in ASPECT_RATIOS:
        assert supported_ratio("linkedin", "feed", "image", ratio) == ratio
        assert supported_ratio("x", "feed", "video", ratio) == ratio


def test_an_invalid_ratio_raises_value_error():
    with pytest.raises(ValueError):
        supported_ratio("x", "feed", "image", "wide")


def test_target_sizes_use_standard_sizes_and_the_yaml_recommendations():
    assert target_size("instagram", "story", "image", "9:16") == (1080, 1920)
    assert target_size("instagram", "feed", "image", "4:5") == (1080, 1350)
    assert target_size("instagram", "feed", "image", "1:1") == (1080, 1080)
    assert target_size("instagram", "feed", "image") == (1080, 1350)
    assert target_size("linkedin", "feed", "image", "16:9") == (1920, 1080)
    assert target_size("linkedin", "feed", "image", "3:2") == (1620, 1080)
    assert target_size("facebook", "feed", "image", "4:5") == (1080, 1350)
    assert target_size("youtube", "feed", "video", "16:9") == (1920, 1080)
    assert target_size("youtube", "short", "video", "9:16") == (1080, 1920)
    assert target_size("tiktok", "feed", "video", None) == (1080, 1920)


def test_pinterest_default_is_two_by_three_at_1000_by_1500():
    assert supported_ratio("pinterest", "feed", "image") == "2:3"
    assert target_size("pinterest", "feed", "image") == (1000, 1500)
    assert target_size("pinterest", "feed", "image", "1:1") == (1080, 1080)


def test_target_sizes_respect_platform_pixel_limits_and_keep_the_exact_ratio():
    # Instagram feed images are at most 1440 px wide; X video at most 1280x1024.
    assert target_size("instagram", "feed", "image", "16:9") == (1440, 810)
    assert target_size("instagram", "feed", "image", "3:2") == (1440, 960)
    assert target_size("x", "feed", "video", "16:9") == (1280, 720)
    assert target_size("x", "feed", "video", "9:16") == (720, 1280)
    assert target_size("x", "feed", "video", "4:5") == (1024, 1280)
    assert target_size("x", "feed", "video", "3:2") == (1278, 852)


def test_every_target_size_is_even_and_matches_its_ratio():
    for name in SUPPORTED_PLATFORMS:
        for post_type in POST_TYPES:
            for media_type in MEDIA_TYPES:
                for ratio in (*ASPECT_RATIOS, None):
                    try:
                        w, h = target_size(name, post_type, media_type, ratio)
                    except UnsupportedFormat:
                        assert (name, media_type) == ("youtube", "image")
                        continue
                    used = supported_ratio(name, post_type, media_type, ratio)
                    a, b = (int(x) for x in used.split(":"))
                    assert w * b == h * a, (name, post_type, media_type, ratio)
                    assert w % 2 == 0 and h % 2 == 0


def test_video_seconds_are_clipped_to_what_the_generator_makes():
    for name in SUPPORTED_PLATFORMS:
        for post_type in POST_TYPES:
            assert video_seconds(name, post_type) == (5.0, 8.0), (name, post_type)


def test_platform_video_ranges_come_from_the_yaml():
    assert get_rules("instagram").video_seconds["reel"] == (3.0, 900.0)
    assert get_rules("instagram").video_seconds["story"] == (3.0, 60.0)
    assert get_rules("facebook").video_seconds["reel"] == (3.0, 90.0)
    assert get_rules("youtube").video_seconds["short"] == (1.0, 180.0)
    assert get_rules("pinterest").video_seconds["feed"] == (4.0, 900.0)
    assert get_rules("x").video_seconds["feed"] == (0.5, 1200.0)
