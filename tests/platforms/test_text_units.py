"""apps/platforms/text.py with literal values (issue 24): every unit, each X weight-range edge,
URLs followed by punctuation, Mastodon with two URLs, the limit messages."""

from __future__ import annotations

import pytest

from apps.platforms import text as t

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


@pytest.mark.parametrize(
    ("cp", "weight"),
    [
        (0x0000, 1), (0x10FF, 1), (0x1100, 2), (0x1FFF, 2), (0x2000, 1), (0x200D, 1), (0x200E, 2),
        (0x200F, 2), (0x2010, 1), (0x201F, 1), (0x2020, 2), (0x2031, 2), (0x2032, 1), (0x2037, 1),
        (0x2038, 2), (0x3000, 2), (0x10000, 2),
    ],
)  # fmt: skip
def test_x_weight_range_edges(cp, weight):
    assert t.count_weighted("a" + chr(cp)) == 1 + weight


def test_x_emoji_and_sequences():
    assert t.count_weighted(FAMILY) == 2
    assert t.count_weighted(SCOTLAND) == 2
    assert t.count_weighted("\U0001f1ff\U0001f1fc") == 2  # a flag up to the last regional indicator
    assert t.count_weighted("\u263a\ufe0e") == 4  # text presentation: two characters
    assert t.count_weighted("a\ufe0f") == 3
    assert t.count_weighted("\U0001f9d1\U0001f3fd\u200d\U0001f680") == 5  # newer than twemoji 11: parts


def test_urls_followed_by_punctuation():
    assert t.find_urls("see https://example.com.") == [(4, 23)]
    assert t.find_urls("(see https://example.com)") == [(5, 24)]
    assert t.find_urls("https://en.wikipedia.org/wiki/Foo_(bar).") == [(0, 39)]
    assert t.find_urls("go to example.com, now") == [(6, 17)]
    assert t.find_urls("https://a.com,https://b.com") == [(0, 13), (14, 27)]
    assert t.find_urls("a.b.c.d no") == []
    assert t.find_urls("user@example.com") == []
    assert t.find_urls("example.com", bare_domains=False) == []
    assert t.count_weighted("see https://example.com.") == 4 + 23 + 1
    assert t.count_weighted("(https://example.com/x)") == 1 + 23 + 1


def test_mastodon_counts_every_url_as_twenty_three():
    text = "a https://example.com/very/long/path b https://example.org/x."
    assert t.count_characters(text, 23) == 2 + 23 + 3 + 23 + 1
    assert t.count_characters(text) == len(text)
    assert t.count_characters("example.com", 23) == 11  # bare domains are text there


def test_every_unit():
    text = "h\u00e9\U0001f600"
    assert t.count_in_unit(text, t.UNIT_CHARACTERS) == 3
    assert t.count_in_unit(text, t.UNIT_UTF16) == 4
    assert t.count_in_unit(text, t.UNIT_GRAPHEMES) == 3
    assert t.count_in_unit(text, t.UNIT_UTF8_BYTES) == 7
    assert t.count_in_unit(text, t.UNIT_EMOJI_BYTES) == 2 + 4
    assert t.count_in_unit(text, t.UNIT_WEIGHTED) == 4
    assert t.count_in_unit("https://example.com", t.UNIT_WEIGHTED, url_length=10) == 10
    assert t.count_in_unit("https://example.com", t.UNIT_CHARACTERS, url_length=23) == 23
    with pytest.raises(ValueError, match="unknown text unit 'bogus'"):
        t.count_in_unit(text, "bogus")


def test_utf16_units():
    assert t._utf16_units("a\U0001f600") == "a\ud83d\ude00"
    assert t._surrogates(0x10000) == "\ud800\udc00"
    assert t._surrogates(0x10FFFF) == "\udbff\udfff"


