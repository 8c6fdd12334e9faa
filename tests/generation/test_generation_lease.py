"""Generations hold a lease their heartbeat renews; the sweep takes over from a dead worker (issue 9)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.content import states
from apps.content.models import Content
from apps.generation import pipeline
from tests.content.factories import make_content

pytestmark = pytest.mark.django_db(transaction=True)


def _stranded(org, *, attempts: int, lease_ago: float = 5) -> Content:
    """As a SIGKILLed worker leaves it: generating, lease expired, nothing running."""
    content = make_content(org, status=states.GENERATING, image=False)
    Content.objects.filter(pk=content.pk).update(
        generation_attempts=attempts,
        generation_lease_until=timezone.now() - datetime.timedelta(seconds=lease_ago),
    )
    return content


def test_the_sweep_requeues_a_generation_whose_worker_died_and_it_finishes(owner):
    content = _stranded(owner.org, attempts=1)
    running = make_content(owner.org, status=states.GENERATING, image=False)
    Content.objects.filter(pk=running.pk).update(
        generation_attempts=1, generation_lease_until=timezone.now() + datetime.timedelta(seconds=60)
    )
    assert pipeline.sweep() == {"requeued": 1}  # eager Celery: the generation runs again here
    content.refresh_from_db()
    assert content.status == states.REVIEW and content.generation_lease_until is None
    assert content.generation_attempts == 2 and content.generated_at >= content.generation_started_at
    running.refresh_from_db()
    assert running.status == states.GENERATING  # a live lease is left alone


def test_after_max_attempts_the_generation_fails_with_a_reason(owner, settings):
    settings.GENERATION_MAX_ATTEMPTS = 3
    content = _stranded(owner.org, attempts=3)
    pipeline.sweep()
    content.refresh_from_db()
    assert content.status == states.FAILED
    assert "stopped 3 times" in content.status_reason


def test_a_duplicate_task_does_not_run_a_generation_another_worker_holds(owner):
    content = make_content(owner.org, status=states.GENERATING, image=False)
    Content.objects.filter(pk=content.pk).update(
        generation_attempts=1, generation_lease_until=timezone.now() + datetime.timedelta(seconds=60)
    )
    assert pipeline.run(content.pk) is None
    content.refresh_from_db()
    assert content.status == states.GENERATING and content.generation_attempts == 1


def test_the_heartbeat_renews_the_lease_while_the_engine_runs(owner, settings, monkeypatch):
    settings.GENERATION_HEARTBEAT_SECONDS = 0.2
    settings.GENERATION_LEASE_SECONDS = 1
    content = make_content(owner.org, status=states.PENDING, image=False)
    leases = []
    real_texts = pipeline.get_engine().__class__.texts  # the pipeline asks for every platform's text

    def slow_texts(self, request):
        import time

        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:  # the engine takes longer than the lease
            leases.append(
                Content.objects.filter(pk=content.pk).values_list("generation_lease_until", flat=True).get()
            )
            time.sleep(0.1)
        return real_texts(self, request)

    monkeypatch.setattr(pipeline.get_engine().__class__, "texts", slow_texts)
    pipeline.run(content.pk)
    content.refresh_from_db()
    assert content.status == states.REVIEW
    assert len(set(leases)) >= 3  # renewed several times


def test_a_pending_generation_whose_task_was_lost_is_queued_again(owner, settings):
    content = make_content(owner.org, status=states.PENDING, image=False)
    Content.objects.filter(pk=content.pk).update(updated_at=timezone.now() - datetime.timedelta(seconds=600))
    assert pipeline.sweep() == {"requeued": 1}
    content.refresh_from_db()
    assert content.status == states.REVIEW


def test_readyz_reports_live_workers(client, django_user_model):
    from apps.core import workers

    client.force_login(django_user_model.objects.create_user("ops", is_staff=True))  # details are staff's
    workers.beat_once("w-test@host", ["generation"])
    try:
        body = client.get("/readyz").json()
        assert body["workers"]["alive"] >= 1 and "w-test@host" in body["workers"]["names"]
    finally:
        workers.forget("w-test@host")
