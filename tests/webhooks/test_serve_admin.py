"""The webhook pages of the staff console under the real `serve`, as `make run` starts it (its
own worker and beat, the embedded default), in headless Chromium: a webhook registered through
the API, its test event sent by serve's worker to a receiver that asks it to come back in an
hour, the endpoint and its delivery log with the attempt, and the redeliver action sending it
again at once."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from tests.core.test_serve import Serve, chromium  # noqa: F401  (chromium: the module's browser fixture)
from tests.live import free_port

from .receiver import Receiver

pytestmark = [pytest.mark.services, pytest.mark.browser]


@pytest.fixture(scope="module")
def receiver():
    with Receiver() as r:
        yield r


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    # as a developer runs it against a receiver on this machine (README: WEBHOOK_ALLOWED_CIDRS)
    s = Serve(
        tmp_path_factory.mktemp("serve-var"),
        free_port(),
        WEBHOOK_ALLOW_HTTP="true",
        WEBHOOK_ALLOWED_CIDRS="127.0.0.0/8",
    ).prepare()
    s.start()
    yield s
    s.stop()


def _logged_in(serve, chromium):  # noqa: F811
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{serve.base}/admin/login/")
    page.fill("#id_username", serve.login.group(1))
    page.fill("#id_password", serve.login.group(2))
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    return context, page


def test_in_chromium_the_webhook_log_and_redeliver_work_under_serve(serve, chromium, receiver):  # noqa: F811
    shots = Path(os.environ.get("POSTFORGE_SCREENSHOTS", serve.var_dir / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    api = {"Authorization": f"Bearer {serve.key}"}
    receiver.answer(429, {"Retry-After": "3600"}, b"slow down, come back in an hour")
    created = requests.post(
        f"{serve.base}/v1/webhooks",
        headers=api,
        timeout=10,
        json={"url": receiver.url, "events": ["content.published"]},
    )
    assert created.status_code == 201, created.text
    webhook_id = created.json()["id"]
    test = requests.post(f"{serve.base}/v1/webhooks/{webhook_id}/test", headers=api, timeout=10)
    assert test.status_code == 202, test.text
    [first] = receiver.wait_for(1, timeout=30)  # sent by the worker serve started
    message_id = first["headers"]["webhook-id"]
    assert message_id == test.json()["eventId"]

    context, page = _logged_in(serve, chromium)

    # the endpoint, failing (429) but active, with a link to its one delivery
    page.goto(f"{serve.base}/admin/webhooks/webhookendpoint/")
    row = page.locator("#result_list tbody tr").filter(has_text=receiver.url)
    expect(row).to_have_count(1)
    assert row.locator("img[alt=True]").count() == 1  # active
    expect(row.locator(".field-failing_since")).not_to_have_text("-")
    page.screenshot(path=str(shots / "webhook-endpoints.png"))
    row.locator("a.pf-deliveries").click()

    # its deliveries: the test event, pending (the retry is an hour away)
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("webhook.test")
    expect(rows).to_contain_text(message_id)
    expect(rows.locator(".field-status")).to_have_text(re.compile("pending", re.I))
    expect(rows.locator(".field-last_status_code")).to_have_text("429")

    # the delivery with its attempt: the status code and what the receiver answered
    rows.locator("th a").click()
    attempts = page.locator(".inline-group").filter(has_text="Webhook attempts")
    expect(attempts).to_contain_text("slow down, come back in an hour")
    expect(attempts).to_contain_text("HTTP 429")
    page.screenshot(path=str(shots / "webhook-delivery-429.png"), full_page=True)
    delivery_page = page.url

    # the receiver is back: redeliver from the log sends it now (not in an hour), same webhook-id
    receiver.answer(200, body=b"thanks")
    page.go_back()
    page.locator("#result_list tbody input[name=_selected_action]").check()
    page.select_option("select[name=action]", "redeliver")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("1 delivery(ies) queued again.")
    second = receiver.wait_for(2, timeout=30)[1]
    assert second["headers"]["webhook-id"] == message_id and second["body"] == first["body"]
    assert second["headers"]["webhook-timestamp"] >= first["headers"]["webhook-timestamp"]

    # the log shows it: succeeded, the 200 after the 429
    page.goto(delivery_page)
    for _ in range(50):  # the worker records the attempt just after the receiver answers
        if "succeeded" in page.locator(".field-status").inner_text().lower():
            break
        page.wait_for_timeout(200)
        page.reload()
    expect(page.locator(".field-status")).to_contain_text(re.compile("succeeded", re.I))
    expect(page.locator(".field-attempt_count")).to_contain_text("2")
    expect(attempts).to_contain_text("thanks")
    codes = attempts.locator("td.field-status_code").all_inner_texts()
    assert sorted(c.strip() for c in codes) == ["200", "429"], codes
    page.screenshot(path=str(shots / "webhook-delivery-redelivered.png"), full_page=True)

    page.goto(f"{serve.base}/admin/webhooks/webhookendpoint/")
    expect(
        page.locator("#result_list tbody tr").filter(has_text=receiver.url).locator(".field-failing_since")
    ).to_have_text("-")  # healthy again
    context.close()
