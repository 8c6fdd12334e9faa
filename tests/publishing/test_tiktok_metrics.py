"""TikTok metrics need the public video id (issue 13): a post recorded under its publish id
(private, or its moderation outlasted the poller) gets its video id resolved by the metrics
pull before the metrics are read; while there is none, the gap is recorded with the reason,
never zeros. Real client and services against the TikTok fake."""

from __future__ import annotations

import pytest
from django.utils import timezone

from apps.analytics import services as analytics
from apps.analytics.models import PostSnapshot
from apps.publishing.models import Publication
from apps.publishing.platforms.tiktok import TikTokClient
from tests.publishing.test_processing_and_unknown import brand, real_profile, run_due, scheduled, tiktok  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def _published_under_publish_id(owner, brand, profile):  # noqa: F811
    """As the poller leaves a post it stopped waiting for: published, under its publish id."""
    pub = run_due(scheduled(owner, brand, profile, "tiktok"))
    assert pub.status == "processing"
    publish_id = pub.platform_state["publish_id"]
    Publication.objects.filter(pk=pub.pk).update(
        status="published", external_id=publish_id, published_at=timezone.now()
    )
    pub.refresh_from_db()
    return pub, publish_id


def test_the_pull_resolves_the_publish_id_to_the_video_id_then_reads_the_metrics(owner, brand, tiktok):  # noqa: F811
    fake, profile = tiktok
    pub, publish_id = _published_under_publish_id(owner, brand, profile)
    assert TikTokClient.is_publish_id(publish_id)

    # still in moderation: no video id yet, so no figures and the reason says why
    first = analytics.collect_publication(pub)
    assert first.views is None and first.likes is None
    assert "public video id" in first.unavailable["views"]
    assert not fake.calls("video_query")  # never asked with a publish id
    pub.refresh_from_db()
    assert pub.external_id == publish_id

    fake.clock.advance(600)  # moderation over: TikTok gives the post id
    [post] = fake.posts
    fake.set_metrics(post["id"], views=1200, likes=90, comments=7, shares=3)
    second = analytics.collect_publication(pub)
    pub.refresh_from_db()
    assert pub.external_id == post["id"] and post["id"] in pub.url  # recorded by the publishing service
    assert (second.views, second.likes, second.comments, second.shares) == (1200, 90, 7, 3)
    assert (
        second.engagement == 100 and second.rate_basis == "views" and second.rate == pytest.approx(100 / 12)
    )
    assert "views" not in second.unavailable
    assert PostSnapshot.objects.filter(publication=pub, latest=True).get().pk == second.pk

    # from now on the video id is used directly: no status read
    reads = len(fake.calls("status_fetch"))
    analytics.collect_publication(pub)
    assert len(fake.calls("status_fetch")) == reads


def test_video_ids_are_not_taken_for_publish_ids():
    check = TikTokClient.is_publish_id
    assert check("v_pub_file~v2-1.7345") and check("v_pub_url~v2.123") and check("p_pub_url~v2.9")
    assert not check("7345123456789012345") and not check("")
