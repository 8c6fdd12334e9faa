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


@pytest.mark.parametrize(
    ("text", "weight"),
    [
        ("\U00010000 https://example.com", 2 + 1 + 23),  # the first character beyond the BMP
        ("\uffff https://example.com", 2 + 1 + 23),  # the last one within it
        ("\U00020000ab", 2 + 1 + 1),  # a surrogate pair is one character of weight 2
        ("\U0010ffffab", 2 + 1 + 1),  # its high surrogate U+DBFF, the last
        ("\U000103ffab", 2 + 1 + 1),  # its low surrogate U+DFFF, the last
        # lone surrogates (JSON can carry them): each a character of weight 2
        ("\ud800ab", 2 + 1 + 1),
        ("a\ud800", 1 + 2),
        ("\udc00\udc00", 2 + 2),
        ("\ud800\ue000", 2 + 2),
    ],
)
def test_x_weight_of_surrogates(text, weight):
    assert t.count_weighted(text) == weight


def test_bare_domains_after_a_joining_character_are_not_urls():
    assert t.find_urls("example.com.") == [(0, 11)]
    assert t.find_urls("a example.com") == [(2, 13)]
    for before in "-_/.":
        assert t.find_urls(before + "example.com") == []
        assert t.find_urls("a " + before + "example.com") == []


def test_an_invalid_url_does_not_end_the_search():
    assert t.find_urls("https://xn--\u65e5\u672c.com https://a.com") == [(19, 32)]


# --- graphemes (UAX #29), each rule with literal clusters ------------------------------------

KA, VIRAMA, SSA = "\u0915", "\u094d", "\u0937"  # Devanagari: consonant, linker, consonant


@pytest.mark.parametrize(
    ("text", "clusters"),
    [
        ("\r\n", 1), ("\n\r", 2), ("a\r", 2), ("\ra", 2), ("\r\u0301", 2),  # GB3-GB5
        ("a\x00", 2), ("\x00\u0301", 2), ("\x00a", 2), ("a\u0301", 1),  # controls; GB9 Extend
        ("\u0600a", 1), ("a\u0600", 2), ("\u0600\n", 2), ("\u0600\x00", 2), ("\u0600\u0600a", 1),  # Prepend
        (KA + "\u093e", 1), (" \u093e", 1), ("\n\u093e", 2),  # GB9a SpacingMark
        ("a\u200d", 1), ("\u200d\u200d", 1), ("a\u200d\U0001f600", 2),  # ZWJ
        ("\U0001f600\u200d\U0001f600", 1), ("\U0001f600\u0301\u200d\U0001f600", 1),  # GB11
        ("\U0001f600\u0301\u0301\u200d\U0001f600", 1), ("\u00a9\u200d\u00a9", 1),
        ("\U0001f600\u200d\u200d\U0001f600", 2), ("\U0001f600\u200d\u0301\U0001f600", 2),
        ("\U0001f1e6\U0001f1e6", 1), ("\U0001f1ff\U0001f1ff", 1), ("\U0001f1e6\U0001f1e8\U0001f1ff", 2),
        ("\U0001f1e6\U0001f1e6\U0001f1e6\U0001f1e6", 2), ("a\U0001f1e6\U0001f1e6", 2),  # GB12, GB13
        ("\U0001f1e5\U0001f1e6", 2), ("\U0001f1ff\U0001f200", 2),  # just outside the indicators
        (KA + VIRAMA + SSA, 1), (KA + VIRAMA + VIRAMA + SSA, 1), (KA + "\u0941" + VIRAMA + SSA, 1),  # GB9c
        (KA + VIRAMA + "\u0941" + SSA, 1), (KA + VIRAMA + "\u200d" + SSA, 1), (KA + SSA, 2),
        (KA + VIRAMA + SSA + VIRAMA + KA, 1), (KA + VIRAMA + "a", 2),
        ("a" + VIRAMA + SSA, 2),  # GB9c needs a consonant first (the regex module joins these)
        (KA + VIRAMA + "a" + SSA, 3),  # a letter between ends the conjunct
        ("\u0600\r", 2),  # GB5 before Prepend's GB9b
    ],
)  # fmt: skip
def test_grapheme_rules(text, clusters):
    assert len(t.graphemes(text)) == clusters
    assert "".join(t.graphemes(text)) == text


# how a code point joins Hangul around it: followed by L, V, T, LV, then after L, LV, LVT, V, T
# (1 joined, 2 apart)
HANGUL_JOINS = {
    "Other": "222222222",
    "L": "112112222",
    "V": "211211212",
    "T": "221221111",
    "LV": "211212222",
    "LVT": "221212222",
}


@pytest.mark.parametrize(
    ("cp", "kind"),
    [
        (0x10FF, "Other"), (0x1100, "L"), (0x115F, "L"), (0x1160, "V"), (0x11A7, "V"), (0x11A8, "T"),
        (0x11FF, "T"), (0x1200, "Other"), (0xA95F, "Other"), (0xA960, "L"), (0xA97C, "L"),
        (0xA97D, "Other"), (0xABFF, "Other"), (0xAC00, "LV"), (0xAC01, "LVT"), (0xAC1B, "LVT"),
        (0xAC1C, "LV"), (0xD7A3, "LVT"), (0xD7A4, "Other"), (0xD7AF, "Other"), (0xD7B0, "V"),
        (0xD7C6, "V"), (0xD7C7, "Other"), (0xD7CA, "Other"), (0xD7CB, "T"), (0xD7FB, "T"),
        (0xD7FC, "Other"),
    ],
)  # fmt: skip
def test_hangul_jamo_and_syllable_bounds(cp, kind):
    c = chr(cp)
    around = [c + "\u1100", c + "\u1161", c + "\u11a8", c + "\uac00"]
    around += ["\u1100" + c, "\uac00" + c, "\uac01" + c, "\u1161" + c, "\u11a8" + c]
    assert "".join(str(len(t.graphemes(s))) for s in around) == HANGUL_JOINS[kind]


def test_the_range_table_and_the_tld_pattern_builders():
    # (built when the module loads; called here so that their mutants run)
    ranges = t._Ranges(((1, 3), (5, 5), (8, 9)))
    assert [cp for cp in range(11) if cp in ranges] == [1, 2, 3, 5, 8, 9]
    assert 0 not in t._Ranges(())
    assert t._alternation(("ab", "ac", "b")) == "(?:a(?:b|c)|b)"
    assert t._alternation(("a", "ab")) == "a(?:b)?"
    assert t._alternation(("ab",)) == "ab"
    assert t._alternation(("a.b",)) == "a\\.b"


def test_a_text_exactly_at_the_byte_cap_fits():
    bsky = t.TextLimit(300, t.UNIT_GRAPHEMES, max_bytes=3000)
    assert bsky.problem(FAMILY * 120) is None  # 120 graphemes, exactly 3000 bytes
    assert bsky.problem(FAMILY * 120 + "a") == "is 3001 bytes (UTF-8); the limit is 3000 bytes (UTF-8)"


def test_a_bare_domain_skipped_does_not_end_the_search():
    assert t.find_urls("-example.com https://a.com") == [(13, 26)]
    assert t.find_urls("example.com https://a.com", bare_domains=False) == [(12, 25)]


def test_a_bare_domain_with_other_characters_is_its_ascii_part():
    assert t.find_urls("see \u65e5\u672c.example.com") == [(7, 18)]


def test_a_url_after_a_wide_character_beyond_the_bmp():
    # U+10000 is two UTF-16 units, U+3002 weighs 2: the URL starts at unit 3
    assert t.count_weighted("\U00010000\u3002https://example.com") == 2 + 2 + 23
