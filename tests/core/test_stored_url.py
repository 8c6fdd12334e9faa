"""`core.storage.stored_url`: a list page's file URLs, built without urljoin on the local disk,
are what the storage itself answers for every name."""

from __future__ import annotations

import pytest
from django.core.files.storage import FileSystemStorage, default_storage
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.core.storage import absolute_url, stored_url

NAMES = [
    "media/2026/11/26/0f3a.png",
    "media/bench/0f3a-thumb.png",
    "uploads/a b/ü ñ é.jpg",
    "uploads/%41/#frag?q=1.png",
    "x:y/z.png",
    "file.png",
    "./media/x.png",
    "media/./x.png",
    "media/../x.png",
    "media//x.png",
    "/media/x.png",
    "media/.hidden",
    "..",
    "media/x~!*()'.png",
]


def test_the_suite_stores_on_the_local_disk():
    # the path the shortcut takes (the others defer to the storage itself)
    assert default_storage.__class__.url is FileSystemStorage.url


@pytest.mark.parametrize("name", NAMES)
def test_a_stored_name_has_the_storages_url(name):
    assert stored_url(name) == default_storage.url(name)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12).filter(lambda s: "\x00" not in s), min_size=1, max_size=4))
def test_any_stored_name_has_the_storages_url(segments):
    name = "/".join(segments)
    assert stored_url(name) == default_storage.url(name)


def test_a_page_row_and_a_model_show_the_same_url(settings):
    settings.PUBLIC_BASE_URL = "https://post.example"
    assert absolute_url(None, "media/a.png") == f"https://post.example{default_storage.url('media/a.png')}"
    assert absolute_url(None, "") is None
