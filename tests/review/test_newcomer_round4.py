"""Issue 28, "What a newcomer still trips on", in Chromium against the real `serve` (as `make
run` starts it): the README's first session (Sunrise Coffee content on the demo profile) on
the calendar by brand, "Week" from the month, the keyboard's "Move to…", the queue's flags on a
story, the counter after a refused save, the reject reason's focus, the approval page's heading
and the client's comment, the analytics time zone, and the scoping of a reviewer who is not a
member. Screenshots under var/screenshots/ (newcomer-*.png)."""

from __future__ import annotations

import datetime
import json

import pytest

from .conftest import login, shot

pytestmark = pytest.mark.services

BRIEF = (
    "Our new Ethiopian single origin is in the shop from Friday, March 6: bright and floral, "
    "$18 a bag at https://sunrise.coffee/ethiopia."
)


def _uuid(prefixed: str) -> str:
    raw = prefixed.split("_", 1)[1]
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


@pytest.fixture(scope="module")
def first_session(serve):
    """The README's first session: a Sunrise Coffee brand, its content generated with its
    brandId, approved and scheduled on the demo profile (the demo brand's)."""
    brand = serve.v1(
        "POST", "/brands", json={"name": "Sunrise Coffee", "description": "Small-batch roasters"}
    )
    assert brand.status_code == 201, brand.text
    brand_id = brand.json()["id"]
    content = serve.generate(
        BRIEF, ["instagram", "x"], settings={"brandId": brand_id}, media={"generate": True, "count": 1}
    )
    approved = serve.v1("POST", f"/content/{content['id']}/approve")
    assert approved.status_code == 200, approved.text
    profiles = serve.v1("GET", "/profiles").json()["data"]
    demo = next(p for p in profiles if p["platform"] == "instagram")
    when = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=3)).replace(
        hour=9, minute=0, second=0, microsecond=0
    )
    scheduled = serve.v1(
        "POST",
        f"/content/{content['id']}/schedule",
        json={"scheduledFor": when.isoformat().replace("+00:00", "Z"), "profiles": [demo["id"]]},
    )
    assert scheduled.status_code in (200, 202), scheduled.text
    org_id = json.loads(
        serve.python(
            "import json; from apps.brands.models import Brand\n"
            f"print(json.dumps(str(Brand.objects.get(pk={_uuid(brand_id)!r}).organization_id)))"
        )
    )
    return {"brand": _uuid(brand_id), "content": content, "when": when, "org": org_id, "profile": demo}


def _publication(serve, content_id: str) -> dict:
    return json.loads(
        serve.python(
            "import json; from apps.publishing.models import Publication\n"
            f"p = Publication.objects.get(content_id={_uuid(content_id)!r})\n"
            "print(json.dumps({'id': str(p.pk), 'at': p.scheduled_for.isoformat()}))"
        )
    )


def test_the_calendar_filters_by_the_contents_brand_and_week_opens_the_week_looked_at(
    browser, serve, first_session
):
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    when = first_session["when"]
    page.goto(
        f"{serve.base}/admin/calendar/?org={first_session['org']}&brand={first_session['brand']}"
        f"&tz=UTC&date={when.date().isoformat()}"
    )
    page.wait_for_selector("#pf-calendar[aria-busy=false] .pf-cal-counts")
    counts = page.inner_text(".pf-cal-counts")
    assert counts.startswith("1 post"), counts  # was "0 posts": the profile's brand was filtered
    post = page.locator(".pf-cal-post")
    assert post.count() == 1 and "(Sunrise Coffee)" in post.first.get_attribute("title")
    shot(page, "newcomer-calendar-brand")

    # the month holding today, then "Week": today's week (not the month's first, past week)
    page.goto(f"{serve.base}/admin/calendar/?org={first_session['org']}&tz=UTC")
    page.wait_for_selector("#pf-calendar[aria-busy=false] .pf-cal-month")
    page.click("#pf-cal-week")
    page.wait_for_selector("#pf-calendar[aria-busy=false] .pf-cal-week")
    today = datetime.datetime.now(datetime.UTC).date()
    monday = today - datetime.timedelta(days=today.weekday())
    assert page.locator("#pf-calendar").get_attribute("data-start") == monday.isoformat()
    assert page.locator(".pf-cal-week .pf-cal-dow.pf-cal-today").count() == 1

    # a month without today: its first week
    page.goto(f"{serve.base}/admin/calendar/?org={first_session['org']}&tz=UTC&date=2031-05-15")
    page.wait_for_selector("#pf-calendar[aria-busy=false] .pf-cal-month")
    page.click("#pf-cal-week")
    page.wait_for_selector("#pf-calendar[aria-busy=false] .pf-cal-week")
    assert page.locator("#pf-calendar").get_attribute("data-start") == "2031-04-28"  # holds May 1
    page.context.close()


