"""Issue 21, "See the month", in Chromium against the real `serve`: a Reviewer account edits and
approves a day's queue, then moves it on the admin calendar by dragging (through the publishing
service; a move the service refuses shows its reason on the page), in the week and month views."""

from __future__ import annotations

import datetime
import json
import re

import pytest

from .conftest import login, shot

pytestmark = pytest.mark.services


def _uuid(cnt_id: str) -> str:
    raw = cnt_id.removeprefix("cnt_")
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


@pytest.fixture(scope="module")
def queue(serve):
    """Two items in review on Instagram (with pictures), a second sandbox profile whose grant
    will lapse, and a Reviewer account. The brand requires approval, as a reviewed team's does."""
    serve.python(
        "from apps.brands.models import Brand\n"
        "b = Brand.objects.get(organization__name='Demo', is_default=True)\n"
        "b.generation_settings = {**b.generation_settings, 'require_approval': True}; b.save()\n"
    )
    cider = serve.generate(
        "Cider tasting on Saturday: six orchards, one barn", ["instagram"], media={"generate": True}
    )
    hours = serve.generate("Winter opening hours from December", ["instagram"], media={"generate": True})
    ids = json.loads(
        serve.python(
            "import json; from apps.profiles.models import SocialProfile\n"
            "demo = SocialProfile.objects.get(external_id='sandbox-demo')\n"
            "other, _ = SocialProfile.objects.get_or_create(organization=demo.organization, platform='instagram',"
            " external_id='sandbox-calendar', defaults={'brand': demo.brand, 'username': 'calendar.sandbox',"
            " 'sandbox': True, 'settings': {'timezone': 'UTC', 'postingTimes': ['10:00']}})\n"
            "print(json.dumps([str(demo.organization_id), str(demo.pk), str(other.pk)]))"
        )
    )
    serve.staff_user("cleo", "calendar-pass-1", reviewer=True)
    yield cider, hours, *ids
    # the lapsed profile leaves with its post: other tests on this server pick "the" Instagram profile
    serve.python(
        "from apps.profiles.models import SocialProfile\n"
        "SocialProfile.objects.filter(external_id='sandbox-calendar').delete()"
    )


def _publication(serve, content_id: str) -> dict:
    return json.loads(
        serve.python(
            "import json; from apps.publishing.models import Publication\n"
            f"p = Publication.objects.get(content_id={_uuid(content_id)!r})\n"
            "print(json.dumps({'id': str(p.pk), 'at': p.scheduled_for.isoformat(), 'status': p.status}))"
        )
    )


def _profile_v1_id(serve, pk: str) -> str:
    return next(
        p["id"] for p in serve.v1("GET", "/profiles").json()["data"] if p["id"].endswith(pk.replace("-", ""))
    )


def test_a_reviewer_edits_approves_and_reschedules_a_days_queue(browser, serve, queue):
    cider, hours, _, demo_id, other_id = queue
    page = login(browser, serve, "cleo", "calendar-pass-1", width=1400)

    # --- edit and approve (the review console) -----------------------------------------------------
    caption = "Cider tasting Saturday at 4 pm: six orchards, one barn. 🍎"
    page.goto(
        f"{serve.base}/admin/content/content/{_uuid(cider['id'])}/change/?edit=instagram#pf-v-instagram"
    )
    page.locator("#pf-v-instagram textarea[name=caption]").fill(caption)
    with page.expect_navigation():
        page.locator("#pf-v-instagram button.pf-save-approve").click()
    page.goto(f"{serve.base}/admin/content/content/{_uuid(hours['id'])}/change/")
    with page.expect_navigation():
        page.keyboard.press("a")
    for item in (cider, hours):
        assert serve.v1("GET", f"/content/{item['id']}").json()["status"] == "approved"
    assert serve.v1("GET", f"/content/{cider['id']}").json()["content"]["instagram"]["caption"] == caption

    day, cider_pub, hours_pub = _schedule_the_day(serve, cider, hours, demo_id, other_id)
    _the_week_and_a_move(page, serve, queue, day, (cider_pub, hours_pub))
    _the_month(page, demo_id, day, cider, cider_pub)
    page.context.close()


def _schedule_the_day(serve, cider, hours, demo_id, other_id):
    # --- the day's queue goes on the calendar (two days out, in UTC) --------------------------------
    day = datetime.datetime.now(datetime.UTC).date() + datetime.timedelta(days=2)
    for item, profile, hhmm in ((cider, demo_id, "09:00"), (hours, other_id, "10:00")):
        answer = serve.v1(
            "POST",
            f"/content/{item['id']}/schedule",
            json={"scheduledFor": f"{day}T{hhmm}:00Z", "profiles": [_profile_v1_id(serve, profile)]},
        )
        assert answer.status_code in (200, 202), answer.text
    # the second profile's grant lapses: the publishing service will not move its post
    serve.python(
        "from apps.profiles.models import SocialProfile\n"
        f"SocialProfile.objects.filter(pk={other_id!r}).update(token_status='expired',"
        " token_error='the platform refused the refresh (invalid_grant)')"
    )
    return day, _publication(serve, cider["id"]), _publication(serve, hours["id"])


