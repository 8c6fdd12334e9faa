"""/api/posts/queue for a profile without posting times: its best hours of the week from its
own measured posts (up to five, used as its weekly slots: the next free one is taken), else
the platform's defaults, each slot saying where it came from."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.utils import timezone

from apps.analytics.reports import PLATFORM_DEFAULTS
from apps.brands.models import Brand
from apps.content import services as content_services
from apps.content import states
from apps.content.models import Content, Variant
from apps.publishing.models import Publication
from tests.analytics.fixtures import publish
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db
PARIS = zoneinfo.ZoneInfo("Europe/Paris")


def next_weekly(weekday: int, hour: int, tz) -> datetime.datetime:
    now = timezone.now().astimezone(tz)
    for offset in range(8):
        day = (now + datetime.timedelta(days=offset)).date()
        slot = datetime.datetime.combine(day, datetime.time(hour), tzinfo=tz)
        if day.isoweekday() == weekday and slot > now:
            return slot.astimezone(datetime.UTC)
    raise AssertionError


def iso(dt: datetime.datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


@pytest.fixture
def profiles(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    measured = ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="instagram",
        sandbox=True,
        settings={"timezone": "Europe/Paris"},
    )
    # twelve measured posts: Tuesdays at 18:00 in Paris draw ten times the engagement of Fridays at 08:00
    tuesday_18 = datetime.datetime(2026, 6, 2, 18, 0, tzinfo=PARIS)
    for week in range(6):
        publish(owner.org, measured, tuesday_18 - datetime.timedelta(weeks=week + 1), reach=500, likes=100)
        publish(
            owner.org,
            measured,
            tuesday_18 - datetime.timedelta(weeks=week + 1, days=-3, hours=10),
            reach=500,
            likes=10,
        )
    fresh = ProfileFactory(
        organization=owner.org, brand=brand, platform="linkedin", sandbox=True, settings={"timezone": "UTC"}
    )
    timed = ProfileFactory(
        organization=owner.org,
        brand=brand,
        platform="x",
        sandbox=True,
        settings={"timezone": "UTC", "postingTimes": ["10:00"]},
    )
    return brand, measured, fresh, timed


def test_profiles_without_posting_times_get_their_best_hour_or_the_platform_default(owner, profiles):
    _, measured, fresh, timed = profiles
    data = owner.token_client().get("/api/posts/queue").json()["data"]
    slots, sources = data["nextSlots"], data["nextSlotSources"]
    assert sources == {
        str(measured.pk): "history",
        str(fresh.pk): "platform-default",
        str(timed.pk): "postingTimes",
    }
    # its two measured hours, Tuesday 18:00 and Friday 08:00 in Paris: whichever comes first
    assert slots[str(measured.pk)] == iso(min(next_weekly(2, 18, PARIS), next_weekly(5, 8, PARIS)))
    default = min(next_weekly(d, h, zoneinfo.ZoneInfo("UTC")) for d, h in PLATFORM_DEFAULTS["linkedin"])
    assert slots[str(fresh.pk)] == iso(default)
    assert slots[str(timed.pk)].endswith("T10:00:00Z")


def test_queueing_content_on_a_profile_without_posting_times_takes_its_best_slot(owner, profiles):
    brand, measured, _, _ = profiles
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["instagram"], prompt="Launch", status=states.REVIEW
    )
    Variant.objects.create(content=content, platform="instagram", caption="Launch day", hashtags=["#launch"])
    client = owner.token_client()
    response = client.post(
        "/api/posts/queue", {"contentId": str(content.pk), "profileId": str(measured.pk)}, format="json"
    )
    assert response.status_code == 201, response.json()
    tuesday, friday = next_weekly(2, 18, PARIS), next_weekly(5, 8, PARIS)
    assert Publication.objects.get(content=content).scheduled_for == min(tuesday, friday)
    # that slot is taken now: the queue offers the other measured hour
    data = client.get("/api/posts/queue").json()["data"]
    assert data["nextSlots"][str(measured.pk)] == iso(max(tuesday, friday))


def approve_on(owner, brand, profile) -> Content:
    content = Content.objects.create(
        organization=owner.org,
        brand=brand,
        profile=profile,
        platforms=[profile.platform],
        prompt="Auto",
        status=states.REVIEW,
    )
    Variant.objects.create(content=content, platform=profile.platform, caption="Auto", hashtags=[])
    return content_services.content_approve(content=content)


def test_an_auto_publishing_brand_schedules_approved_content_at_the_best_times(owner, profiles):
    brand, measured, fresh, _ = profiles
    brand.generation_settings = {**brand.generation_settings, "require_approval": True, "auto_publish": True}
    brand.save()
    first, second = approve_on(owner, brand, measured), approve_on(owner, brand, measured)
    tuesday, friday = next_weekly(2, 18, PARIS), next_weekly(5, 8, PARIS)
    # its own history: Tuesday 18:00 and Friday 08:00 in Paris, the earlier first, then the other
    assert [Publication.objects.get(content=c).scheduled_for for c in (first, second)] == sorted(
        [tuesday, friday]
    )
    # no history on LinkedIn: the platform's default hours, in the profile's time zone (UTC)
    third = approve_on(owner, brand, fresh)
    third.refresh_from_db()
    default = min(next_weekly(d, h, zoneinfo.ZoneInfo("UTC")) for d, h in PLATFORM_DEFAULTS["linkedin"])
    assert third.status == states.SCHEDULED
    assert Publication.objects.get(content=third).scheduled_for == default