def test_text_limit():
    x = t.TextLimit(280, t.UNIT_WEIGHTED)
    assert x.describe() == "280 weighted characters"
    assert x.fits("a" * 280) and not x.fits("a" * 281)
    assert x.problem("a" * 280) is None
    assert (
        x.problem("a" * 281, " on X")
        == "is 281 weighted characters; the limit on X is 280 weighted characters"
    )
    bsky = t.TextLimit(300, t.UNIT_GRAPHEMES, max_bytes=3000)
    assert bsky.describe() == "300 graphemes and 3000 bytes (UTF-8)"
    assert bsky.fits(FAMILY * 120)  # 120 graphemes, 3000 bytes
    assert not bsky.fits(FAMILY * 120 + "a")
    assert bsky.problem(FAMILY * 121) == "is 3025 bytes (UTF-8); the limit is 3000 bytes (UTF-8)"
    assert bsky.problem("a" * 301) == "is 301 graphemes; the limit is 300 graphemes"
    mast = t.TextLimit(500, t.UNIT_CHARACTERS, url_length=23)
    assert mast.unit_label == "characters (each URL counts as 23)"
    assert mast.count("https://example.com/" + "x" * 600) == 23
    assert t.TextLimit(5, t.UNIT_UTF16, url_length=23).unit_label == "UTF-16 code units"
    assert t.TextLimit(5).unit_label == "characters"
    assert t.TextLimit(5, t.UNIT_EMOJI_BYTES).unit_label == "characters (emoji count as their UTF-8 bytes)"


@pytest.mark.parametrize(
    ("cluster", "units"),
    [
        ("\u263a\ufe0e", 2),  # VS15 asks for text: its characters, not its bytes
        ("\U0001f600\ufe0e", 2),
        ("\U0001f1e6", 4), ("\U0001f1ff", 4),  # a lone regional indicator, first and last
        ("\U0001f3fb", 4), ("\U0001f3ff", 4),  # a lone skin tone, first and last
        ("#\ufe0f\u20e3", 7), ("*\ufe0f\u20e3", 7), ("0\ufe0f\u20e3", 7), ("9\ufe0f\u20e3", 7),
        ("1\u20e3", 2),  # a keycap without VS16 is two characters
        ("X\ufe0f\u20e3", 3),  # not a keycap base
        ("5", 1), ("a\ufe0f", 2),
        ("\u00a9", 1), ("\u00a9\ufe0f", 5),  # © is an emoji only with VS16 (Latin-1)
        ("\u203c", 3),  # a pictograph above Latin-1 is one without it
        ("\u4e2d", 1),  # above Latin-1 but no pictograph
    ],
)  # fmt: skip
def test_threads_emoji_bytes_by_cluster(cluster, units):
    assert t.count_emoji_bytes(cluster) == units
    assert t.count_emoji_bytes("ab\n" + cluster) == 3 + units  # (a skin tone would join a letter)


def test_a_url_domain_label_is_at_most_sixty_three_characters_once_punycode_encoded():
    # "ü" * 57 is xn-- and 59 characters: 63; one more "ü" is 64
    assert t.find_urls("https://" + "\u00fc" * 57 + ".com") == [(0, 69)]
    assert t.find_urls("https://" + "\u00fc" * 58 + ".com") == []
    assert t.find_urls("https://" + "a" * 63 + ".com") == [(0, 75)]  # ASCII as it is
    assert t.find_urls("https://\u65e5\u672c.com x") == [(0, 14)]
    assert t.find_urls("https://\u65e5\u672c\u8a9e.jp") == [(0, 14)]
    # a domain written as punycode must be one in ASCII
    assert t.find_urls("https://xn--\u65e5\u672c.com x") == []
    assert t.find_urls("https://xn--p1ai.com") == [(0, 20)]


@pytest.mark.parametrize("prefix", ["https://example.com/", "example.com/"])
def test_a_url_is_at_most_4096_units_with_its_scheme(prefix):
    # twitter-text counts the scheme (https:// for a bare domain) besides the URL: 8 + 4088
    longest = prefix + "a" * (4088 - len(prefix))
    assert t.find_urls(longest) == [(0, 4088)]
    assert t.find_urls(longest + "a") == []
    assert t.count_weighted(longest) == 23
    assert t.count_weighted(longest + "a") == 4089


def test_a_url_after_characters_beyond_the_bmp_is_found_at_its_utf16_offset():
    # the emoji before it are two UTF-16 units each (three would miss the URL too)
    assert t.count_weighted("\U0001f600 https://example.com x") == 2 + 1 + 23 + 2
    assert t.count_weighted("\U0001f600\U0001f600 https://example.com") == 4 + 1 + 23
    assert t.count_weighted("\u4e2d\U00020000 https://example.com") == 2 + 2 + 1 + 23


def test_utf16_counts_are_whole_numbers():
    assert t.TextLimit(2, t.UNIT_UTF16).problem("a\U0001f600") == (
        "is 3 UTF-16 code units; the limit is 2 UTF-16 code units"
    )
