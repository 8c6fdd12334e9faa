"""Real processes for integration tests: an ASGI server and Celery workers on the test DB."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import requests
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_env(**extra) -> dict:
    """Environment for a child process that must use the *test* database."""
    env = dict(os.environ)
    db = connection.settings_dict
    if db["ENGINE"].endswith("postgresql"):
        env["DATABASE_URL"] = (
            f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        )
    env["MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    env["DEV_TOKEN_KEY_PATH"] = str(settings.DEV_TOKEN_KEY_PATH)
    env["PYTHONPATH"] = str(ROOT)
    env.update({k: str(v) for k, v in extra.items()})
    return env


@contextmanager
def asgi_server(*, workers: int = 1, **env):
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        "--lifespan",
        "off",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=process_env(**env))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not listening yet, or a loaded machine
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ASGI server did not start (exit {proc.poll()})")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def celery_worker(*, queues: str = "default,generation,publishing,webhooks", concurrency: int = 2, **env):
    cmd = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "-l",
        "warning",
        "-Q",
        queues,
        "--concurrency",
        str(concurrency),
        "--without-mingle",
        "--without-gossip",
        "--pool",
        "prefork",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=process_env(**env))
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_healthy(proc: subprocess.Popen, base: str, what: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start (exit {proc.poll()})")
        time.sleep(0.1)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextmanager
def wsgi_server(*, workers: int = 2, args: tuple[str, ...] = (), **env):
    """gunicorn serving config.wsgi, as docker/compose.yaml's `web` runs it."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "config.wsgi:application",
        "-b",
        f"127.0.0.1:{port}",
        "-w",
        str(workers),
        "--log-level",
        "warning",
        *args,
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=process_env(**env))
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, base, "gunicorn")
        yield base
    finally:
        _stop(proc)


@contextmanager
def reverse_proxy(upstream: str):
    """tests/proxy.py in front of `upstream` (http://127.0.0.1:PORT), as its own process: it
    appends the client's address to X-Forwarded-For."""
    port = free_port()
    upstream_port = int(upstream.rsplit(":", 1)[1])
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "proxy.py"), str(port), str(upstream_port)])
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(proc, base, "the reverse proxy")
        yield base
    finally:
        _stop(proc)


def staff_session(base: str, username: str, password: str) -> requests.Session:
    """A requests session logged in to the admin as a staff user (what staff-only details need)."""
    import re

    session = requests.Session()
    page = session.get(f"{base}/admin/login/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    answer = session.post(
        f"{base}/admin/login/?next=/admin/",
        data={"csrfmiddlewaretoken": token.group(1), "username": username, "password": password},
        headers={"Referer": f"{base}/admin/login/"},
        timeout=30,
    )
    assert answer.status_code == 200 and "sessionid" in session.cookies, answer.text[:500]
    return session
