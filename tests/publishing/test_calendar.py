"""The admin calendar's routes (apps/publishing/admin_calendar.py) with Django's test client: its
data (one organization's posts and free slots in a week or a month, in a time zone), who sees
what, the bounds, the query count, and the reschedule through publications_schedule. The page in
Chromium against the real `serve` is tests/review/test_calendar_browser.py."""

from __future__ import annotations

import datetime
import json
import zoneinfo

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from apps.accounts.models import Membership
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import BrandFactory, OrganizationFactory, ProfileFactory

pytestmark = pytest.mark.django_db
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
DATA = "/admin/calendar/data/"
MOVE = "/admin/calendar/reschedule/"


def _monday_in(days: int) -> datetime.date:
    day = (timezone.now() + datetime.timedelta(days=days)).astimezone(PARIS).date()
    return day - datetime.timedelta(days=day.weekday())


def _at(day: datetime.date, hh: int, mm: int = 0, tz=PARIS) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(hh, mm), tzinfo=tz)


def _pub(profile, when, status=Publication.SCHEDULED, **extra) -> Publication:
    content = make_content(
        profile.organization,
        brand=profile.brand,
        status="scheduled" if status == "scheduled" else "published",
    )
    return Publication.objects.create(
        organization=profile.organization,
        content=content,
        profile=profile,
        platform=profile.platform,
        status=status,
        scheduled_for=when,
        due_at=when,
        **extra,
    )


@pytest.fixture
def superuser(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "pass-boss-1")
    client.force_login(user)
    return user


@pytest.fixture
def two_orgs():
    ours, theirs = OrganizationFactory(name="Ours"), OrganizationFactory(name="Theirs")
    profile = ProfileFactory(
        organization=ours,
        platform="instagram",
        settings={"timezone": "Europe/Paris", "postingTimes": ["09:00", "18:30"]},
    )
    other = ProfileFactory(organization=theirs, platform="x", settings={"timezone": "Europe/Paris"})
    return ours, theirs, profile, other


def _get(client, **params):
    answer = client.get(DATA, params)
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_the_week_shows_the_organizations_posts_and_free_slots_and_nothing_of_another(
    client, superuser, two_orgs
):
    ours, theirs, profile, other = two_orgs
    monday = _monday_in(30)
    scheduled = _pub(profile, _at(monday, 9))  # takes Monday's 09:00 slot
    published = _pub(
        profile,
        _at(monday, 12),
        Publication.PUBLISHED,
        published_at=_at(monday + datetime.timedelta(days=1), 10, 5),
    )
    failed = _pub(profile, _at(monday, 14), Publication.FAILED, last_error="The platform said no.")
    _pub(profile, _at(monday, 15), Publication.CANCELLED)  # gone from the plan
    theirs_post = _pub(other, _at(monday, 9))

    data = _get(client, org=str(ours.pk), view="week", date=monday.isoformat(), tz="Europe/Paris")

    by_id = {p["id"]: p for p in data["posts"]}
    assert set(by_id) == {str(scheduled.pk), str(published.pk), str(failed.pk)}
    assert str(theirs_post.pk) not in by_id
    assert by_id[str(scheduled.pk)] | {"thumb": "", "adminUrl": ""} == {
        "id": str(scheduled.pk),
        "contentId": str(scheduled.content_id),
        "platform": "instagram",
        "status": "scheduled",
        "at": _at(monday, 9).astimezone(datetime.UTC).isoformat(),
        "date": monday.isoformat(),
        "time": "09:00",
        "profileId": str(profile.pk),
        "profile": profile.username,
        "brand": profile.brand.name,
        "text": "Fresh autumn roast, out today.",
        "thumb": "",
        "mediaType": "image",
        "adminUrl": "",
        "draggable": True,
        "error": "",
        "postUrl": "",
    }
    assert by_id[str(scheduled.pk)]["thumb"].startswith("/media/")
    assert by_id[str(scheduled.pk)]["adminUrl"] == f"/admin/content/content/{scheduled.content_id}/change/"
    # a published post sits where it went out, not where it was planned, and cannot be dragged
    assert (by_id[str(published.pk)]["date"], by_id[str(published.pk)]["time"]) == (
        (monday + datetime.timedelta(days=1)).isoformat(),
        "10:05",
    )
    assert by_id[str(published.pk)]["draggable"] is False
    assert by_id[str(failed.pk)]["error"] == "The platform said no."
    # free slots: both posting times every day, but Monday 09:00 (taken); the other org's profile has none
    slots = [(s["date"], s["time"]) for s in data["slots"]]
    assert len(slots) == 13 and (monday.isoformat(), "09:00") not in slots
    assert (monday.isoformat(), "18:30") in slots
    assert {s["profileId"] for s in data["slots"]} == {str(profile.pk)}
    assert (data["start"], data["end"], data["view"], data["tz"]) == (
        monday.isoformat(),
        (monday + datetime.timedelta(days=7)).isoformat(),
        "week",
        "Europe/Paris",
    )

    # the other organization's calendar holds only its own post
    theirs_data = _get(client, org=str(theirs.pk), view="week", date=monday.isoformat(), tz="Europe/Paris")
    assert [p["id"] for p in theirs_data["posts"]] == [str(theirs_post.pk)]


