"""Item 7 of issue 21: an outside approver signs off from a link, in Chromium, without a login,
against the real `serve`; the link is made by staff in the admin."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import login, shot

pytestmark = pytest.mark.services


def _uuid(cnt_id: str) -> str:
    raw = cnt_id.removeprefix("cnt_")
    return f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:]}"


def _make_link(browser, serve, contents) -> str:
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    page.goto(f"{serve.base}/admin/content/content/?status=review")
    for content in contents:
        page.locator(f'input.action-select[value="{_uuid(content["id"])}"]').check()
    page.select_option("select[name=action]", "create_approval_link")
    page.click("button[name=index]")
    page.fill("input[name=label]", "Ana at Sunrise Coffee")
    page.click("#pf-create-link")
    url = page.get_attribute("#pf-approval-link", "href")
    page.context.close()
    return url


def test_an_outside_approver_approves_and_asks_for_changes_without_a_login(browser, serve):
    one = serve.generate("Autumn blend is back on Monday", ["instagram", "x"], media={"generate": True})
    two = serve.generate("Latte art class every Thursday", ["threads", "bluesky"])
    three = serve.generate("Cold brew season ends soon", ["x"])
    url = _make_link(browser, serve, [one, two, three])
    assert re.fullmatch(rf"http://localhost:{serve.port}/approve/[^/]+/", url), url

    outsider = browser.new_context(viewport={"width": 1400, "height": 900})  # no session, no key
    page = outsider.new_page()
    answer = page.goto(url)
    assert answer.status == 200 and answer.headers["cache-control"] == "no-store"
    assert "Demo asks for your approval" in page.inner_text("header.top")
    assert "for Ana at Sunrise Coffee" in page.inner_text("header.top")
    first = page.locator(f"#c-{_uuid(one['id'])}")
    assert first.locator("article.pv").count() == 2  # Instagram and X, drawn as they will look
    assert first.locator("article.pv-instagram .pv-media img").count() == 1
    shot(page, "approver-page")

    first.locator("input[name=name]").fill("Ana")
    first.locator("textarea[name=comment]").fill("Lovely, go ahead.")
    first.locator("button.approve").click()
    page.wait_for_selector(".messages .success")
    assert "Approved" in page.inner_text(".messages")
    assert page.locator(f"#c-{_uuid(one['id'])} .pf-status").text_content() == "approved"

    second = page.locator(f"#c-{_uuid(two['id'])}")
    second.locator("input[name=name]").fill("Ana")
    second.locator("button.changes").click()  # no comment: refused, nothing changes
    page.wait_for_selector(".messages .error")
    assert "Say what should change" in page.inner_text(".messages")
    second = page.locator(f"#c-{_uuid(two['id'])}")
    second.locator("input[name=name]").fill("Ana")
    second.locator("textarea[name=comment]").fill("Please name the teacher.")
    second.locator("button.changes").click()
    page.wait_for_selector(".messages .success")
    shot(page, "approver-after-decisions")

    assert serve.v1("GET", f"/content/{one['id']}").json()["status"] == "approved"
    rejected = serve.v1("GET", f"/content/{two['id']}").json()
    assert rejected["status"] == "rejected"
    found = json.loads(
        serve.python(
            "import json\n"
            "from apps.content.models import Content, ContentHistory\n"
            "from apps.events.models import Event\n"
            f"h = ContentHistory.objects.filter(content_id={_uuid(one['id'])!r}).order_by('created_at')\n"
            f"c = Content.objects.get(pk={_uuid(one['id'])!r})\n"
            f"e = Event.objects.filter(type='content.approved', data__contentId={_uuid(one['id'])!r}).get()\n"
            f"r = Content.objects.get(pk={_uuid(two['id'])!r})\n"
            "print(json.dumps({'history': [[x.actor, x.action, x.note] for x in h], 'by': c.approved_by,"
            " 'event': e.data.get('approvedBy'), 'reason': r.status_reason}))"
        )
    )
    assert found["history"][-2:] == [
        ["Ana (approval link)", "approve", ""],
        ["Ana (approval link)", "comment", "Lovely, go ahead."],
    ]
    assert found["by"] == found["event"] == "Ana (approval link)"
    assert found["reason"] == "Changes requested: Please name the teacher."

    # the link dies when the content changes: a new link for the new text
    edited = serve.v1(
        "PUT", f"/content/{three['id']}", json={"content": {"x": {"caption": "Cold brew: last week!"}}}
    )
    assert edited.status_code == 200, edited.text
    gone = page.goto(url)
    assert gone.status == 410
    assert "content changed since this link was made" in page.inner_text("#pf-dead")

    # a revoked link is dead too; a tampered one is not valid
    fresh = serve.generate("Decaf that tastes like coffee", ["x"])
    other = _make_link(browser, serve, [fresh])
    assert page.goto(other).status == 200
    serve.python(
        "from apps.content.models import ApprovalLink\n"
        "from apps.content.services import approval_link_revoke\n"
        "for link in ApprovalLink.objects.filter(label='Ana at Sunrise Coffee', contents__prompt__startswith='Decaf'):\n"
        "    approval_link_revoke(link=link)\n"
    )
    assert page.goto(other).status == 410 and "withdrawn" in page.inner_text("#pf-dead")
    assert page.goto(other[:-3] + "x/").status == 410 and "not valid" in page.inner_text("#pf-dead")
    shot(page, "approver-dead-link")
    outsider.close()
