"""`/api/batch/generate` is charged by its items and capped (issue 9)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from apps.content.models import Batch, ContentSchedule
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db


def _schedules(api, owner, n: int) -> list[str]:
    profile = ProfileFactory(organization=owner.org, platform="instagram")
    tomorrow = (timezone.localdate() + datetime.timedelta(days=1)).isoformat()
    return [
        api.post(
            "/api/content/schedules",
            {"socialProfileId": str(profile.pk), "scheduledDate": tomorrow, "task": f"Post {i}"},
            format="json",
        ).json()["data"]["id"]
        for i in range(n)
    ]


def test_a_batch_is_charged_one_generation_per_item(api, owner, settings):
    settings.RATE_LIMIT_GENERATION = 5
    ids = _schedules(api, owner, 7)
    too_many = api.post("/api/batch/generate", {"scheduleIds": ids[:6]}, format="json")
    assert too_many.status_code == 429
    body = too_many.json()
    assert "6 generations" in body["error"] and body["details"]["requested"] == 6
    assert too_many["Retry-After"]
    assert not Batch.objects.exists()  # refused whole, nothing charged
    assert api.post("/api/batch/generate", {"scheduleIds": ids[:5]}, format="json").status_code == 202
    one_more = api.post("/api/batch/generate", {"scheduleIds": ids[5:6]}, format="json")
    assert one_more.status_code == 429 and one_more.json()["details"]["remaining"] == 0
    assert ContentSchedule.objects.filter(status=ContentSchedule.GENERATING).count() == 5


def test_a_batch_holds_at_most_batch_max_items(api, owner, settings):
    settings.BATCH_MAX_ITEMS = 3
    settings.RATE_LIMIT_GENERATION = 100
    ids = _schedules(api, owner, 4)
    response = api.post("/api/batch/generate", {"scheduleIds": ids}, format="json")
    assert response.status_code == 400 and "At most 3" in response.json()["details"]["scheduleIds"][0]
    assert not Batch.objects.exists()
    assert api.post("/api/batch/generate", {"scheduleIds": ids[:3]}, format="json").status_code == 202