def test_brand_and_profile_filters_narrow_the_posts_and_slots(client, superuser, two_orgs):
    ours, _, profile, _ = two_orgs
    second = ProfileFactory(
        organization=ours, brand=BrandFactory(organization=ours), platform="linkedin"
    )  # 09:00 and 18:30 Paris too
    monday = _monday_in(30)
    mine, theirs = _pub(profile, _at(monday, 11)), _pub(second, _at(monday, 11))
    week = {"org": str(ours.pk), "view": "week", "date": monday.isoformat(), "tz": "Europe/Paris"}
    assert {p["id"] for p in _get(client, **week)["posts"]} == {str(mine.pk), str(theirs.pk)}
    by_brand = _get(client, **week, brand=str(second.brand_id))
    assert [p["id"] for p in by_brand["posts"]] == [str(theirs.pk)]
    assert {s["profileId"] for s in by_brand["slots"]} == {str(second.pk)}
    by_profile = _get(client, **week, profile=str(profile.pk))
    assert [p["id"] for p in by_profile["posts"]] == [str(mine.pk)]
    # another organization's brand or profile is unknown here
    stranger = ProfileFactory()
    assert client.get(DATA, {**week, "profile": str(stranger.pk)}).status_code == 404
    assert client.get(DATA, {**week, "brand": str(stranger.brand_id)}).status_code == 404


def test_the_brand_filter_is_the_contents_brand_not_the_profiles(client, superuser, two_orgs):
    """Issue 28: the README's first session makes Sunrise Coffee content on the demo profile
    (another brand's): filtering by Sunrise Coffee showed none of its posts."""
    ours, _, profile, _ = two_orgs
    sunrise = BrandFactory(organization=ours, name="Sunrise Coffee")
    monday = _monday_in(30)
    content = make_content(ours, brand=sunrise, status="scheduled")
    on_demo_profile = Publication.objects.create(
        organization=ours,
        content=content,
        profile=profile,  # the profile is of the organization's first brand
        platform=profile.platform,
        scheduled_for=_at(monday, 11),
        due_at=_at(monday, 11),
    )
    profiles_own = _pub(profile, _at(monday, 12))  # content of the profile's own brand
    week = {"org": str(ours.pk), "view": "week", "date": monday.isoformat(), "tz": "Europe/Paris"}
    by_sunrise = _get(client, **week, brand=str(sunrise.pk))
    assert [p["id"] for p in by_sunrise["posts"]] == [str(on_demo_profile.pk)]
    assert by_sunrise["posts"][0]["brand"] == "Sunrise Coffee"
    assert {s["profileId"] for s in by_sunrise["slots"]} == {str(profile.pk)}  # where its posts go
    by_profiles_brand = _get(client, **week, brand=str(profile.brand_id))
    assert [p["id"] for p in by_profiles_brand["posts"]] == [str(profiles_own.pk)]


