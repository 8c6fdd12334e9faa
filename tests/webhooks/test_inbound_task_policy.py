"""The inbound webhook task's declared policy (webhooks.tasks.InboundTask): an effect that met
an unreachable service (a real refused connection) tries again and is applied; a bug fails at
once, leaves the record for the sweep and is not retried."""

from __future__ import annotations

import socket

import pytest
import requests

from apps.webhooks import inbound_effects
from apps.webhooks.models import InboundWebhook
from apps.webhooks.tasks import process_inbound

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as s:  # bound and closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_effect_that_met_an_unreachable_service_is_tried_again(monkeypatch):
    calls = []

    def effect(payload):
        calls.append(payload)
        if len(calls) == 1:
            requests.get(f"http://127.0.0.1:{closed_port()}/", timeout=2)  # refused: requests.ConnectionError
        return "applied"

    monkeypatch.setitem(inbound_effects.HANDLERS, "flaky", effect)
    InboundWebhook.objects.create(provider="flaky", event_id="evt_1", payload={"n": 1})
    result = process_inbound.apply(
        args=["flaky", "evt_1"], throw=False
    )  # (throw: eager retries would raise Retry)
    assert result.successful()
    record = InboundWebhook.objects.get(provider="flaky", event_id="evt_1")
    assert (len(calls), record.outcome) == (2, "applied") and record.processed_at is not None


def test_a_bug_in_an_effect_is_not_retried_and_stays_for_the_sweep(monkeypatch):
    calls = []

    def effect(payload):
        calls.append(payload)
        raise RuntimeError("a bug")

    monkeypatch.setitem(inbound_effects.HANDLERS, "buggy", effect)
    InboundWebhook.objects.create(provider="buggy", event_id="evt_1", payload={"n": 1})
    result = process_inbound.apply(args=["buggy", "evt_1"], throw=False)
    assert result.failed() and isinstance(result.result, RuntimeError)
    assert len(calls) == 1
    assert InboundWebhook.objects.get(provider="buggy", event_id="evt_1").processed_at is None
