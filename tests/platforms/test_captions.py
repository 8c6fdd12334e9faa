"""apps/platforms/captions.py pinned with literal values (issue 24): hashtags, words and
sentences, composing, shortening at sentence and word ends, dropping hashtags, titles."""

from __future__ import annotations

import pytest

from apps.platforms import captions as c

ELL = "…"


@pytest.mark.parametrize(
    ("raw", "tag"),
    [
        ("coffee", "#coffee"),
        ("#coffee", "#coffee"),
        ("##coffee", "#coffee"),
        ("  #Coffee Time ", "#CoffeeTime"),
        ("#café", "#café"),
        ("#cafe\u0301", "#café"),  # NFC
        ("#new_york", "#new_york"),
        ("#2024", None),
        ("#2024goals", "#2024goals"),
        ("#", None),
        ("", None),
        ("#a-b!", "#ab"),
        ("#日本", "#日本"),
        (5, None),
    ],
)
def test_normalize_hashtag(raw, tag):
    assert c.normalize_hashtag(raw) == tag


def test_normalize_hashtags_dedupes_case_insensitively_keeping_the_first():
    assert c.normalize_hashtags(["#Coffee", "coffee", "#2024", "#tea", "#COFFEE", "Tea"]) == [
        "#Coffee",
        "#tea",
    ]
    assert c.normalize_hashtags([]) == []


def test_words_split_on_spaces_and_after_cjk_punctuation():
    assert c.words("  one two\nthree ") == ["one", "two", "three"]
    assert c.tokenize("ab cd") == [(0, 2), (3, 5)]
    assert c.words("今日は。晴れ、です") == ["今日は。", "晴れ、", "です"]
    assert c.words("末尾。") == ["末尾。"]  # a break as the last character splits nothing
    assert c.words("") == []


def test_inline_hashtags():
    assert c.inline_hashtags("Love #coffee, #Tea!") == [(5, 13, "#coffee"), (14, 19, "#Tea")]
    assert c.inline_hashtags("a#b c&#d e/#f ##g") == []  # inside words, entities, paths, doubled
    assert c.inline_hashtags("x #2024 #ok") == [(8, 11, "#ok")]
    assert c.inline_hashtags("#a#b") == [(0, 4, "#a")]
    assert c.inline_hashtags("#cafe\u0301") == [(0, 6, "#café")]
    assert c.inline_hashtags("") == []


def test_hashtag_keys_count_each_tag_once():
    assert c.hashtag_keys("#A and #b", ["#a", "#C"]) == {"#a", "#b", "#c"}


def test_compose_caption():
    assert c.compose_caption(" Hello ", ["#a", "#b"]) == "Hello\n\n#a #b"
    assert c.compose_caption("", ["#a"]) == "#a"
    assert c.compose_caption("Hello", []) == "Hello"
    assert c.compose_caption(None, []) == ""


def test_replace_forbidden():
    assert c.replace_forbidden("youtube", "a <b> c") == "a ‹b› c"
    assert c.replace_forbidden("x", "a <b> c") == "a <b> c"


def test_shorten_keeps_the_whole_text_when_it_fits():
    assert c.shorten("  Short.  ", lambda t: True) == "Short."


def test_shorten_drops_whole_sentences_first():
    text = "One two. Three four! Five six? Seven."
    assert c.shorten(text, lambda t: len(t) <= 30) == "One two. Three four! Five six?"
    assert c.shorten(text, lambda t: len(t) <= 29) == "One two. Three four!"
    assert c.shorten(text, lambda t: len(t) <= 8) == "One two."
    assert c.shorten(text, lambda t: len(t) <= 7) == "One" + ELL
    assert c.shorten("Line one\nLine two", lambda t: len(t) <= 9) == "Line one"
    assert c.shorten('He said "stop." Then left.', lambda t: len(t) <= 16) == 'He said "stop."'


def test_shorten_sentences_only():
    text = "One two. Three four."
    assert c.shorten(text, lambda t: len(t) <= 8, sentences_only=True) == "One two."
    assert c.shorten(text, lambda t: len(t) <= 7, sentences_only=True) == ""


def test_shorten_at_word_ends_with_an_ellipsis():
    assert c.shorten("alpha beta gamma delta", lambda t: len(t) <= 11) == "alpha beta" + ELL
    assert c.shorten("alpha beta gamma delta", lambda t: len(t) <= 10) == "alpha" + ELL
    assert c.shorten("alpha beta gamma delta", lambda t: len(t) <= 5) == ""
    # a word without letters is not a place to stop
    assert c.shorten("alpha — beta gamma", lambda t: len(t) <= 9) == "alpha" + ELL
    # a tag, mention or link keeps a space before the ellipsis
    assert c.shorten("see #coffee and more", lambda t: len(t) <= 14) == "see #coffee " + ELL
    assert c.shorten("ask @barista and more", lambda t: len(t) <= 15) == "ask @barista " + ELL
    assert (
        c.shorten("at https://example.com and more", lambda t: len(t) <= 25)
        == "at https://example.com " + ELL
    )


