"""Beat keeps up with one machine (issue 33): a periodic task is sent again only once its last
copy has started, so with no worker the queues hold one message per periodic task, not one per
tick; a worker then drains them and the ticks go on. Beat and the workers beat heartbeats the
container probes read (apps.core.probe). Real beat and worker processes on a Redis of the test's
own (redis-server on a free port), so the queue lengths are exactly theirs."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time

import pytest
import redis
from django.conf import settings

from apps.core.management.commands.serve import QUEUES
from tests.core.test_serve_restart import _redis_server
from tests.live import ROOT, free_port, process_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _queued(client: redis.Redis) -> dict[str, int]:
    return {q: int(client.llen(q)) for q in QUEUES.split(",") if client.llen(q)}


def _celery(*args: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _probe(role: str, env: dict) -> int:
    return subprocess.run(
        [sys.executable, "-m", "apps.core.probe", role],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=30,
        check=False,
    ).returncode


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _wait(what: str, check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (value := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.25)
    return value


def test_ticks_without_a_worker_queue_one_copy_each_and_a_worker_drains_them(tmp_path):
    port = free_port()
    server = _redis_server(port)
    url = f"redis://127.0.0.1:{port}/0"
    env = process_env(
        REDIS_URL=url,
        CELERY_BROKER_URL=url,
        POSTFORGE_VAR_DIR=str(tmp_path),
        WORKER_HEARTBEAT_SECONDS="1",
        PUBLISH_DISPATCH_INTERVAL="0.5",
    )
    client = redis.Redis(port=port)
    procs: list[subprocess.Popen] = []
    try:
        assert _probe("beat", env) == 1  # nothing beat yet
        beat = _celery("beat", "-l", "warning", "-s", str(tmp_path / "schedule"), env=env)
        procs.append(beat)
        _wait("beat's heartbeat", lambda: _probe("beat", env) == 0)
        time.sleep(8)  # 16 ticks of the publication dispatch, 8 of the webhook sweep
        queued = _queued(client)
        periodic = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
        # at most one waiting copy of each periodic task (plain beat had queued one per tick)
        assert 0 < sum(queued.values()) <= len(periodic), queued
        markers = sorted(k.decode().removeprefix("pf:tick:") for k in client.keys("pf:tick:*"))
        assert "apps.publishing.tasks.dispatch_due_publications" in markers
        assert sum(queued.values()) == len(markers), (queued, markers)

        worker = _celery(
            "worker", "-l", "warning", "-Q", QUEUES, "--concurrency", "2", "-n", f"w{port}@%h", env=env
        )
        procs.append(worker)
        _wait("the worker's heartbeat", lambda: _probe("worker", env) == 0)
        # the backlog drains, and the next ticks are taken as they come (never piling up again)
        _wait("the queues to drain", lambda: not _queued(client), timeout=90)
        seen = set()
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            seen.add(sum(_queued(client).values()))
            time.sleep(0.2)
        assert max(seen) <= 2, seen
        # beat stops: its heartbeat expires (three intervals) and the probe says so
        _stop(beat)
        _wait("beat's heartbeat to expire", lambda: _probe("beat", env) == 1, timeout=15)
    finally:
        for proc in procs:
            with contextlib.suppress(Exception):
                _stop(proc)
        server.terminate()
        server.wait(timeout=10)
