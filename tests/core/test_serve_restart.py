"""`make run`'s restart policy (issue 20): on one of two Redis restarts the webhooks worker
exited (kombu restore_unacked), and any worker whose consumer is stuck after a broker restart
exits by its stall watch. In compose `restart: unless-stopped` starts it again; `manage.py
serve` (what `make run` runs) now does the same for its worker and beat. The test runs serve
on a Redis of its own (a redis-server on a free port, never the shared one), restarts that
Redis, then kills the worker as such an exit would, and sees a new worker beat into the
restarted Redis and /readyz count it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import redis

from tests.core.test_serve import ROOT, Serve, _descendants
from tests.live import free_port, staff_session

pytestmark = pytest.mark.services


def _redis_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    for _ in range(100):
        with contextlib.suppress(redis.ConnectionError):
            client.ping()
            return proc
        time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


def _worker_pids(serve_pid: int) -> set[int]:
    """The Celery worker's main process: a direct child of serve running `worker`."""
    found = set()
    for pid in _descendants(serve_pid):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == serve_pid and any(b"worker" in part for part in cmdline):  # retitled by Celery too
            found.add(pid)
    return found


def _wait(what: str, check, timeout: float = 90.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_serve_starts_its_worker_again_after_a_redis_restart_and_its_exit(tmp_path):
    port = free_port()
    broker = _redis_server(port)
    url = f"redis://127.0.0.1:{port}/0"
    s = Serve(tmp_path, free_port(), REDIS_URL=url, WORKER_HEARTBEAT_SECONDS="1", WORKER_STALL_SECONDS="10")
    subprocess.run(
        [os.sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput", "-v0"],
        env=s.env,
        check=True,
        cwd=ROOT,
    )
    subprocess.run(
        [
            os.sys.executable,
            str(ROOT / "manage.py"),
            "shell",
            "-c",
            "from django.contrib.auth import get_user_model; "
            "get_user_model().objects.create_user('ops', password='pw-ops-1234', is_staff=True)",
        ],
        env=s.env,
        check=True,
        cwd=ROOT,
    )
    client = redis.Redis(port=port)
    try:
        s.start()
        first = _wait("the worker", lambda: _worker_pids(s.proc.pid))
        _wait("its heartbeat", lambda: client.keys("pf:worker:*"))
        # the broker restarts (its data gone, as a container's without a volume)
        broker.terminate()
        broker.wait(timeout=10)
        broker = _redis_server(port)
        # the worker exits, as the stall watch or kombu's restore_unacked made it
        for pid in first:
            os.kill(pid, signal.SIGKILL)
        second = _wait("a new worker", lambda: _worker_pids(s.proc.pid) - first)
        assert second and not (second & first)
        _wait("the new worker's heartbeat in the restarted Redis", lambda: client.keys("pf:worker:*"))
        staff = staff_session(s.base, "ops", "pw-ops-1234")  # readyz's details are staff's (issue 28)
        ready = _wait(
            "readyz counting it",
            lambda: (
                (body := staff.get(f"{s.base}/readyz", timeout=10).json())["workers"]["alive"] >= 1 and body
            ),
        )
        assert "the worker exited" in s.output() and "starting it again" in s.output()
        assert ready["status"] == "ok" and ready["checks"]["broker"] == "ok"
        assert ready["workers"]["names"] == sorted(
            n.decode()[len("pf:worker:") :] for n in client.keys("pf:worker:*")
        )
    finally:
        s.stop()
        broker.terminate()
        broker.wait(timeout=10)
