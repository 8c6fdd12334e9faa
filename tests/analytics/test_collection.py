"""Collection: due schedule by post age, sandbox snapshots growing with age, gaps recorded."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.analytics import services
from apps.analytics.models import PostSnapshot, ProfileSnapshot
from apps.analytics.tasks import collect_due_metrics, collect_followers
from apps.publishing.models import Publication, SandboxPost
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db
H = datetime.timedelta(hours=1)
D = datetime.timedelta(days=1)


def sandbox_post(org, profile, age):
    now = timezone.now()
    content = make_content(org, brand=profile.brand, status="published", image=False, platforms=(profile.platform,))
    post = SandboxPost.objects.create(organization=org, profile=profile, platform=profile.platform,
                                      reference=str(content.pk)[:64], external_id=f"sbx-{content.pk}")
    SandboxPost.objects.filter(pk=post.pk).update(created_at=now - age)
    return Publication.objects.create(organization=org, content=content, profile=profile, platform=profile.platform,
                                      scheduled_for=now - age, due_at=now - age, status="published",
                                      published_at=now - age, external_id=post.external_id)


def snapshot(pub, taken_ago):
    PostSnapshot.objects.filter(publication=pub).update(latest=False)
    PostSnapshot.objects.create(organization=pub.organization, publication=pub, content=pub.content,
                                profile=pub.profile, platform=pub.platform, published_at=pub.published_at,
                                taken_at=timezone.now() - taken_ago, likes=1)


@pytest.mark.parametrize(("age", "taken_ago", "due"), [
    (2 * H, None, True),
    (5 * H, 2 * H, True), (5 * H, 30 * datetime.timedelta(minutes=1), False),   # hourly under 48 h
    (10 * D, 25 * H, True), (10 * D, 12 * H, False),                          # daily to 30 days
    (40 * D, 8 * D, True), (40 * D, 3 * D, False),                            # weekly after
])
def test_what_is_due_follows_the_age_of_the_post(owner, age, taken_ago, due):
    profile = ProfileFactory(organization=owner.org, sandbox=True)
    pub = sandbox_post(owner.org, profile, age)
    if taken_ago is not None:
        snapshot(pub, taken_ago)
    assert (pub in list(services.due_publications())) is due


def test_sandbox_metrics_grow_with_age_and_each_pull_is_kept(owner):
    profile = ProfileFactory(organization=owner.org, sandbox=True, follower_count=5000)
    pub = sandbox_post(owner.org, profile, 2 * H)
    assert collect_due_metrics() == 1
    first = PostSnapshot.objects.get(publication=pub)
    assert first.views > 0 and first.reach > 0 and first.unavailable == {}
    SandboxPost.objects.filter(external_id=pub.external_id).update(created_at=timezone.now() - 30 * H)
    PostSnapshot.objects.filter(pk=first.pk).update(taken_at=timezone.now() - 2 * H)
    assert collect_due_metrics() == 1
    history = list(PostSnapshot.objects.filter(publication=pub).order_by("taken_at"))
    assert len(history) == 2 and [s.latest for s in history] == [False, True]
    assert history[1].views > history[0].views and history[1].likes >= history[0].likes
    assert collect_due_metrics() == 0  # nothing due any more


def test_a_post_outside_the_platforms_window_records_the_gap_never_zero(owner):
    profile = ProfileFactory(organization=owner.org, platform="pinterest", sandbox=False)
    pub = sandbox_post(owner.org, profile, 100 * D)
    snap = services.collect_publication(pub)
    assert snap.likes is None and snap.views is None
    assert "last 90 days" in snap.unavailable["likes"]


def test_followers_are_snapshotted_daily(owner):
    profile = ProfileFactory(organization=owner.org, sandbox=True, follower_count=777)
    assert collect_followers() >= 1
    assert ProfileSnapshot.objects.get(profile=profile).followers == 777
    assert collect_followers() == 0
