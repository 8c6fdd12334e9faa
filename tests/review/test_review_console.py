"""Items 2 and 3 of issue 21: a Reviewer account reads, edits and approves a day's queue in
Chromium against the real `serve` (edit in place through the content service, the live counter
in the platform's unit, errors inline, history with a diff, the queue's excerpts and flags,
"approve selected" asking first, approve/reject/save-and-approve moving to the next item,
keyboard shortcuts, variants wrapping at 1,400 px)."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import login, shot

pytestmark = pytest.mark.services
FIVE = ["instagram", "x", "bluesky", "threads", "linkedin"]


@pytest.fixture(scope="module")
def day(serve):
    """A day's queue: three items in review, in a brand that requires approval."""
    serve.python(
        "from apps.brands.models import Brand\n"
        "b = Brand.objects.get(organization__name='Demo', is_default=True)\n"
        "b.generation_settings = {**b.generation_settings, 'require_approval': True}; b.save()\n"
    )
    first = serve.generate(
        "Our spring menu launches Friday: rhubarb tart, sorrel soda and a lemon posset. Book at https://example.com/menu",
        FIVE,
        media={"generate": True, "count": 1},
    )
    second = serve.generate("A quiet morning at the roastery", ["instagram", "x"], media={"generate": True})
    third = serve.generate("Five tips for brewing at home", ["x", "threads"])
    serve.staff_user("rita", "review-pass-1", reviewer=True)
    return [first, second, third]


def _uuid(cnt_id: str) -> str:
    raw = cnt_id.removeprefix("cnt_")
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def _status(serve, content) -> str:
    return serve.v1("GET", f"/content/{content['id']}").json()["status"]


def test_a_reviewer_edits_and_approves_a_days_queue(browser, serve, day):
    first, second, third = day
    page = login(browser, serve, "rita", "review-pass-1", width=1400)
    _the_queue(page, serve, first)
    new_caption = _the_first_item(page, serve, first, second)
    _approve_and_reject_to_the_end(page, serve, second, third)
    _history_and_the_apis_rules(page, serve, first, second, new_caption)
    page.context.close()


def _the_queue(page, serve, first):
    # --- the queue: every platform's excerpt with its flags ---------------------------------------
    page.goto(f"{serve.base}/admin/content/reviewitem/")
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3
    first_row = rows.nth(0)  # oldest first: the day's queue in the order it came
    lines = first_row.locator(".pf-q-line")
    assert sorted(lines.evaluate_all("(els) => els.map(e => e.dataset.platform)")) == sorted(FIVE)
    instagram = first_row.locator('.pf-q-line[data-platform="instagram"]')
    # Instagram links are not clickable: the caption either keeps the link (flagged) or lost it
    # ("link in bio"), which the lost-fact check flags
    assert re.search(
        r"⚠ (link in an Instagram caption|lost fact: https://example\.com/menu)", instagram.inner_text()
    ), instagram.inner_text()
    shot(page, "review-queue")

    # "Approve selected" asks first, naming the items nobody opened
    page.locator("#action-toggle").check()
    page.select_option("select[name=action]", "approve_selected")
    page.click("button[name=index]")
    assert (
        page.locator("#pf-approve-question")
        .inner_text()
        .startswith("Approve 3 item(s)? 3 of them you have not opened.")
    )
    assert page.locator("#pf-unopened li").count() == 3
    shot(page, "review-approve-selected-confirm")
    page.go_back()
    assert (
        _status(serve, first) == "generated"
    )  # in review (Family A): nothing approved without the confirmation


def _the_first_item(page, serve, first, second) -> str:
    # --- the first item: variants wrap, shortcuts shown -------------------------------------------
    page.goto(f"{serve.base}/admin/content/reviewitem/")
    page.locator("#result_list tbody tr").nth(0).locator("a").first.click()
    page.wait_for_selector("#pf-queue-nav")
    assert "item 1 of 3" in page.locator("#pf-queue-nav").inner_text()
    assert "a approve · r reject · e edit · j next · k previous" in page.locator("#pf-shortcuts").inner_text()
    boxes = page.locator(".pf-variant").evaluate_all("(els) => els.map(e => e.getBoundingClientRect().right)")
    assert len(boxes) == 5 and max(boxes) <= 1400, boxes  # the fifth platform is on the page
    assert page.locator(".pf-variant .pv").count() == 5  # each with its platform preview
    shot(page, "review-content-page-1400")

    # e edits the first platform's text (Bluesky: graphemes); the counter follows as one types
    page.keyboard.press("e")
    form = page.locator("#pf-v-bluesky form.pf-edit-form")
    form.wait_for()
    caption = form.locator("textarea[name=caption]")
    counter = page.locator("#pf-v-bluesky [data-counter]")
    caption.fill("👍🏽" * 301)  # 301 graphemes (602 UTF-16 units, 2,408 bytes)
    form.locator("input[name=hashtags]").fill("")
    page.wait_for_function(
        "() => document.querySelector('#pf-v-bluesky [data-counter]').textContent.startsWith('301 /')"
    )
    assert counter.inner_text() == "301 / 300 graphemes"
    assert "pf-over" in counter.get_attribute("class")
    shot(page, "review-edit-counter-over")
    form.locator("input.pf-save").click()
    # refused by the service, inline on its field, the typed text kept
    error = page.locator('#pf-v-bluesky .pf-field-error[data-field="caption"]')
    error.wait_for()
    assert "300" in error.inner_text()
    assert page.locator("#pf-v-bluesky textarea[name=caption]").input_value() == "👍🏽" * 301
    shot(page, "review-edit-error-inline")

    new_caption = "Spring menu from Friday: rhubarb tart, sorrel soda, lemon posset."
    page.locator("#pf-v-bluesky textarea[name=caption]").fill(new_caption)
    page.wait_for_function(
        "() => !document.querySelector('#pf-v-bluesky [data-counter]').classList.contains('pf-over')"
    )
    page.locator("#pf-v-bluesky button.pf-save-approve").click()  # save and approve -> the next item
    page.wait_for_url(re.compile(rf"/admin/content/content/{_uuid(second['id'])}/change/"))
    assert "item 1 of 2" in page.locator("#pf-queue-nav").inner_text()  # the first left the queue
    assert _status(serve, first) == "approved"
    assert serve.v1("GET", f"/content/{first['id']}").json()["content"]["bluesky"]["caption"] == new_caption
    return new_caption


