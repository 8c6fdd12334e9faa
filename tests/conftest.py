"""Personas and clients for both API families.

An owner (admin key) and a viewer of one organization, and an outsider in another.
"""

from __future__ import annotations

import io
import json
import os
import uuid
from collections import Counter
from dataclasses import dataclass

import pytest
from PIL import Image
from rest_framework.test import APIClient

from apps.accounts.auth import dev_token_issue
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.core import ratelimit


@pytest.fixture(autouse=True)
def _eager_celery_and_isolated_media(settings, tmp_path):
    from config.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    settings.MEDIA_ROOT = str(tmp_path / "media")
    # every test client calls from 127.0.0.1: the suite's many deliberate 401s would trip the
    # per-address failure limit; tests/core/test_auth_failures.py turns it on
    settings.AUTH_FAILURE_LIMIT = 0
    # a fixed share of webhook slots per organization (the default reads the live workers'
    # heartbeats, which differ from run to run); tests/webhooks/test_slow_receiver.py sets it
    settings.WEBHOOK_ORGANIZATION_CONCURRENCY = 4
    ratelimit.reset_local()
    yield


@dataclass
class Persona:
    org: object
    key: str
    role: str

    def client(self) -> APIClient:
        c = APIClient()
        c.credentials(HTTP_AUTHORIZATION=f"Bearer {self.key}")
        return c

    def token_client(self, subject: str | None = None) -> APIClient:
        # A fresh subject by default: rate-limit counts in Redis outlive a test.
        subject = subject or f"user-{uuid.uuid4().hex[:12]}"
        c = APIClient()
        c.credentials(
            HTTP_AUTHORIZATION=f"Bearer {dev_token_issue(organization=self.org, role=self.role, subject=subject)}"
        )
        return c


def make_persona(org_name: str, role: str = "admin") -> Persona:
    org = organization_get_or_create(name=org_name)
    issued = api_key_create(organization=org, role=role, name=f"{role} key")
    return Persona(org=org, key=issued.secret, role=role)


@pytest.fixture
def owner(db) -> Persona:
    return make_persona("Acme", "owner")


@pytest.fixture
def editor(owner) -> Persona:
    issued = api_key_create(organization=owner.org, role="editor")
    return Persona(org=owner.org, key=issued.secret, role="editor")


@pytest.fixture
def viewer(owner) -> Persona:
    issued = api_key_create(organization=owner.org, role="viewer")
    return Persona(org=owner.org, key=issued.secret, role="viewer")


@pytest.fixture
def outsider(db) -> Persona:
    return make_persona("Globex", "owner")


@pytest.fixture
def api(owner) -> APIClient:
    return owner.client()


