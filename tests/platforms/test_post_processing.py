"""Post-processing keeps a good caption good: adaptation never rewrites a caption that fits,
never ends a sentence at "Co." or "8 a.m.", drops decoration before a fact when a caption must
be shortened, and never leaves a sentence starting in lower case."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.platforms.adaptation import Draft, adapt
from apps.platforms.captions import compose_caption, derive_title, sentences, shorten_keeping_facts
from apps.platforms.rules import count_text

OPENS = "Crumb & Co. opens its second bakery on Saturday 14 March at 8 a.m. at 12 Rua das Flores."
FREE = "The first 50 customers get a free croissant."
CODE = "Use code CRUMB15 for 15% off online orders until 31 March: https://crumb.co/order"
CRUMB = f"{OPENS} {FREE} {CODE}"
LIMITS = {"x": 280, "threads": 500, "bluesky": 300}
DECORATION = [
    "We could not be happier about this.",
    "Our bakers have been practising for months and the ovens are finally warm.",
    "Bring your friends, bring your neighbours, bring your appetite.",
    "It is going to be a lovely morning with the smell of butter in the air.",
    "Thank you for all the love and support over the years, it means the world to us.",
]


def test_a_sentence_does_not_end_at_an_abbreviation():
    assert sentences(CRUMB) == [
        "Crumb & Co. opens its second bakery on Saturday 14 March at 8 a.m. at 12 Rua das Flores.",
        "The first 50 customers get a free croissant.",
        "Use code CRUMB15 for 15% off online orders until 31 March: https://crumb.co/order",
    ]
    assert sentences("Dr. Priya Raman speaks at 6 p.m. Doors open at 5.30. Free entry!") == [
        "Dr. Priya Raman speaks at 6 p.m.",
        "Doors open at 5.30.",
        "Free entry!",
    ]


def test_a_title_taken_from_the_caption_keeps_the_whole_first_sentence():
    fits = lambda text: len(text) <= 100  # noqa: E731
    assert derive_title(fits, CRUMB) == (
        "Crumb & Co. opens its second bakery on Saturday 14 March at 8 a.m. at 12 Rua das Flores."
    )


def test_captions_that_fit_are_never_rewritten():
    captions = {
        "x": "Crumb & Co. opens its second bakery on Saturday 14 March at 8 a.m. at 12 Rua das Flores. "
        "Code CRUMB15: 15% off online orders until 31 March https://crumb.co/order",
        "threads": CRUMB,
        "bluesky": "Crumb & Co. opens Saturday 14 March at 8 a.m., 12 Rua das Flores. Code CRUMB15, 15% off "
        "online until 31 March: https://crumb.co/order",
        "instagram": "Our second bakery is almost here 🥐\n\n"
        + CRUMB.replace(": https://crumb.co/order", ". Link in bio."),
        "linkedin": "Crumb & Co. is growing.\n\n" + CRUMB,
        "facebook": "Big news from the bakery!\n\n" + CRUMB,
    }
    for platform, caption in captions.items():
        variant = adapt(platform, Draft(caption, ["#CrumbAndCo"]))
        assert variant.caption == caption, platform
        assert not any(note.startswith("caption") for note in variant.adaptations), platform


def test_a_long_caption_loses_its_decoration_before_its_code_on_the_short_platforms():
    long_caption = " ".join([DECORATION[0], OPENS, *DECORATION[1:], FREE, CODE])
    for platform in ("x", "threads", "bluesky"):
        variant = adapt(platform, Draft(long_caption, ["#CrumbAndCo", "#Bakery"]))
        assert OPENS in variant.caption and CODE in variant.caption, (platform, variant.caption)
        assert not any(part[:1].islower() for part in sentences(variant.caption)), variant.caption
        published = compose_caption(variant.caption, variant.hashtags)
        assert count_text(platform, published) <= LIMITS[platform]
    # the decoration went, from the end; every sentence with a fact stayed
    assert adapt("x", Draft(long_caption, [])).caption == " ".join([DECORATION[0], OPENS, FREE, CODE])
    assert adapt("threads", Draft(long_caption, [])).caption == " ".join(
        [DECORATION[0], OPENS, *DECORATION[1:4], FREE, CODE]
    )


def test_hashtags_go_before_a_sentence_that_carries_a_fact():
    caption = " ".join(
        [
            OPENS,
            FREE,
            CODE,
            OPENS.replace("second", "first"),
            FREE.replace("50", "20"),
            "Doors close at 7 p.m. on Saturday 14 March.",
            "Parking on Rua das Flores is free after 6 p.m.",
        ]
    )
    tags = ["#CrumbAndCoBakeryLisbonPortugal", "#FreshCroissantsEveryMorningAtEight", "#Bakery"]
    variant = adapt("pinterest", Draft(caption, tags))  # no first comment to move them to
    assert count_text("pinterest", caption) == 439
    assert variant.caption == caption
    assert variant.hashtags == ["#CrumbAndCoBakeryLisbonPortugal"]
    assert (
        "2 hashtag(s) dropped so that the caption keeps its first sentence and its facts"
        in variant.adaptations
    )


def test_sentences_kept_keep_their_line_breaks():
    text = (
        "Big news!\n\nWe open on Saturday 14 March.\n\nSee you there, friends.\n\nCode CRUMB15 at the till."
    )
    short = shorten_keeping_facts(text, lambda t: len(t) <= 60)
    assert short == "We open on Saturday 14 March.\n\nCode CRUMB15 at the till."


codes = st.from_regex(r"[A-Z]{4,8}[0-9]{2}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(
    decoration=st.lists(st.sampled_from(DECORATION), min_size=2, max_size=8),
    position=st.integers(min_value=0, max_value=8),
    code=codes,
    platform=st.sampled_from(["x", "threads", "bluesky"]),
)
def test_a_code_survives_shortening_wherever_it_stands(decoration, position, code, platform):
    fact = f"Use code {code} for 15% off until 31 March."
    parts = list(decoration)
    parts.insert(min(position, len(parts)), fact)
    variant = adapt(platform, Draft(" ".join(parts), ["#Bakery"]))
    assert code in variant.caption and "31 March" in variant.caption
    assert count_text(platform, compose_caption(variant.caption, variant.hashtags)) <= LIMITS[platform]
