"""Collection: due schedule by post age, sandbox snapshots growing with age, gaps recorded."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.analytics import services
from apps.analytics.models import PostSnapshot, ProfileSnapshot, PullClaim
from apps.analytics.tasks import collect_due_metrics, collect_followers
from apps.publishing.models import Publication, SandboxPost
from tests.content.factories import make_content
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db
H = datetime.timedelta(hours=1)
D = datetime.timedelta(days=1)


def sandbox_post(org, profile, age):
    now = timezone.now()
    content = make_content(
        org, brand=profile.brand, status="published", image=False, platforms=(profile.platform,)
    )
    post = SandboxPost.objects.create(
        organization=org,
        profile=profile,
        platform=profile.platform,
        reference=str(content.pk)[:64],
        external_id=f"sbx-{content.pk}",
    )
    SandboxPost.objects.filter(pk=post.pk).update(created_at=now - age)
    return Publication.objects.create(
        organization=org,
        content=content,
        profile=profile,
        platform=profile.platform,
        scheduled_for=now - age,
        due_at=now - age,
        status="published",
        published_at=now - age,
        external_id=post.external_id,
    )


def snapshot(pub, taken_ago):
    PostSnapshot.objects.filter(publication=pub).update(latest=False)
    PostSnapshot.objects.create(
        organization=pub.organization,
        publication=pub,
        content=pub.content,
        profile=pub.profile,
        platform=pub.platform,
        published_at=pub.published_at,
        taken_at=timezone.now() - taken_ago,
        likes=1,
    )


@pytest.mark.parametrize(
    ("age", "taken_ago", "due"),
    [
        (2 * H, None, True),
        (5 * H, 2 * H, True),
        (5 * H, 30 * datetime.timedelta(minutes=1), False),  # hourly under 48 h
        (10 * D, 25 * H, True),
        (10 * D, 12 * H, False),  # daily to 30 days
        (40 * D, 8 * D, True),
        (40 * D, 3 * D, False),  # weekly after
    ],
)
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


def test_a_claimed_publication_is_not_taken_by_a_second_sweep(owner):
    profile = ProfileFactory(organization=owner.org, sandbox=True)
    pubs = [sandbox_post(owner.org, profile, 2 * H) for _ in range(3)]
    first = services.claim_due_publications()
    assert sorted(i for _, ids in first for i in ids) == sorted(p.pk for p in pubs)
    assert services.claim_due_publications() == []  # all held by the first sweep
    token, ids = first[0]
    assert services.collect_chunk(PullClaim.POST, token, ids) == 3
    assert PullClaim.objects.count() == 0  # each claim went with its snapshot
    # the same chunk delivered again (a redelivered message) stores nothing twice
    assert services.collect_chunk(PullClaim.POST, token, ids) == 0
    assert PostSnapshot.objects.filter(publication__in=pubs).count() == 3


def test_an_expired_claim_is_taken_over_and_its_old_holder_cannot_store(owner):
    profile = ProfileFactory(organization=owner.org, sandbox=True)
    pub = sandbox_post(owner.org, profile, 2 * H)
    [(old_token, _)] = services.claim_due_publications()
    # the holder was killed: its lease runs out and the next sweep claims the publication again
    PullClaim.objects.filter(token=old_token).update(
        leased_until=timezone.now() - datetime.timedelta(seconds=1)
    )
    [(new_token, ids)] = services.claim_due_publications()
    assert ids == [pub.pk] and new_token != old_token
    with pytest.raises(services.LeaseLost):
        services.collect_publication(pub, token=old_token)
    assert not PostSnapshot.objects.filter(publication=pub).exists()
    assert services.collect_chunk(PullClaim.POST, new_token, ids) == 1
    assert PostSnapshot.objects.filter(publication=pub).count() == 1


def test_a_claim_on_what_is_no_longer_due_is_released(owner):
    """Stored by another holder between the due query and the claim: released, not pulled."""
    profile = ProfileFactory(organization=owner.org, sandbox=True)
    pub = sandbox_post(owner.org, profile, 2 * H)
    real_due = services.due_publications
    services.due_publications = lambda *a, **k: (
        real_due(*a, **k) if k.get("include_claimed") else _stale_due(real_due, pub, *a, **k)
    )
    try:
        assert services.claim_due_publications() == []
    finally:
        services.due_publications = real_due
    assert PullClaim.objects.count() == 0
    assert PostSnapshot.objects.filter(publication=pub).count() == 1


def _stale_due(real_due, pub, *args, **kwargs):
    """The due list as read just before another worker stored the publication's snapshot."""
    ids = list(real_due(*args, **kwargs).values_list("pk", flat=True))
    services.collect_publication(pub)
    return Publication.objects.filter(pk__in=ids)


def test_a_paused_platform_releases_the_claim_for_a_later_sweep(owner):
    from django.core.cache import cache

    profile = ProfileFactory(organization=owner.org, sandbox=True)
    pub = sandbox_post(owner.org, profile, 2 * H)
    services._pause_platform("sandbox", 60)  # as after a 429 with Retry-After: 60
    try:
        assert collect_due_metrics() == 1  # claimed, then left alone
    finally:
        cache.delete("analytics:pause:sandbox")
    assert PullClaim.objects.count() == 0 and not PostSnapshot.objects.filter(publication=pub).exists()
    assert pub in list(services.due_publications())  # still due for the next sweep


def test_followers_are_claimed_once(owner):
    ProfileFactory(organization=owner.org, sandbox=True, follower_count=10)
    chunks = services.claim_due_profiles()
    assert chunks and services.claim_due_profiles() == []
    for token, ids in chunks:
        services.collect_chunk(PullClaim.PROFILE, token, ids)
    assert collect_followers() == 0 and PullClaim.objects.count() == 0