def png_bytes(size=(64, 48), color=(200, 30, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def services_available() -> bool:
    return bool(os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL"))


# --- tests that need real PostgreSQL and Redis -----------------------------------------
_services_passed = Counter()  # tests marked `services` that passed


#: the modules whose tests take longest (CI's `--durations`, both runs, 2026-11-29), longest
#: first: they start first, so that the parallel workers (Makefile: `--maxschedchunk 1`, each
#: worker asks for its next test when it is free) end together instead of one running the last
#: 3-minute test alone while the others idle (greedy longest-first scheduling)
SLOW_FIRST = (
    "tests/test_schemathesis.py",
    "tests/publishing/test_ninety_days.py",
    "tests/publishing/test_long_run.py",
    "tests/core/test_readme_session.py",
    "tests/core/test_migrate_gate.py",
    "tests/agents/test_mcp_live.py",
    "tests/core/test_secrets_policy.py",
    "tests/core/test_embedded_default.py",
    "tests/generation/test_generation_faults.py",
    "tests/analytics/test_collection_faults.py",
    "tests/core/test_probes.py",
    "tests/events/test_asyncapi_parser.py",
    "tests/core/test_cluster.py",
    "tests/generation/test_live_generation.py",
    "tests/generation/test_designed_posts.py",
    "tests/core/test_serve_analytics.py",
    "tests/core/test_serve.py",
    "tests/publishing/test_processing_poll_faults.py",
    "tests/publishing/test_exactly_once.py",
    "tests/webhooks/test_serve_admin.py",
    "tests/webhooks/test_slow_receiver.py",
    "tests/core/test_beat_keeps_up.py",
    "tests/generation/test_designed_live.py",
    "tests/core/test_hostile_input.py",
    "tests/platforms/test_text_differential.py",
    "tests/publishing/test_import.py",
)


def _slow_rank(item) -> int:
    path = item.nodeid.split("::", 1)[0]
    return SLOW_FIRST.index(path) if path in SLOW_FIRST else len(SLOW_FIRST)


def pytest_collection_modifyitems(config, items):
    """The slowest modules first (SLOW_FIRST; a stable sort keeps every module's own order).
    Without DATABASE_URL (PostgreSQL) and REDIS_URL, `services` tests are deselected (the
    embedded default has neither); CI sets both and checks that they ran."""
    items.sort(key=_slow_rank)
    if services_available():
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("services") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed and "services" in report.keywords:
        _services_passed["services"] += 1


def pytest_sessionfinish(session, exitstatus):
    from pathlib import Path

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        # a pytest-xdist worker: the controller sees every worker's reports (its own
        # pytest_runtest_logreport counts them) and writes the count once; the worker hands
        # over its tap counts for the summary
        workeroutput["events_tap"] = {k: _tap[k] for k in ("internal", "v1", "api")}
        return
    out = Path(__file__).resolve().parent.parent / "var" / "services-tests.txt"
    out.parent.mkdir(exist_ok=True)
    out.write_text(str(_services_passed["services"]))


# --- every websocket message validates against the AsyncAPI documents --------------------------
_tap = {"position": 0, "internal": 0, "v1": 0, "api": 0}


def _tap_read() -> list[dict]:
    """The messages recorded since the last read (apps/events/tap.py), by any process of the run."""
    from django.conf import settings

    path = settings.EVENTS_TAP_PATH
    if not path or not os.path.exists(path):
        return []
    with open(path, "rb") as handle:
        handle.seek(_tap["position"])
        chunk = handle.read()
    complete = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written is read next time
    _tap["position"] += len(complete)
    return [json.loads(line) for line in complete.splitlines() if line.strip()]


@pytest.fixture(autouse=True)
def _events_match_the_asyncapi_documents(request):
    """After each test, every message sent to a websocket group (rendered into both families)
    and every frame a socket sent (in its family) since the last check validates against the
    family's AsyncAPI payload schema. Tests that push hand-made payloads through the outbox's
    plumbing say so with `@pytest.mark.handmade_events`."""
    _tap_read()  # what came before this test was checked by the test before it
    yield
    from tests.events.asyncapi_check import internal_event_errors, message_errors

    problems = []
    for entry in _tap_read():
        family = entry["family"]
        _tap["internal" if family is None else family] += 1
        errors = (
            internal_event_errors(entry["payload"])
            if family is None
            else message_errors(entry["payload"], family)
        )
        if errors:
            problems.append(f"{json.dumps(entry['payload'])[:300]}\n    " + "\n    ".join(errors))
    if problems and not request.node.get_closest_marker("handmade_events"):
        pytest.fail(
            f"{len(problems)} websocket message(s) do not match the AsyncAPI documents "
            "(declare new fields in apps/events/definitions.py):\n" + "\n".join(problems[:10]),
            pytrace=False,
        )


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """A pytest-xdist worker finished: its websocket-message counts join the run's."""
    for family, count in (getattr(node, "workeroutput", None) or {}).get("events_tap", {}).items():
        _tap[family] += count


def pytest_terminal_summary(terminalreporter):
    if _tap["internal"] or _tap["v1"] or _tap["api"]:
        terminalreporter.write_line(
            f"websocket messages checked against the AsyncAPI documents: {_tap['internal']} events sent "
            f"to groups (in both families), {_tap['v1']} frames sent to v1 sockets, {_tap['api']} to api sockets"
        )


@pytest.fixture
def events_sent():
    """What this test has sent to websocket groups so far (internal form, from the tap):
    `events_sent()` -> [{type, data, sentAt}, ...], in the order they were sent."""
    from django.conf import settings

    path = settings.EVENTS_TAP_PATH
    start = os.path.getsize(path) if path and os.path.exists(path) else 0

    def read() -> list[dict]:
        if not path or not os.path.exists(path):
            return []
        with open(path, "rb") as handle:
            handle.seek(start)
            lines = handle.read().splitlines()
        entries = [json.loads(line) for line in lines if line.strip().endswith(b"}")]
        return [e["payload"] for e in entries if e["family"] is None]

    return read
