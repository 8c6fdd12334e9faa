"""Properties of adaptation over every platform x post type x media type (Hypothesis drafts).

Kept apart from the literal examples in test_adaptation.py: bench/mutation.py runs those against
each of adaptation.py's mutants, and these 90 property runs under mutmut's tracing are too slow
for that."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.platforms.adaptation import Draft, adapt
from apps.platforms.captions import ELLIPSIS, normalize_hashtags, replace_forbidden, words
from apps.platforms.rules import MEDIA_TYPES, POST_TYPES, SUPPORTED_PLATFORMS, UnsupportedFormat, get_format
from apps.platforms.validation import validate_variant

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"

# --- properties over every platform x post type x media type -------------------------------

PLAIN_WORDS = [
    "coffee",
    "Espresso",
    "morning.",
    "great!",
    "really?",
    "blend,",
    "você",
    "naïve",
    "e\u0301clair",
    "Hello",
]
SPECIAL_WORDS = [
    "你好世界。",
    "日本語のテキスト、とても長い",
    "😀",
    FAMILY,
    "\U0001f1eb\U0001f1f7",
    "\u2764\ufe0f",
    "\U0001f44d\U0001f3fd",
    "https://example.com/a/very/long/path/to/a/product?id=12345",
    "example.org",
    "#inline",
    "#Coffee",
    "#",
    "<3",
    "a>b",
    "@brand",
    "—",
    "…",
    "x" * 40,
]
word = st.one_of(
    st.sampled_from(PLAIN_WORDS),
    st.sampled_from(SPECIAL_WORDS),
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
        min_size=1,
        max_size=10,
    ),
)
separator = st.sampled_from([" ", " ", " ", "\n", "\n\n", ". "])


@st.composite
def texts(draw, max_words: int = 120) -> str:
    parts = draw(st.lists(st.tuples(word, separator), max_size=max_words))
    if draw(st.integers(0, 4)) == 0:  # sometimes one enormous word
        long_word = draw(st.text(alphabet="abcxyz", min_size=250, max_size=3200))
        parts.insert(draw(st.integers(0, len(parts))), (long_word, " "))
    return "".join(w + s for w, s in parts)


tag = st.one_of(
    st.sampled_from(
        [
            "coffee",
            "#Coffee",
            "#coffee",
            "new york",
            "#1",
            "##latte",
            "#",
            "café",
            "Cafe\u0301",
            "#très_bien",
            "#" + "t" * 60,
            "#日本",
            "#emoji😀",
        ]
    ),
    st.text(max_size=15),
)


@st.composite
def drafts(draw) -> Draft:
    caption = draw(st.sampled_from(PLAIN_WORDS[:3])) + " " + draw(texts())
    return Draft(
        caption=caption,
        hashtags=draw(st.lists(tag, max_size=40)),
        first_comment=draw(st.one_of(st.just(""), texts(max_words=60))),
        alt_text=draw(st.one_of(st.just(""), texts(max_words=400))),
        title=draw(st.one_of(st.just(""), texts(max_words=30))),
        sounds=draw(st.lists(st.text(max_size=8), max_size=3)),
    )


def _all_whole(adapted: str, *originals: str, tail: Iterable[str] = ()) -> bool:
    """Every word of ``adapted`` is a whole word of one of ``originals``, ignoring an ellipsis
    after the last one; words in ``tail`` may follow it (hashtags moved to a first comment)."""
    allowed = {w for text in originals for w in words(text)}
    tokens = words(adapted)
    while tokens and tokens[-1] in set(tail):
        tokens.pop()
    if tokens and tokens[-1] == ELLIPSIS:  # the ellipsis goes after a space following a link/tag
        tokens.pop()
    elif tokens and tokens[-1] not in allowed and tokens[-1].endswith(ELLIPSIS):
        tokens[-1] = tokens[-1].removesuffix(ELLIPSIS)
    return all(token in allowed for token in tokens)


COMBOS = [(p, pt, mt) for p in SUPPORTED_PLATFORMS for pt in POST_TYPES for mt in MEDIA_TYPES]


@pytest.mark.parametrize(("platform", "post_type", "media_type"), COMBOS)
@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(draft=drafts())
def test_adapted_variants_are_valid_made_of_whole_original_words_and_stable(
    platform, post_type, media_type, draft
):
    if (platform, media_type) == ("youtube", "image"):
        with pytest.raises(UnsupportedFormat):
            adapt(platform, draft, post_type=post_type, media_type=media_type)
        return
    v = adapt(platform, draft, post_type=post_type, media_type=media_type)

    # always valid
    assert validate_variant(platform, v, post_type=post_type, media_type=media_type) == {}

    # every caption word is a whole word of the original caption (or of a folded first comment)
    caption = replace_forbidden(platform, draft.caption)
    comment = replace_forbidden(platform, draft.first_comment)
    assert _all_whole(v.caption, caption, comment), v.caption

    # every hashtag is a whole original hashtag; a first comment holds whole words and tags
    original_tags = normalize_hashtags(draft.hashtags)
    assert all(t in original_tags for t in v.hashtags)
    assert _all_whole(v.first_comment, draft.first_comment, tail=original_tags)
    assert _all_whole(v.alt_text, draft.alt_text)

    # what the platform does not support is gone
    fmt = get_format(platform, post_type, media_type)
    assert fmt.caption_supported or (v.caption, v.hashtags) == ("", [])
    assert fmt.first_comment_supported or v.first_comment == ""
    assert fmt.alt_text_supported or v.alt_text == ""
    assert fmt.sounds_supported or v.sounds == []
    assert fmt.title_supported or v.title == ""

    # idempotent: adapting the adapted variant changes nothing
    again = adapt(platform, v, post_type=post_type, media_type=media_type)
    assert again.to_dict() == {**v.to_dict(), "adaptations": []}