def test_shorten_may_end_on_an_emoji_but_not_on_bare_punctuation():
    fits = lambda t: len(t) <= 5  # noqa: E731
    assert c.shorten("ab \U0001f600 cdefgh", fits) == "ab \U0001f600" + ELL  # a symbol is content
    assert c.shorten("ab -- cdefgh", fits) == "ab" + ELL


def test_last_fitting_is_a_binary_search():
    assert c._last_fitting([1, 2, 3, 4, 5], lambda p: p <= 3) == 3
    assert c._last_fitting([1, 2, 3, 4, 5], lambda p: p <= 5) == 5
    assert c._last_fitting([1, 2, 3, 4, 5], lambda p: p <= 0) is None
    assert c._last_fitting([], lambda p: True) is None
    assert c._last_fitting([7], lambda p: True) == 7


def test_drop_inline_hashtags():
    assert c.drop_inline_hashtags("Hi #a #b #c there", 1) == "Hi #a there"
    assert c.drop_inline_hashtags("Hi #a #A #b", 1) == "Hi #a #A"
    assert c.drop_inline_hashtags("Hi #a #b", 2) == "Hi #a #b"
    assert c.drop_inline_hashtags("#a,#b end", 1) == "end"
    assert c.drop_inline_hashtags("one #a\n #b two", 1) == "one #a\ntwo"
    assert c.drop_inline_hashtags("#x", 0) == ""
    assert c.drop_inline_hashtags("one #a #b\ntwo", 1) == "one #a\ntwo"  # no space before the line end
    assert c.drop_inline_hashtags("one #a #b\t\ntwo", 1) == "one #a\ntwo"


def test_derive_title():
    fits = lambda t: len(t) <= 20  # noqa: E731
    assert c.derive_title(fits, "Fresh roast today. More soon #coffee") == "Fresh roast today."
    assert c.derive_title(fits, "Visit https://example.com now! #x") == "Visit now!"
    assert c.derive_title(fits, "Our single origin espresso is back") == "Our single origin" + ELL
    assert c.derive_title(fits, "#only #tags", "Second source.") == "Second source."
    assert c.derive_title(fits, "", "#coffee #tea") == ""
    assert c.derive_title(fits) == ""


def test_clean_text():
    assert c.clean_text(" a\r\nb \n") == "a\nb"
    assert c.clean_text(None) == ""
    assert c.clean_text(12) == "12"


def test_sentences():
    assert c.sentences("One. Two!\nThree") == ["One.", "Two!", "Three"]
    assert c.sentences("Done. 🎉\nNext.") == ["Done. 🎉", "Next."]  # an emoji ending the line stays
    assert c.sentences("Done. 🎉 Next.") == ["Done.", "🎉 Next."]
    assert c.sentences("🎉 First.") == ["🎉 First."]
    assert c.sentences("") == []
    assert c.sentences("a (b.) c") == ["a (b.)", "c"]


FACTS = "Sale ends 12 May. Nice day. Code SAVE10 works. Great stuff. Call 555-0100 now."


@pytest.mark.parametrize(
    ("limit", "dropping_facts", "keeping_facts"),
    [
        (80, FACTS, FACTS),
        (60, "Sale ends 12 May. Code SAVE10 works. Call 555-0100 now.", "Sale ends 12 May. Code SAVE10 works. Call 555-0100 now."),
        (45, "Sale ends 12 May. Code SAVE10 works.", ""),
        (30, "Sale ends 12 May.", ""),
        (17, "Sale ends 12 May.", ""),
        (10, "", ""),
    ],
)  # fmt: skip
def test_shorten_keeping_facts_drops_decoration_then_facts_from_the_end(limit, dropping_facts, keeping_facts):
    fits = lambda t: len(t) <= limit  # noqa: E731
    assert c.shorten_keeping_facts(FACTS, fits) == dropping_facts  # (the default)
    assert c.shorten_keeping_facts(FACTS, fits, drop_facts=True) == dropping_facts
    assert c.shorten_keeping_facts(FACTS, fits, drop_facts=False) == keeping_facts


def test_shorten_keeping_facts_edges():
    fits = lambda t: len(t) <= 20  # noqa: E731
    # the last sentence has no full stop: still a sentence of its own
    assert c.shorten_keeping_facts("Sale ends 12 May. Nice day and more words", fits) == "Sale ends 12 May."
    assert c.shorten_keeping_facts("Nice day. Great stuff.", lambda t: len(t) <= 5) == ""  # "", never None


def test_sentences_and_words_around_cjk_and_closers():
    assert c.sentences("你好。世界") == ["你好。", "世界"]
    assert c.sentences("你好！世界") == ["你好！", "世界"]
    assert c.sentences("Ask Dr. Smith today. Then go.") == ["Ask Dr. Smith today.", "Then go."]
    assert c.sentences("a ) b") == ["a ) b"]  # a word of closers only ends nothing
    assert c.words("你好。世界 abc") == ["你好。", "世界", "abc"]
    assert c.words("你好。世") == ["你好。", "世"]
    assert c.inline_hashtags("你好。#tag") == [(3, 7, "#tag")]
    assert c.normalize_hashtag("Xmas") == "#Xmas"
