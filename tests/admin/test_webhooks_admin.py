"""The webhook pages of the staff console in a real browser: endpoints per organization with
their state (disabled and why), the delivery log with each attempt, the redeliver action
(which really sends again), and inbound deliveries per provider."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.services import organization_get_or_create
from apps.webhooks import services
from apps.webhooks.models import InboundWebhook, WebhookAttempt, WebhookDelivery, WebhookEndpoint
from tests.webhooks.receiver import Receiver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    with Receiver() as r:
        yield r


def _failed_delivery(endpoint) -> WebhookDelivery:
    """A delivery that failed twice and ran out of retries (written directly: nothing sent)."""
    message_id = "evt_" + "a" * 32
    delivery = WebhookDelivery.objects.create(
        organization_id=endpoint.organization_id,
        endpoint=endpoint,
        message_id=message_id,
        event_type="webhook.test",
        payload={
            "id": message_id,
            "type": "webhook.test",
            "timestamp": "2026-11-25T12:00:00Z",
            "organizationId": "org_x",
            "data": {},
        },
    )
    started = timezone.now() - datetime.timedelta(minutes=10)
    WebhookAttempt.objects.create(
        delivery=delivery,
        started_at=started,
        status_code=500,
        latency_ms=42,
        response_body="upstream exploded",
        error="HTTP 500",
    )
    WebhookAttempt.objects.create(
        delivery=delivery,
        started_at=started + datetime.timedelta(seconds=5),
        status_code=None,
        latency_ms=15000,
        error="timed out after 15 s",
    )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status="failed", attempt_count=2, next_attempt_at=None, last_status_code=500
    )
    return delivery


def test_endpoints_deliveries_attempts_redeliver_and_inbound(admin_page, live_server, receiver):
    page = admin_page
    org = organization_get_or_create(name="Hooked Co")
    live = services.webhook_create(organization=org, url=receiver.url, events=["*"])
    dead = services.webhook_create(organization=org, url=receiver.url.replace("/hook", "/gone"), events=["*"])
    WebhookEndpoint.objects.filter(pk=dead.pk).update(
        active=False, disabled_at=timezone.now(), disabled_reason="The endpoint answered 410 Gone."
    )
    delivery = _failed_delivery(live)
    InboundWebhook.objects.create(
        provider="clerk",
        event_id="msg_1",
        subject="user.created",
        payload={},
        processed_at=timezone.now(),
        outcome="applied",
    )
    InboundWebhook.objects.create(
        provider="tiktok", event_id="tt_1", subject="post.publish.failed", payload={}
    )

    # endpoints: per organization, with their state and why one is disabled
    page.goto(f"{live_server.url}/admin/webhooks/webhookendpoint/?organization__id__exact={org.pk}")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(2)
    dead_row = rows.filter(has_text="/gone")
    expect(dead_row).to_contain_text("The endpoint answered 410 Gone.")
    assert dead_row.locator("img[alt=False]").count() == 1  # active: no
    assert rows.filter(has_text="/hook").locator("img[alt=True]").count() == 1

    # the delivery log, and one delivery with each attempt
    page.goto(f"{live_server.url}/admin/webhooks/webhookdelivery/?status__exact=failed")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    page.goto(f"{live_server.url}/admin/webhooks/webhookdelivery/{delivery.pk}/change/")
    attempts = page.locator(".inline-group").filter(has_text="Webhook attempts")
    expect(attempts).to_contain_text("upstream exploded")
    expect(attempts).to_contain_text("timed out after 15 s")
    expect(attempts).to_contain_text("500")

    # redeliver: the action sends it again (same webhook-id), and it succeeds this time
    page.goto(f"{live_server.url}/admin/webhooks/webhookdelivery/")
    page.locator(f"input[name=_selected_action][value='{delivery.pk}']").check()
    page.select_option("select[name=action]", "redeliver")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("1 delivery(ies) queued again.")
    [request] = receiver.wait_for(1)
    assert request["headers"]["webhook-id"] == delivery.message_id
    delivery.refresh_from_db()
    assert delivery.status == "succeeded" and delivery.attempts.count() == 3

    # inbound deliveries per provider, with what each did
    page.goto(f"{live_server.url}/admin/webhooks/inboundwebhook/?provider=clerk")
    rows = page.locator("#result_list tbody tr")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("msg_1")
    expect(rows).to_contain_text("applied")
    page.goto(f"{live_server.url}/admin/webhooks/inboundwebhook/?processed_at__isempty=1")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list")).to_contain_text("tt_1")


def test_organizations_show_the_plan_billing_set(admin_page, live_server):
    org = organization_get_or_create(name="Billed Co")
    from apps.accounts.models import Organization

    Organization.objects.filter(pk=org.pk).update(
        plan="pro", billing_status="active", billing_customer_id="cus_42"
    )
    admin_page.goto(f"{live_server.url}/admin/accounts/organization/?plan=pro")
    row = admin_page.locator("#result_list tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Billed Co")
    expect(row).to_contain_text("active")
    admin_page.goto(f"{live_server.url}/admin/accounts/organization/{org.pk}/change/")
    expect(admin_page.locator(".field-billing_customer_id")).to_contain_text("cus_42")  # read only
    assert admin_page.locator("input[name=billing_customer_id]").count() == 0
