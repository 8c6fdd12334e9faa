"""apps/core/ids.py pinned with literal values (issue 24): every prefix written out, the length
guard at 63/64/65, non-strings, every kind, a tuple of kinds and none."""

from __future__ import annotations

import uuid

import pytest

from apps.core import ids

U = uuid.UUID("0123abcd-4567-89ef-0123-456789abcdef")
HEX = "0123abcd456789ef0123456789abcdef"
CANONICAL = "0123abcd-4567-89ef-0123-456789abcdef"

# Every kind with its prefix, written out (not read from ids.PREFIXES).
KINDS = [
    ("content", "cnt"),
    ("profile", "prf"),
    ("brand", "brd"),
    ("media", "med"),
    ("asset", "ast"),
    ("webhook", "whk"),
    ("event", "evt"),
    ("delivery", "dlv"),
    ("apikey", "key"),
    ("publication", "pub"),
    ("batch", "bat"),
    ("schedule", "sch"),
    ("tag", "tag"),
    ("campaign", "cmp"),
    ("organization", "org"),
    ("redirect_origin", "rdo"),
    ("approval_link", "apl"),
]


def test_the_kinds_are_exactly_these():
    assert dict(KINDS) == ids.PREFIXES


@pytest.mark.parametrize(("kind", "prefix"), KINDS)
def test_render_writes_the_prefix_and_32_hex_digits(kind, prefix):
    assert ids.render(U, kind) == f"{prefix}_{HEX}"
    assert ids.render(CANONICAL, kind) == f"{prefix}_{HEX}"
    assert ids.render(HEX, kind) == f"{prefix}_{HEX}"


def test_render_literal_examples():
    assert ids.render(U, "apikey") == "key_0123abcd456789ef0123456789abcdef"
    assert ids.render(U, "batch") == "bat_0123abcd456789ef0123456789abcdef"
    assert ids.render(U, "schedule") == "sch_0123abcd456789ef0123456789abcdef"
    assert ids.render(U, "tag") == "tag_0123abcd456789ef0123456789abcdef"
    assert ids.render(U, "campaign") == "cmp_0123abcd456789ef0123456789abcdef"
    assert ids.render(None, "content") is None


def test_render_refuses_what_is_not_a_uuid_or_a_kind():
    with pytest.raises(ValueError):
        ids.render("cnt_nothex", "content")
    with pytest.raises(KeyError):
        ids.render(U, "nokind")


@pytest.mark.parametrize(("kind", "prefix"), KINDS)
def test_parse_accepts_its_own_prefix_only(kind, prefix):
    assert ids.parse(f"{prefix}_{HEX}", kind) == U
    other = "prf" if prefix != "prf" else "cnt"
    assert ids.parse(f"{other}_{HEX}", kind) is None


@pytest.mark.parametrize(("kind", "prefix"), KINDS)
def test_parse_without_a_kind_accepts_every_prefix(kind, prefix):
    assert ids.parse(f"{prefix}_{HEX}") == U
    assert ids.parse(f"{prefix}_{HEX}", None) == U


def test_parse_literal_prefixes_the_tests_never_wrote():
    assert ids.parse("key_0123abcd456789ef0123456789abcdef", "apikey") == U
    assert ids.parse("bat_0123abcd456789ef0123456789abcdef", "batch") == U
    assert ids.parse("sch_0123abcd456789ef0123456789abcdef", "schedule") == U
    assert ids.parse("tag_0123abcd456789ef0123456789abcdef", "tag") == U
    assert ids.parse("cmp_0123abcd456789ef0123456789abcdef", "campaign") == U
    assert ids.parse("key_0123abcd456789ef0123456789abcdef", "batch") is None


def test_parse_with_a_tuple_of_kinds():
    assert ids.parse(f"cnt_{HEX}", ("content", "media")) == U
    assert ids.parse(f"med_{HEX}", ("content", "media")) == U
    assert ids.parse(f"brd_{HEX}", ("content", "media")) is None
    assert ids.parse(f"brd_{HEX}", ("brand",)) == U


def test_parse_unknown_prefix_is_none_with_or_without_kind():
    assert ids.parse(f"xyz_{HEX}") is None
    assert ids.parse(f"xyz_{HEX}", "content") is None
    assert ids.parse(f"_{HEX}") is None
    assert ids.parse(f"CNT_{HEX}", "content") is None


def test_parse_unprefixed_forms():
    assert ids.parse(CANONICAL) == U
    assert ids.parse(HEX) == U
    assert ids.parse(CANONICAL.upper(), "content") == U
    assert ids.parse(f"  {CANONICAL}\n") == U
    assert ids.parse(f" cnt_{HEX} ", "content") == U
    assert ids.parse(f"cnt_{CANONICAL}\n", "content") == U
    assert ids.parse(f"cnt_{HEX.upper()}", "content") == U
    assert ids.parse(U) is U
    assert ids.parse(U, "brand") is U


@pytest.mark.parametrize(
    "value",
    [None, 0, 12, 1.5, b"cnt_" + HEX.encode(), [CANONICAL], {"id": CANONICAL}, U.int, True, object()],
)
def test_parse_non_strings_are_none(value):
    assert ids.parse(value) is None
    assert ids.parse(value, "content") is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        " ",
        "cnt_",
        "cnt_xyz",
        f"cnt_{HEX}0",
        f"cnt_{HEX[:-1]}",
        "not-a-uuid",
        "cnt__" + HEX,
        f"{HEX}_",
        # what uuid.UUID (through int()) would take: an underscore, a sign or 0x among the digits,
        # braces, a URN, hyphens elsewhere
        "cnt_0123abcd_456789ef0123456789abcde",
        "cnt_+123abcd456789ef0123456789abcdef",
        "cnt_0x23abcd456789ef0123456789abcdef",
        "+123abcd456789ef0123456789abcdef",
        "0x23abcd456789ef0123456789abcdef",
        "{" + CANONICAL + "}",
        "urn:uuid:" + CANONICAL,
        "0123abcd4567-89ef-0123-456789abcdef",
        "0123abcd-456789ef-0123-456789abcdef",
        "0123-abcd-4567-89ef-0123456789abcdef",
    ],
)
def test_parse_malformed_is_none(value):
    assert ids.parse(value) is None
    assert ids.parse(value, "content") is None


def test_parse_length_guard_at_63_64_65():
    # padded with spaces (which parse strips) to the length under test
    for length, expected in ((63, U), (64, U), (65, None)):
        value = f"cnt_{HEX}".ljust(length)
        assert len(value) == length
        assert ids.parse(value, "content") == expected, length
        bare = CANONICAL.rjust(length)
        assert ids.parse(bare) == expected, length


def test_parse_with_an_empty_kind_reads_any_prefix_and_never_raises():
    assert ids.parse(f"cnt_{HEX}", "") == U
    assert ids.parse(f"zzz_{HEX}", "") is None
    assert ids.parse("__main__", "") is None
