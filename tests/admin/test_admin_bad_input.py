"""Issue 28, "Admin 500s": the red team's inputs answer a clear 400 (or a refusal on the page),
never a 500, and the counter's measure has an input cap."""

from __future__ import annotations

import datetime
import json

import pytest
from django.test import Client
from django.utils import timezone

from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import OrganizationFactory, ProfileFactory

pytestmark = pytest.mark.django_db
MOVE = "/admin/calendar/reschedule/"
DATA = "/admin/calendar/data/"
MEASURE = "/admin/content/content/measure/"


@pytest.fixture
def boss(client, django_user_model) -> Client:
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "pass-boss-1")
    client.force_login(user)
    client.raise_request_exception = False  # a 500 is an answer here, not an exception
    return client


@pytest.fixture
def scheduled():
    org = OrganizationFactory(name="Ours")
    profile = ProfileFactory(organization=org, platform="instagram", settings={"timezone": "Europe/Paris"})
    when = timezone.now() + datetime.timedelta(days=3)
    content = make_content(org, brand=profile.brand, status="scheduled")
    return Publication.objects.create(
        organization=org,
        content=content,
        profile=profile,
        platform="instagram",
        scheduled_for=when,
        due_at=when,
    )


def _move(client, body: bytes | str):
    return client.post(MOVE, body, content_type="application/json")


@pytest.mark.parametrize(
    ("tz", "field"),
    [("Mars/Olympus_Mons", "tz"), ("A" * 100_000, "tz"), ("../../etc/passwd", "tz"), ("", None)],
)
def test_a_reschedule_with_a_bad_time_zone_is_a_400_that_names_it(boss, scheduled, tz, field):
    before = scheduled.scheduled_for
    answer = _move(boss, json.dumps({"publication": str(scheduled.pk), "when": "2099-01-05T09:00", "tz": tz}))
    if field is None:  # no tz: the profile's zone
        assert answer.status_code == 200, answer.content
        return
    assert answer.status_code == 400, answer.content[:300]
    body = answer.json()
    assert field in body["problems"] and "time zone" in body["error"]
    assert len(answer.content) < 2000  # the 100 kB name is not echoed back
    scheduled.refresh_from_db()
    assert scheduled.scheduled_for == before


def test_the_calendars_data_refuses_a_100_kb_time_zone(boss, scheduled):
    answer = boss.get(DATA, {"org": str(scheduled.organization_id), "tz": "B" * 100_000})
    assert answer.status_code == 400 and "tz" in answer.json()["problems"]


def test_a_100000_deep_json_body_is_a_400(boss, scheduled):
    answer = _move(boss, "[" * 100_000 + "]" * 100_000)
    assert answer.status_code == 400
    assert answer.json()["problems"] == {"body": ["Not a JSON object."]}


@pytest.mark.parametrize(
    "when", ["9999-12-31T23:59", "9999-01-01T00:00", "0001-01-01T00:00", "99999-01-01T00:00"]
)
def test_a_reschedule_to_year_9999_or_year_1_is_a_400(boss, scheduled, when):
    for tz in ("Europe/Paris", "America/Los_Angeles", "Pacific/Kiritimati"):
        answer = _move(boss, json.dumps({"publication": str(scheduled.pk), "when": when, "tz": tz}))
        assert answer.status_code == 400, (tz, answer.content[:300])
        assert answer.json()["error"]


@pytest.mark.parametrize(
    ("view", "date"), [("week", "9999-12-31"), ("month", "9999-12-31"), ("week", "0001-01-01")]
)
def test_the_calendars_data_at_the_ends_of_time_is_a_400(boss, scheduled, view, date):
    params = {"org": str(scheduled.organization_id), "view": view, "date": date, "tz": "Pacific/Kiritimati"}
    answer = boss.get(DATA, params)
    assert answer.status_code == 400 and "date" in answer.json()["problems"]


def test_a_caption_edit_containing_nul_is_refused_on_the_page(boss, scheduled):
    content = make_content(scheduled.organization, status="review", platforms=("x",), caption="Clean")
    url = f"/admin/content/content/{content.pk}/edit-variant/x/"
    answer = boss.post(url, {"caption": "Before\x00after"})
    assert answer.status_code == 302 and "edit=x" in answer["Location"]
    page = boss.get(answer["Location"])
    assert page.status_code == 200
    assert "NUL" in page.content.decode()
    assert content.variants.get().caption == "Clean"


@pytest.mark.parametrize("field", ["caption", "hashtags", "platform", "post_type"])
def test_the_measure_has_an_input_cap(boss, field):
    data = {"platform": "x", "caption": "Hello", "hashtags": "", "post_type": "feed", "media_type": "image"}
    data[field] = "a" * 2_600_000
    answer = boss.post(MEASURE, data)
    assert answer.status_code == 400
    assert "too long" in answer.json()["error"]


def test_the_measure_still_measures_a_long_caption_under_the_cap(boss):
    answer = boss.post(MEASURE, {"platform": "x", "caption": "咖" * 10_000, "hashtags": ""})
    assert answer.status_code == 200 and answer.json()["count"] == 20_000 and answer.json()["over"]
