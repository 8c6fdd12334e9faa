"""Item 5 of issue 21, what a person notices, against the real `serve` as `make run` starts it."""

from __future__ import annotations

import datetime
import json
import re
import time

import pytest
import requests

from .conftest import login, shot


@pytest.mark.services
def test_readyz_sees_the_worker_that_serve_started(serve):
    from tests.live import staff_session

    staff = staff_session(serve.base, serve.login.group(1), serve.login.group(2))  # details are staff's
    deadline = time.monotonic() + 60
    while True:
        body = staff.get(f"{serve.base}/readyz", timeout=10).json()
        if body["workers"]["status"] == "ok":
            break
        assert time.monotonic() < deadline, body  # "none alive" for the whole run before
        time.sleep(1)
    assert body["workers"]["alive"] >= 1
    assert any(name.startswith("celery@") or "@" in name for name in body["workers"]["names"])


@pytest.mark.services
def test_a_second_make_run_reuses_the_demo_key(serve):
    again = serve.seed().stdout.strip().splitlines()[-1]
    assert again == serve.key
    active = serve.python(
        "from apps.accounts.models import ApiKey\n"
        "print(ApiKey.objects.filter(organization__name='Demo', name='demo', revoked_at__isnull=True).count())"
    ).strip()
    assert active == "1"
    # a revoked demo key is not handed out again: a new one is issued
    serve.python(
        "from django.utils import timezone; from apps.accounts.models import ApiKey\n"
        "ApiKey.objects.filter(organization__name='Demo', name='demo').update(revoked_at=timezone.now())"
    )
    fresh = serve.seed().stdout.strip().splitlines()[-1]
    assert fresh != serve.key and fresh.startswith("pf_live_")
    assert (
        requests.get(
            f"{serve.base}/v1/brands", headers={"Authorization": f"Bearer {fresh}"}, timeout=10
        ).status_code
        == 200
    )
    serve.key = fresh


@pytest.mark.services
def test_the_admin_index_deliveries_and_view_site(browser, serve):
    delivery = serve.python(
        "from apps.accounts.models import Organization\n"
        "from apps.webhooks.models import WebhookDelivery, WebhookEndpoint\n"
        "org = Organization.objects.get(name='Demo')\n"
        "ep = WebhookEndpoint.objects.create(organization=org, url='https://hooks.example.com/pf', events=['content.published'], secret='whsec_x')\n"
        "d = WebhookDelivery.objects.create(organization=org, endpoint=ep, message_id='evt_1', event_type='content.published',"
        " payload={'type': 'content.published', 'data': {'contentId': 'cnt_' + 'a' * 32, 'caption': 'word ' * 80}})\n"
        "print(d.pk)"
    ).strip()
    page = login(browser, serve, serve.login.group(1), serve.login.group(2))
    index = page.inner_text("#content-main")
    assert "Webhook deliveries" in index and "Webhook deliverys" not in index
    assert "Python Social Auth" not in index and "User social auths" not in index
    assert page.get_attribute("#user-tools a[href='/v1/docs/']", "href") == "/v1/docs/"  # "View site"
    shot(page, "polish-admin-index")

    page.goto(f"{serve.base}/admin/webhooks/webhookdelivery/{delivery}/change/")
    assert page.locator("input[type=submit][name=_save]").count() == 0  # a log: read only
    payload = page.locator("pre.pf-payload")
    assert json.loads(payload.inner_text())["data"]["contentId"] == "cnt_" + "a" * 32
    assert payload.inner_text().startswith('{\n  "type": "content.published"')  # pretty-printed
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 1400  # wrapped, not one long line off the page
    shot(page, "polish-webhook-delivery")
    page.context.close()


@pytest.mark.services
def test_redoc_fetches_nothing_from_another_host(browser, serve):
    html = requests.get(f"{serve.base}/v1/redoc/", timeout=10).text
    bundle = re.search(r'src="(/static/postforge/redoc/bundles/redoc\.standalone[^"]*\.js)"', html)
    assert bundle, html
    js = requests.get(serve.base + bundle.group(1), timeout=10)
    assert js.status_code == 200 and "cdn.redoc.ly" not in js.text and "Redoc" in js.text
    context = browser.new_context()
    page = context.new_page()
    hosts = []
    page.on("request", lambda r: hosts.append(r.url.split("/")[2]))
    page.goto(f"{serve.base}/v1/redoc/")
    page.wait_for_selector("text=API docs by Redocly")
    page.wait_for_load_state("networkidle")
    assert set(hosts) == {f"127.0.0.1:{serve.port}"}, set(hosts)
    shot(page, "polish-redoc", full_page=False)
    context.close()


def test_a_chart_of_zeros_labels_its_axis_with_whole_numbers():
    from apps.analytics import charts

    days = [datetime.date(2026, 11, d) for d in (1, 2, 3)]
    rows = [{"date": days[0], "platform": "x", "posts": 1, "reach": 0, "engagement": 0}]
    svg = charts.over_time(rows, days, figure="reach", title="Reach", group_by="day")
    axis = re.search(r'<g class="axis y[^"]*">(.*?)</g>\s*</g>', svg, re.S)
    assert axis, svg[:500]
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", axis.group(1))
    assert labels == ["0", "1"]  # was "1 1 1 1 1 0 0 0": fractions printed as whole numbers
    assert charts.whole_ticks(0) == [0, 1]
    assert charts.whole_ticks(12) == [0, 2, 4, 6, 8, 10, 12]
    assert charts.whole_ticks(12345) == list(range(0, 14001, 2000))
