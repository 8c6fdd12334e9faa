"""Due publications travel to the workers in chunks; each keeps its own claim and result."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.brands.models import Brand
from apps.events.models import Event
from apps.publishing import services, tasks
from apps.publishing.models import Publication, SandboxPost
from tests.factories import ProfileFactory
from tests.publishing.test_scheduling import generated, later

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def scheduled(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(organization=owner.org, brand=brand, platform="instagram", sandbox=True)
    contents = [generated(owner, brand) for _ in range(7)]
    for content in contents:
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    return contents


@pytest.fixture
def sent(monkeypatch):
    """What went to the broker: the real task still runs (eager), we only watch its arguments."""
    chunks: list[list[str]] = []
    real = tasks.publish_publications.delay

    def watch(ids):
        chunks.append(list(ids))
        return real(ids)

    monkeypatch.setattr(tasks.publish_publications, "delay", watch)
    return chunks


def test_due_publications_go_out_in_chunks_each_once(settings, scheduled, sent):
    settings.PUBLISH_TASK_CHUNK = 3
    assert services.dispatch_due(now=later(31)) == 7
    assert [len(c) for c in sent] == [3, 3, 1]
    assert len({pk for chunk in sent for pk in chunk}) == 7
    pubs = Publication.objects.filter(content__in=scheduled)
    assert sorted(p.status for p in pubs) == ["published"] * 7
    assert all(SandboxPost.objects.filter(reference=str(p.pk)).count() == 1 for p in pubs)
    # each publication's events were recorded and fanned out by the task itself
    published = Event.objects.filter(
        type="content.published", data__contentId__in=[str(c.pk) for c in scheduled]
    )
    assert published.count() == 7
    assert not published.filter(dispatched_at__isnull=True).exists()


def test_a_chunk_that_runs_long_hands_the_rest_back(settings, scheduled, sent):
    settings.PUBLISH_TASK_CHUNK = 7
    settings.PUBLISH_CHUNK_SECONDS = 0  # every publication counts as slow
    # eager Celery runs each handed-back chunk inside the one before, all holding leases at once
    settings.PUBLISH_CONCURRENCY = {**settings.PUBLISH_CONCURRENCY, "instagram": 10}
    before = timezone.now()
    assert services.dispatch_due(now=later(31)) == 7
    # one publication per task run; the untouched rest goes back as a new chunk each time
    assert [len(c) for c in sent] == [7, 6, 5, 4, 3, 2, 1]
    pubs = list(Publication.objects.filter(content__in=scheduled))
    assert all(p.status == "published" and p.attempts == 1 for p in pubs)
    assert all(p.queued_at >= before - datetime.timedelta(seconds=1) for p in pubs)
    assert SandboxPost.objects.filter(reference__in=[str(p.pk) for p in pubs]).count() == 7


def test_a_row_that_another_worker_took_is_skipped_in_a_chunk(settings, scheduled):
    settings.PUBLISH_TASK_CHUNK = 10
    pubs = list(Publication.objects.filter(content__in=scheduled).order_by("created_at"))
    Publication.objects.filter(pk__in=[p.pk for p in pubs]).update(
        status=Publication.QUEUED, queued_at=timezone.now()
    )
    Publication.objects.filter(pk=pubs[0].pk).update(status=Publication.PUBLISHING)  # someone else holds it
    services.publications_run([str(p.pk) for p in pubs])
    statuses = dict(Publication.objects.filter(pk__in=[p.pk for p in pubs]).values_list("pk", "status"))
    assert statuses[pubs[0].pk] == "publishing"
    assert [statuses[p.pk] for p in pubs[1:]] == ["published"] * 6
    assert not SandboxPost.objects.filter(reference=str(pubs[0].pk)).exists()


def test_the_concurrency_cap_counts_chunks_and_holds_a_platform_at_its_cap(settings, scheduled):
    import uuid

    settings.PUBLISH_TASK_CHUNK = 3
    settings.PUBLISH_CONCURRENCY = {**settings.PUBLISH_CONCURRENCY, "instagram": 1}
    pubs = list(Publication.objects.filter(content__in=scheduled).order_by("created_at"))
    busy = pubs[0]  # another worker's chunk is mid-call on instagram
    Publication.objects.filter(pk=busy.pk).update(
        status=Publication.PUBLISHING,
        claim=uuid.uuid4(),
        lease_until=timezone.now() + datetime.timedelta(minutes=5),
    )
    now = later(31)
    assert services.dispatch_due(now=now) == 6
    waiting = Publication.objects.filter(pk__in=[p.pk for p in pubs[1:]])
    assert {p.status for p in waiting} == {"scheduled"}  # at the cap: back for a moment, nothing posted
    assert all(p.due_at > timezone.now() for p in waiting)
    assert not SandboxPost.objects.filter(reference__in=[str(p.pk) for p in pubs]).exists()

    Publication.objects.filter(pk=busy.pk).update(status=Publication.PUBLISHED)  # that chunk finished
    settings.PUBLISH_TASK_CHUNK = 10  # one chunk: its rows count once against the cap of 1
    assert services.dispatch_due(now=later(40)) == 6
    assert {p.status for p in waiting.all()} == {"published"}


def test_a_full_daily_quota_is_reported_before_trying_and_retried_later(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    profile = ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="instagram",
        sandbox=True,
        settings={"sandbox": {"dailyLimit": 1}},
    )
    first, second = generated(owner, brand), generated(owner, brand)
    for content in (first, second):
        services.publications_schedule(content=content, profiles=[profile], scheduled_for=later())
    assert services.dispatch_due(now=later(31)) == 2
    pubs = {p.content_id: p for p in Publication.objects.filter(content__in=[first, second])}
    statuses = sorted(p.status for p in pubs.values())
    assert statuses == ["published", "scheduled"]  # one fits the 24 h quota of 1, the other waits
    waiting = next(p for p in pubs.values() if p.status == "scheduled")
    assert waiting.error_code == "publish_limit" and "1/1 in 24 h" in waiting.last_error
    assert waiting.due_at >= timezone.now() + datetime.timedelta(minutes=59)
    assert SandboxPost.objects.filter(profile=profile).count() == 1  # nothing was sent for the second


def test_an_unexpected_error_is_retried_as_unknown_then_left_for_a_person_after_max_attempts(
    settings, scheduled, monkeypatch
):
    from apps.publishing.services import running as publishing

    def broken(profile):
        raise ValueError("token key was rotated away")

    monkeypatch.setattr(publishing, "client_for", broken)  # a bug in our own code path, not the platform
    pub = Publication.objects.filter(content=scheduled[0]).get()
    Publication.objects.filter(pk=pub.pk).update(status=Publication.QUEUED)
    services.publications_run([str(pub.pk)])
    pub.refresh_from_db()
    assert (
        pub.status == "scheduled" and pub.outcome_unknown and "token key was rotated away" in pub.last_error
    )
    Publication.objects.filter(pk=pub.pk).update(
        status=Publication.QUEUED, attempts=services.MAX_ATTEMPTS - 1
    )
    services.publications_run([str(pub.pk)])
    pub.refresh_from_db()
    # never failed while the post may exist: a person confirms it in the admin
    assert pub.status == "unknown" and "outcome still unknown" in pub.last_error
    assert pub.outcome_unknown
    assert pub.content.status == "publishing"


def test_a_chunk_whose_lease_was_taken_back_does_not_record_over_the_new_holder(
    settings, scheduled, monkeypatch
):
    import uuid

    from apps.publishing.services import running as publishing

    pub = Publication.objects.filter(content=scheduled[0]).get()
    Publication.objects.filter(pk=pub.pk).update(status=Publication.QUEUED)
    real_attempt = publishing._attempt

    def slow_attempt(p, must_reconcile, context=None):
        # while this call runs, the lease expires and another worker's chunk takes the row
        Publication.objects.filter(pk=p.pk).update(claim=uuid.uuid4())
        return real_attempt(p, must_reconcile, context)

    monkeypatch.setattr(publishing, "_attempt", slow_attempt)
    services.publications_run([str(pub.pk)])
    pub.refresh_from_db()
    assert pub.status == "publishing"  # left to the holder of the new claim, which reconciles
    assert pub.outcome_unknown
    assert SandboxPost.objects.filter(reference=str(pub.pk)).count() == 1
