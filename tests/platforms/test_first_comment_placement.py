"""Hashtags placed in the first comment by a platform's rules (`hashtag_placement:
first_comment`, issue 29): no platform in platforms.yaml says so today, so the branch of
`adaptation._place_hashtags` that reads it runs here on a rules fixture (Instagram's rules with
that one value changed), not only through its equivalent-mutant entry."""

from __future__ import annotations

import dataclasses

import pytest

from apps.platforms import adaptation
from apps.platforms.rules import SUPPORTED_PLATFORMS, get_rules

DRAFT = adaptation.Draft(caption="Our autumn latte is back today.", hashtags=["#latte", "#autumn"])


@pytest.fixture
def first_comment_rules(monkeypatch):
    """Instagram as it would be if it placed hashtags in the first comment."""
    rules = dataclasses.replace(get_rules("instagram"), hashtag_placement="first_comment")
    monkeypatch.setattr(adaptation, "get_rules", lambda name: rules)
    return rules


def test_platforms_yaml_places_hashtags_in_the_caption_everywhere():
    """Why the branch needs a fixture: no platform asks for the first comment."""
    assert {get_rules(p).hashtag_placement for p in SUPPORTED_PLATFORMS} == {"caption"}


def test_a_caption_that_fits_keeps_its_hashtags_under_the_real_rules():
    variant = adaptation.adapt("instagram", DRAFT)
    assert variant.hashtags == ["#latte", "#autumn"]
    assert variant.first_comment == ""
    assert "hashtags moved to first comment" not in variant.adaptations


def test_first_comment_placement_moves_the_hashtags_even_when_the_caption_has_room(first_comment_rules):
    assert first_comment_rules.first_comment_supported
    variant = adaptation.adapt("instagram", DRAFT)
    assert variant.caption == "Our autumn latte is back today."
    assert variant.hashtags == []
    assert variant.first_comment == "#latte #autumn"
    assert "hashtags moved to first comment" in variant.adaptations


def test_first_comment_placement_adds_the_hashtags_after_a_comment_already_there(first_comment_rules):
    draft = dataclasses.replace(DRAFT, first_comment="Where is yours from?")
    variant = adaptation.adapt("instagram", draft)
    assert variant.hashtags == []
    assert variant.first_comment.startswith("Where is yours from?")
    assert variant.first_comment.endswith("#latte #autumn")