def test_week_and_month_bounds_are_local_mondays_in_the_chosen_time_zone(client, superuser, two_orgs):
    ours, _, profile, _ = two_orgs
    monday = _monday_in(60)
    sunday_late = _pub(profile, _at(monday + datetime.timedelta(days=6), 23, 30))  # last minutes of the week
    next_monday = _pub(profile, _at(monday + datetime.timedelta(days=7), 0, 0))  # the next week's first
    before = _pub(profile, _at(monday, 0) - datetime.timedelta(minutes=1))  # the previous Sunday
    week = _get(
        client,
        org=str(ours.pk),
        view="week",
        date=(monday + datetime.timedelta(days=3)).isoformat(),
        tz="Europe/Paris",
    )
    assert week["start"] == monday.isoformat()
    assert {p["id"] for p in week["posts"]} == {str(sunday_late.pk)}
    # in UTC, Sunday 23:30 Paris is still Sunday and Monday 00:00 Paris is Sunday 23:00 or 22:00 UTC
    utc = _get(client, org=str(ours.pk), view="week", date=monday.isoformat(), tz="UTC")
    assert {p["id"] for p in utc["posts"]} == {str(sunday_late.pk), str(next_monday.pk)}
    assert str(before.pk) not in {p["id"] for p in utc["posts"]}

    month = _get(client, org=str(ours.pk), view="month", date="2031-02-14", tz="UTC")
    assert (month["start"], month["end"], month["month"]) == ("2031-01-27", "2031-03-10", 2)
    assert datetime.date.fromisoformat(month["start"]).weekday() == 0  # six Monday-first weeks
    in_month = _get(client, org=str(ours.pk), view="month", date=monday.isoformat(), tz="Europe/Paris")
    assert {str(sunday_late.pk), str(next_monday.pk)} <= {p["id"] for p in in_month["posts"]}


@pytest.mark.parametrize(
    ("params", "field"),
    [({"view": "year"}, "view"), ({"date": "2026-13-01"}, "date"), ({"tz": "Mars/Olympus"}, "tz")],
)
def test_bad_parameters_are_a_400_that_says_which(client, superuser, two_orgs, params, field):
    ours = two_orgs[0]
    answer = client.get(DATA, {"org": str(ours.pk), **params})
    assert answer.status_code == 400
    assert field in answer.json()["problems"]


def test_an_unknown_organization_is_a_404(client, superuser):
    assert client.get(DATA, {"org": "not-an-id"}).status_code == 404
    assert client.get(DATA, {"org": "0b0e6a4e-6d3c-4b47-9d2a-8a3f5e0e4c11"}).status_code == 404


def _staff(django_user_model, *perms: str):
    user = django_user_model.objects.create_user("sam", "sam@example.com", "pass-sam-1", is_staff=True)
    for perm in perms:
        app, codename = perm.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app, codename=codename))
    return user


def test_a_staff_member_of_one_organization_sees_only_it(client, django_user_model, two_orgs):
    ours, theirs, _, other = two_orgs
    user = _staff(django_user_model, "publishing.view_publication", "publishing.change_publication")
    Membership.objects.create(organization=ours, user=user, role="admin")
    client.force_login(user)
    theirs_post = _pub(other, timezone.now() + datetime.timedelta(days=2))
    assert client.get(DATA, {"org": str(theirs.pk)}).status_code == 404
    assert _get(client)["organization"] == str(ours.pk)  # the default is one of theirs
    page = client.get("/admin/calendar/")
    assert page.status_code == 200
    assert [o["name"] for o in page.context["organizations"]] == ["Ours"]
    moved = client.post(
        MOVE,
        json.dumps({"publication": str(theirs_post.pk), "when": "2040-01-01T09:00", "tz": "UTC"}),
        content_type="application/json",
    )
    assert moved.status_code == 404