def _the_week_and_a_move(page, serve, queue, day, pubs):
    cider, hours, org_id, demo_id, other_id = queue
    cider_pub, hours_pub = pubs

    # from the admin index to the calendar, then the week of that day in UTC
    page.goto(f"{serve.base}/admin/")
    page.click("#pf-calendar-link a")
    page.wait_for_selector("#pf-calendar[aria-busy=false]")
    page.goto(f"{serve.base}/admin/calendar/?org={org_id}&view=week&date={day}&tz=UTC")
    page.wait_for_selector("#pf-calendar[aria-busy=false]")
    post = page.locator(f'[data-publication="{cider_pub["id"]}"]')
    assert post.get_attribute("data-time") == "09:00"
    assert post.locator(".pf-cal-thumb img").count() == 1  # its picture
    assert post.locator(".pf-pi-instagram").inner_text() == "IG"
    assert post.locator(".pf-cal-status").inner_text().lower() == "scheduled"
    cell = page.locator(f'.pf-cal-slotcell[data-date="{day}"][data-hour="09"]')
    assert cell.locator(f'[data-publication="{cider_pub["id"]}"]').count() == 1
    # the demo profile's posting times (09:00, 12:30, 18:00 UTC): 09:00 is taken, the others are
    # free; the profile whose grant lapsed offers none
    assert page.locator(f'.pf-cal-slot[data-profile="{other_id}"]').count() == 0
    free = page.locator(f'.pf-cal-slot[data-date="{day}"][data-profile="{demo_id}"]')
    assert sorted(free.evaluate_all("(els) => els.map(e => e.dataset.time)")) == ["12:30", "18:00"]
    shot(page, "calendar-week")

    # --- drag the post to the 18:00 free slot: moved by the publishing service ---------------------
    target = page.locator(f'.pf-cal-slot[data-date="{day}"][data-time="18:00"][data-profile="{demo_id}"]')
    post.drag_to(target)
    page.wait_for_function(
        f"() => document.querySelector('[data-publication=\"{cider_pub['id']}\"]')?.dataset.time === '18:00'"
    )
    moved = _publication(serve, cider["id"])
    assert moved["at"] == f"{day}T18:00:00+00:00" and moved["status"] == "scheduled"
    assert serve.v1("GET", f"/content/{cider['id']}").json()["scheduledFor"].startswith(f"{day}T18:00")
    assert page.locator("#pf-cal-error").is_hidden(), page.locator("#pf-cal-error").inner_text()
    # the 09:00 slot is free again
    assert (
        page.locator(f'.pf-cal-slot[data-date="{day}"][data-time="09:00"][data-profile="{demo_id}"]').count()
        == 1
    )

    # --- a move the service refuses: the reason on the page, nothing moved --------------------------
    other_post = page.locator(f'[data-publication="{hours_pub["id"]}"]')
    next_day = day + datetime.timedelta(days=1)
    if next_day.weekday() == 0:  # the week ends on Sunday: drop on the day before instead
        next_day = day - datetime.timedelta(days=1)
    other_post.drag_to(page.locator(f'.pf-cal-slotcell[data-date="{next_day}"][data-hour="11"]'))
    error = page.locator("#pf-cal-error")
    error.wait_for(state="visible")
    assert f"→ {next_day} 11:00" in error.inner_text()
    assert "needs to be reconnected" in error.inner_text()
    assert (
        "calendar.sandbox: expired (the platform refused the refresh (invalid_grant))" in error.inner_text()
    )
    assert _publication(serve, hours["id"])["at"] == hours_pub["at"]
    assert page.locator(f'[data-publication="{hours_pub["id"]}"].pf-cal-refused').count() == 1
    shot(page, "calendar-week-refused")


def _the_month(page, demo_id, day, cider, cider_pub):

    # --- the month: both posts, free slots, a click opens the content ------------------------------
    page.click("#pf-cal-month")
    page.wait_for_function("() => document.querySelector('.pf-cal-month') !== null")
    page.wait_for_selector("#pf-calendar[aria-busy=false]")
    assert page.locator("#pf-cal-error").is_hidden()  # the last refusal is not carried to another view
    month_day = page.locator(f'.pf-cal-day[data-date="{day}"]')
    assert month_day.locator(".pf-cal-post").count() >= 2
    assert month_day.locator(f'.pf-cal-slot[data-profile="{demo_id}"]').count() == 2  # 09:00 and 12:30
    assert re.fullmatch(r"\w+ \d{4}", page.locator("#pf-cal-title").inner_text())
    shot(page, "calendar-month")
    month_day.locator(f'[data-publication="{cider_pub["id"]}"]').click()
    page.wait_for_url(re.compile(rf"/admin/content/content/{_uuid(cider['id'])}/change/"))
