"""The suite's scheduling order (tests/conftest.py SLOW_FIRST) names modules that exist: a
renamed or removed slow module would silently lose its place at the front."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SLOW_FIRST, _slow_rank

ROOT = Path(__file__).resolve().parents[1]


def test_every_slow_first_module_exists_and_is_listed_once():
    assert [p for p in SLOW_FIRST if not (ROOT / p).is_file()] == []
    assert len(set(SLOW_FIRST)) == len(SLOW_FIRST)


def test_the_slowest_modules_sort_first_and_the_rest_keep_their_order():
    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    items = [
        Item("tests/a/test_x.py::t1"),
        Item(f"{SLOW_FIRST[1]}::t"),
        Item("tests/a/test_x.py::t2"),
        Item(f"{SLOW_FIRST[0]}::t[1]"),
        Item(f"{SLOW_FIRST[0]}::t[2]"),
    ]
    items.sort(key=_slow_rank)
    assert [i.nodeid for i in items] == [
        f"{SLOW_FIRST[0]}::t[1]",
        f"{SLOW_FIRST[0]}::t[2]",
        f"{SLOW_FIRST[1]}::t",
        "tests/a/test_x.py::t1",
        "tests/a/test_x.py::t2",
    ]
