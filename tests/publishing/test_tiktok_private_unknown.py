"""Issue 22: TikTok's video.list sees public videos only, so a private (or friends, or
followers) post whose create answer was lost can never be found by reconciliation: it becomes
`unknown` for a person to confirm at once, and is never posted a second time."""

from __future__ import annotations

import pytest

from apps.publishing.models import Publication
from tests.publishing.test_processing_and_unknown import run_due, scheduled

pytestmark = pytest.mark.django_db(transaction=True)

# the fixtures of the processing tests: a real TikTok profile on the fake, posts handed to the poller
from tests.publishing.test_processing_and_unknown import brand, tiktok  # noqa: E402, F401


def with_visibility(profile, visibility):
    profile.settings = {**profile.settings, "defaultVisibility": visibility}
    profile.save(update_fields=["settings"])
    return profile


@pytest.mark.parametrize("visibility", ["private", "friends", "followers"])
def test_a_lost_init_answer_for_a_non_public_post_is_unknown_at_once(owner, brand, tiktok, visibility):  # noqa: F811
    fake, profile = tiktok
    with_visibility(profile, visibility)
    pub = scheduled(owner, brand, profile, "tiktok")
    fake.drop_after_create()
    pub = run_due(pub)
    assert pub.status == "unknown" and pub.outcome_unknown
    assert "TikTok lists only public videos" in pub.last_error
    assert len(fake.posts) == 1 and len(fake.calls("content_init")) == 1
    assert not fake.calls("video_list")  # nothing it could look up


def test_a_non_public_post_an_earlier_attempt_may_have_sent_is_unknown_not_posted(owner, brand, tiktok):  # noqa: F811
    fake, profile = tiktok
    with_visibility(profile, "private")
    pub = scheduled(owner, brand, profile, "tiktok")
    Publication.objects.filter(pk=pub.pk).update(outcome_unknown=True)  # a worker died mid-call
    pub = run_due(pub)
    assert pub.status == "unknown" and "TikTok lists only public videos" in pub.last_error
    assert not fake.posts and not fake.calls("content_init")


def test_a_lost_answer_for_a_public_post_is_still_reconciled(owner, brand, tiktok):  # noqa: F811
    fake, profile = tiktok
    pub = scheduled(owner, brand, profile, "tiktok")
    fake.drop_after_create()
    pub = run_due(pub)
    assert pub.status == "scheduled" and pub.outcome_unknown  # tried again after looking for it