def test_a_post_moves_with_the_keyboard_alone(browser, serve, first_session):
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    when = first_session["when"]
    page.goto(
        f"{serve.base}/admin/calendar/?org={first_session['org']}&tz=UTC&date={when.date().isoformat()}"
    )
    page.wait_for_selector("#pf-calendar[aria-busy=false] .pf-cal-counts")
    pub = _publication(serve, first_session["content"]["id"])
    button = page.locator(f'.pf-cal-moveto[data-move-publication="{pub["id"]}"]')
    assert button.count() == 1 and button.inner_text() == "Move to…"
    button.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#pf-cal-move")
    assert dialog.is_visible()
    assert page.evaluate("document.activeElement.id") == "pf-cal-move-when"
    assert page.input_value("#pf-cal-move-when") == f"{when.date().isoformat()}T09:00"
    target = when.date() + datetime.timedelta(days=1)
    page.fill("#pf-cal-move-when", f"{target.isoformat()}T11:30")
    shot(page, "newcomer-calendar-move-to", full_page=False)
    with page.expect_response(lambda r: "/reschedule/" in r.url) as answer:
        page.keyboard.press("Enter")
    assert answer.value.status == 200
    page.wait_for_function(
        f"document.activeElement && document.activeElement.dataset.movePublication === {pub['id']!r}"
    )
    moved = _publication(serve, first_session["content"]["id"])
    assert moved["at"] == f"{target.isoformat()}T11:30:00+00:00"
    page.context.close()


def test_a_story_has_no_lost_fact_flag_in_the_queue(browser, serve):
    story = serve.generate(BRIEF, ["instagram"], media={"generate": True, "postType": "story"})
    feed = serve.generate(BRIEF, ["instagram"], media={"generate": True})
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/content/reviewitem/")
    story_row = page.locator(f'tr:has(a[href*="{_uuid(story["id"])}"])')
    assert story_row.count() == 1
    assert "lost fact" not in story_row.inner_text(), story_row.inner_text()
    feed_row = page.locator(f'tr:has(a[href*="{_uuid(feed["id"])}"])')
    assert feed_row.count() == 1  # a feed post keeps its caption flags (links in an Instagram caption)
    shot(page, "newcomer-queue-story")
    page.context.close()


def test_the_counter_the_reject_box_and_the_approval_page(browser, serve, first_session):
    item = serve.generate("Five tips for brewing at home", ["x"], settings={"brandId": _brand(first_session)})
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    change = f"{serve.base}/admin/content/content/{_uuid(item['id'])}/change/"

    # an over-limit save is refused; the counter shows the box's text, not the stored one
    page.goto(f"{change}?edit=x#pf-v-x")
    long_text = "Brew slowly. " * 30  # 390 characters, over X's 280
    page.locator("#pf-v-x textarea[name=caption]").fill(long_text)
    with page.expect_navigation():
        page.locator("#pf-v-x input.pf-save").click()
    box = page.locator("#pf-v-x textarea[name=caption]")
    assert box.input_value() == long_text
    counter = page.locator("[data-platform=x] .pf-length")
    stored = serve.v1("GET", f"/content/{item['id']}").json()["content"]["x"]["caption"]
    count = int(counter.inner_text().split(" / ")[0])
    assert count > 280 and count != len(stored), (counter.inner_text(), len(stored))
    assert "pf-over" in counter.get_attribute("class")
    shot(page, "newcomer-counter-refused")

    # the reject reason box is focused when the page opens
    page.goto(change.replace("/change/", "/reject/"))
    assert page.evaluate("document.activeElement.name") == "reason"

    # the approval page: headed by the brand, the client's comment as written
    link = serve.v1(
        "POST", f"/content/{item['id']}/approval-links", json={"expiresInDays": 7, "label": "Ana"}
    )
    assert link.status_code == 201, link.text
    url = link.json()["url"]
    client = browser.new_context().new_page()
    client.goto(url)
    assert client.inner_text("#pf-heading") == "Sunrise Coffee asks for your approval"
    assert "Sunrise Coffee" in client.title()
    comment = "Please say 'slow brew', not Slow Brew."
    client.fill("input[name=name]", "Ana")
    client.fill("textarea[name=comment]", comment)
    with client.expect_navigation():
        client.click("button.changes")
    reason = client.locator(".pf-reason").first
    assert comment in reason.inner_text()
    assert reason.evaluate("e => getComputedStyle(e).textTransform") == "none"
    shot(client, "newcomer-approval-page")
    client.context.close()
    page.context.close()


def _brand(first_session) -> str:
    raw = first_session["brand"].replace("-", "")
    return f"brd_{raw}"


def test_analytics_default_to_the_organizations_time_zone(browser, serve, first_session):
    serve.python(
        "from apps.profiles.models import SocialProfile\n"
        "for p in SocialProfile.objects.filter(external_id='sandbox-demo'):\n"
        "    p.settings = {**p.settings, 'timezone': 'Europe/Lisbon'}; p.save()\n"
    )
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/analytics/?org={first_session['org']}")
    assert page.input_value("input[name=timezone]") == "Europe/Lisbon"
    shot(page, "newcomer-analytics")
    page.context.close()


def test_a_reviewer_who_is_not_a_member_sees_none_of_the_demos_content(browser, serve, first_session):
    serve.staff_user("outsider", "outsider-pass-1", reviewer=True, member=False)
    page = login(browser, serve, "outsider", "outsider-pass-1")
    page.goto(f"{serve.base}/admin/content/content/")
    assert (
        "0 contents" in page.inner_text("#changelist") or page.locator("#result_list tbody tr").count() == 0
    )
    answer = page.goto(f"{serve.base}/admin/content/content/{_uuid(first_session['content']['id'])}/change/")
    assert answer.status == 404
    answer = page.goto(f"{serve.base}/admin/publishing/oauthredirectorigin/")
    assert answer.status == 403
    page.context.close()
