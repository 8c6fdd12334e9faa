"""Probes as Kubernetes means them (issue 33) and what the public may read of them (issue 28).

/livez answers while the process runs; /startupz waits for this release's migrations;
/readyz depends on what the pod itself needs (the database), never on Redis, so a Redis blip
keeps every web pod in service. A kubelet probes the pod's own address (a Host that
ALLOWED_HOSTS does not list) and is answered. The public sees ok or not; staff the details."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.contrib.auth import get_user_model
from django.test import Client

from tests.live import free_port, staff_session

ROOT = Path(__file__).resolve().parents[2]
POD_HOST = "10.42.3.17:8000"  # a pod's address, as a kubelet's Host header carries it


@pytest.fixture
def strict_hosts(settings):
    settings.ALLOWED_HOSTS = ["postforge.example.com"]
    settings.DEBUG = False


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/livez", "/healthz", "/readyz", "/startupz"])
def test_a_kubelet_probe_on_the_pods_address_is_answered_though_the_host_is_not_allowed(strict_hosts, path):
    client = Client(HTTP_HOST=POD_HOST)
    answer = client.get(path)
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"status": "ok"}
    assert answer["Cache-Control"] == "no-store"
    # everything else still refuses that Host
    assert client.get("/v1/brands").status_code == 400


@pytest.mark.django_db
def test_public_readiness_says_ok_and_nothing_more_staff_see_the_details(settings):
    from apps.core import workers

    workers.beat_once("w-probe@node-7", ["generation"])
    try:
        public = Client().get("/readyz").json()
        assert public == {"status": "ok"}  # no node names, hosts or ports (issue 28)
        staff = get_user_model().objects.create_user("ops", password="pw-ops-1234", is_staff=True)
        client = Client()
        client.force_login(staff)
        detail = client.get("/readyz").json()
    finally:
        workers.forget("w-probe@node-7")
    assert detail["status"] == "ok"
    assert detail["checks"] == {"database": "ok", "cache": "ok", "broker": "ok", "channels": "ok"}
    assert "w-probe@node-7" in detail["workers"]["names"] and "generation" in detail["workers"]["queues"]
    # a signed-in user who is not staff sees what the public sees
    member = get_user_model().objects.create_user("member", password="pw-member-1234")
    client.force_login(member)
    assert client.get("/readyz").json() == {"status": "ok"}


def _uvicorn(var_dir: Path, port: int) -> subprocess.Popen:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "MEDIA_ROOT", "STATIC_ROOT")
    }
    env.update(POSTFORGE_VAR_DIR=str(var_dir), PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="config.settings")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--port",
            str(port),
            "--lifespan",
            "off",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_startup_waits_for_the_migrations_liveness_does_not(tmp_path):
    """A pod started before its migrate Job finished: alive, not started, until migrate ran."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _uvicorn(tmp_path, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                live = requests.get(f"{base}/livez", timeout=2)
                break
            except requests.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert (live.status_code, live.json()) == (200, {"status": "ok"})
        before = requests.get(f"{base}/startupz", timeout=10)
        assert before.status_code == 503 and before.json() == {"status": "unavailable"}
        assert before.headers["Retry-After"]
        env = {
            k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")
        }
        env.update(POSTFORGE_VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
        )
        after = requests.get(f"{base}/startupz", timeout=10)
        assert (after.status_code, after.json()) == (200, {"status": "ok"})
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_readiness_holds_through_a_redis_outage_and_drops_with_the_database_saying_no_more():
    """gunicorn with every Redis role on a port where nothing listens (a Redis blip): ready, and
    staff are told what is down. Then the database refuses connections: 503, and the public
    body names no host or port."""
    from tests.core.test_database_unavailable import _database_away
    from tests.live import wsgi_server

    get_user_model().objects.create_user("ops", password="pw-ops-1234", is_staff=True)
    dead = f"redis://127.0.0.1:{free_port()}/0"
    # the session lives in the database (not the dead cache): staff can still sign in
    with wsgi_server(
        workers=1, CACHE_REDIS_URL=dead, CELERY_BROKER_URL=dead, CHANNELS_REDIS_URL=dead
    ) as base:
        ready = requests.get(f"{base}/readyz", timeout=30)
        assert (ready.status_code, ready.json()) == (200, {"status": "ok"})
        staff = staff_session(base, "ops", "pw-ops-1234")
        detail = staff.get(f"{base}/readyz", timeout=30).json()
        assert detail["status"] == "ok" and detail["checks"]["database"] == "ok"
        for role in ("cache", "broker", "channels"):
            assert detail["checks"][role].startswith("error: ConnectionError"), detail
        _database_away(True)
        try:
            down = requests.get(f"{base}/readyz", timeout=30)
            live = requests.get(f"{base}/livez", timeout=30)
        finally:
            _database_away(False)
        assert down.status_code == 503 and down.json() == {"status": "unavailable"}
        assert down.headers["Retry-After"]
        assert "5432" not in down.text and "127.0.0.1" not in down.text
        assert live.status_code == 200  # liveness never restarts a pod for the database