def _approve_and_reject_to_the_end(page, serve, second, third):
    # a approves and moves on; r rejects (with a reason) and, the queue empty, lands on the queue
    page.keyboard.press("a")
    page.wait_for_url(re.compile(rf"/admin/content/content/{_uuid(third['id'])}/change/"))
    assert _status(serve, second) == "approved"
    page.keyboard.press("r")
    page.wait_for_selector("#pf-reject-form")
    page.fill("textarea[name=reason]", "Not our voice.")
    page.click("#pf-reject-form input[type=submit]")
    page.wait_for_url(re.compile(r"/admin/content/reviewitem/"))
    assert _status(serve, third) == "rejected"
    assert page.locator("#result_list tbody tr").count() == 0


def _history_and_the_apis_rules(page, serve, first, second, new_caption):
    # --- history: who, when, a diff ----------------------------------------------------------------
    page.goto(f"{serve.base}/admin/content/content/{_uuid(first['id'])}/change/")
    entries = page.locator("#pf-history li")
    assert entries.nth(0).get_attribute("data-action") == "approve"
    edit = entries.nth(1)
    assert edit.get_attribute("data-action") == "edit" and edit.locator(".pf-who").inner_text() == "rita"
    assert f"+{new_caption}" in edit.locator('.pf-diff[data-platform="bluesky"] ins').inner_text()
    assert edit.locator('.pf-diff[data-platform="bluesky"] del').count() >= 1
    shot(page, "review-history")

    # editing approved text of a brand that requires approval withdraws the approval (the API's rule)
    page.goto(f"{serve.base}/admin/content/content/{_uuid(first['id'])}/change/?edit=x#pf-v-x")
    x_form = page.locator("#pf-v-x form.pf-edit-form")
    x_form.locator("textarea[name=caption]").fill("😀" * 141)  # X counts an emoji as 2: 282
    x_form.locator("input[name=hashtags]").fill("")
    page.wait_for_function(
        "() => document.querySelector('#pf-v-x [data-counter]').textContent.startsWith('282 /')"
    )
    assert page.locator("#pf-v-x [data-counter]").inner_text() == "282 / 280 weighted characters"
    x_form.locator("textarea[name=caption]").fill("Spring menu, Friday. 🌱")
    x_form.locator("input.pf-save").click()
    page.wait_for_selector(".messagelist")
    assert "approval was withdrawn" in page.locator(".messagelist").inner_text()
    assert _status(serve, first) == "generated"  # back in review (Family A)
    history = json.loads(
        serve.python(
            "import json; from apps.content.models import ContentHistory\n"
            f"print(json.dumps([[h.actor, h.action, h.note, sorted(h.changes)] for h in ContentHistory.objects.filter(content_id={_uuid(first['id'])!r})]))"
        )
    )
    assert history[0] == ["rita", "edit", "Approval withdrawn: the text changed.", ["x"]]
    assert [h[1] for h in history] == ["edit", "approve", "edit"]

    # the text of scheduled content is refused (unschedule first): shown inline, nothing saved
    assert serve.v1(
        "POST",
        f"/content/{second['id']}/schedule",
        json={
            "scheduledFor": "2030-01-01T09:00:00Z",
            "profiles": [
                next(
                    p["id"]
                    for p in serve.v1("GET", "/profiles").json()["data"]
                    if p["platform"] == "instagram"
                )
            ],
        },
    ).status_code in (200, 202)
    page.goto(f"{serve.base}/admin/content/content/{_uuid(second['id'])}/change/?edit=instagram")
    page.locator("#pf-v-instagram textarea[name=caption]").fill("Changed after scheduling")
    page.locator("#pf-v-instagram input.pf-save").click()
    refusal = page.locator("#pf-v-instagram .pf-edit-error")
    refusal.wait_for()
    assert "unschedule the content before editing its text" in refusal.inner_text()
    assert (
        serve.v1("GET", f"/content/{second['id']}").json()["content"]["instagram"]["caption"]
        != "Changed after scheduling"
    )
    shot(page, "review-scheduled-refused")
