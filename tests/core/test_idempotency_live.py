"""A web process SIGKILLed while it answers an idempotent generate (issue 9).

A real uvicorn server creates the content and is killed while the request waits for the
result (`?wait=`), so no response is ever recorded. A retry with the same key on a new server
is a 409 while the first request's lease runs, then answers with the content the dead request
created: never a second generation, never a key stuck for a day.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest
import requests
from django.utils import timezone

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.content.models import Content
from apps.core.models import IdempotencyRecord
from tests.live import ROOT, free_port, process_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

LEASE, WAIT = 8, 3  # the key's lease: LEASE + WAIT seconds from the first request


@contextmanager
def server():
    port = free_port()
    env = process_env(
        IDEMPOTENCY_LEASE_SECONDS=LEASE, CELERY_BROKER_URL="memory://"
    )  # no worker: stays pending
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--lifespan",
            "off",
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield base, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=20)


def test_a_generate_whose_web_process_was_killed_is_answered_with_its_content_after_the_lease():
    org = organization_get_or_create(name="Killed Web Org")
    secret = api_key_create(organization=org).secret
    headers = {"Authorization": f"Bearer {secret}", "Idempotency-Key": "killed-1"}
    body = {"prompt": "Autumn roast launch", "platforms": ["instagram"]}
    url = f"/v1/content/generate?wait={WAIT}"

    with server() as (base, proc):
        outcome = {}

        def first_request():
            try:
                outcome["response"] = requests.post(base + url, json=body, headers=headers, timeout=60)
            except requests.RequestException as exc:  # the server dies under it
                outcome["error"] = exc

        caller = threading.Thread(target=first_request)
        caller.start()
        deadline = time.monotonic() + 60
        while not Content.objects.filter(organization=org).exists():  # created and committed, now waiting
            assert time.monotonic() < deadline, "the first request never created its content"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
        caller.join(timeout=60)
        assert "error" in outcome, outcome  # no answer ever reached the client
    record = IdempotencyRecord.objects.get(key="killed-1")
    assert record.status_code is None and record.effect["kind"] == "content"
    [created] = Content.objects.filter(organization=org)

    def lease_left() -> float:
        return (record.lease_until - timezone.now()).total_seconds()

    with server() as (base, _proc):
        checked_busy = lease_left() > 3
        if checked_busy:  # a loaded machine may restart the server after the lease: then skip this step
            busy = requests.post(base + url, json=body, headers=headers, timeout=60)
            assert busy.status_code == 409 and busy.json()["error"]["details"]["retryAfter"] >= 1
            assert Content.objects.filter(organization=org).count() == 1
        time.sleep(max(0.0, lease_left() + 0.5))
        retry = requests.post(base + url, json=body, headers=headers, timeout=60)
        assert retry.status_code == 202, retry.text  # still pending: no worker, waited WAIT s again
        assert retry.headers["Idempotent-Replayed"] == "true"
        assert retry.json()["id"] == f"cnt_{created.pk.hex}"
        replay = requests.post(base + url, json=body, headers=headers, timeout=60)
        assert replay.json()["id"] == retry.json()["id"] and replay.headers["Idempotent-Replayed"] == "true"
    assert Content.objects.filter(organization=org).count() == 1