def test_staff_without_the_view_permission_are_refused(client, django_user_model, two_orgs):
    client.force_login(_staff(django_user_model))
    assert client.get(DATA, {"org": str(two_orgs[0].pk)}).status_code == 403
    assert client.get("/admin/calendar/").status_code == 403


def _posts(org, profile, n):
    start = timezone.now() + datetime.timedelta(days=2)
    for i in range(n):
        _pub(profile, start + datetime.timedelta(hours=i))


def test_the_data_costs_the_same_queries_for_3_and_30_posts(
    client, superuser, two_orgs, django_assert_max_num_queries
):
    ours, _, profile, _ = two_orgs
    params = {
        "org": str(ours.pk),
        "view": "month",
        "date": (timezone.now() + datetime.timedelta(days=3)).date().isoformat(),
    }
    counts = []
    for n in (3, 27):
        _posts(ours, profile, n)
        ProfileFactory(organization=ours, brand=profile.brand)  # one more profile with slots each time
        # session, user, organization, posts, media, variants, profiles
        with django_assert_max_num_queries(7) as captured:
            data = _get(client, **params)
        assert len(data["posts"]) >= n
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1], counts


def _move(client, pub, when, tz="Europe/Paris"):
    return client.post(
        MOVE,
        json.dumps({"publication": str(pub.pk), "when": when, "tz": tz}),
        content_type="application/json",
    )


def test_a_scheduled_post_moves_through_the_publishing_service(client, superuser, two_orgs):
    _, _, profile, _ = two_orgs
    monday = _monday_in(20)
    pub = _pub(profile, _at(monday, 9), options={"firstComment": "hi"})
    answer = _move(client, pub, f"{monday + datetime.timedelta(days=2)}T18:30")
    assert answer.status_code == 200, answer.content
    pub.refresh_from_db()
    assert pub.scheduled_for == pub.due_at == _at(monday + datetime.timedelta(days=2), 18, 30)
    assert pub.options == {"firstComment": "hi"} and pub.status == "scheduled"
    pub.content.refresh_from_db()
    assert pub.content.scheduled_for == pub.scheduled_for  # the content follows its earliest post


def test_a_refused_move_answers_the_services_reason(client, superuser, two_orgs):
    _, _, profile, _ = two_orgs
    pub = _pub(profile, timezone.now() + datetime.timedelta(days=1))
    past = _move(client, pub, "2020-01-06T09:00")
    assert past.status_code == 400
    assert past.json()["error"].startswith("scheduledFor is in the past.")
    garbage = _move(client, pub, "next tuesday")
    assert garbage.status_code == 400 and "ISO 8601" in garbage.json()["error"]
    published = _pub(profile, timezone.now() + datetime.timedelta(days=1), Publication.PUBLISHED)
    done = _move(client, published, "2040-01-06T09:00")
    assert done.status_code == 409 and "published" in done.json()["error"]
    profile.connected = False
    profile.save()
    gone = _move(client, pub, "2040-01-06T09:00")
    assert gone.status_code == 400 and "reconnected" in gone.json()["error"]
    not_json = client.post(MOVE, "nope", content_type="application/json")
    assert not_json.status_code == 400
    pub.refresh_from_db()
    assert pub.scheduled_for > timezone.now()  # nothing moved


def test_moving_needs_the_permission_to_change_publications(client, django_user_model, two_orgs):
    _, _, profile, _ = two_orgs
    client.force_login(_staff(django_user_model, "publishing.view_publication"))
    pub = _pub(profile, timezone.now() + datetime.timedelta(days=1))
    assert _move(client, pub, "2040-01-06T09:00").status_code == 403


def test_the_admin_index_and_the_content_list_link_the_calendar(client, superuser, two_orgs):
    assert 'href="/admin/calendar/"' in client.get("/admin/").content.decode()
    assert 'id="pf-calendar-tool"' in client.get("/admin/content/content/").content.decode()
    page = client.get("/admin/calendar/")
    assert page.status_code == 200 and b'id="pf-calendar"' in page.content
