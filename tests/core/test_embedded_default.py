"""The embedded default as `make run` starts it: `manage.py serve` on SQLite with a Celery
worker and beat on the filesystem broker, no database or broker server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.live import free_port

ROOT = Path(__file__).resolve().parents[2]


def _env(var_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(
        {
            "POSTFORGE_VAR_DIR": str(var_dir),
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    return env


def test_serve_runs_http_and_a_worker_that_generates_content_without_any_server(tmp_path):
    env = _env(tmp_path)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    key = (
        subprocess.run([*manage, "seed_demo"], env=env, check=True, cwd=ROOT, capture_output=True, text=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    port = free_port()
    proc = subprocess.Popen(
        [*manage, "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{base}/readyz", timeout=2).json()["status"] == "ok":
                    break
            except (requests.RequestException, ValueError):
                pass
            assert time.monotonic() < deadline, "serve did not become ready"
            time.sleep(0.2)
        headers = {"Authorization": f"Bearer {key}"}
        assert (
            requests.get(f"{base}/v1/profiles", headers=headers, timeout=10).json()["data"][0]["username"]
            == "demo.sandbox"
        )
        assert (tmp_path / "postforge.sqlite3").exists()
        created = requests.post(
            f"{base}/v1/content/generate?wait=60",
            headers=headers,
            timeout=90,
            json={"prompt": "A sunrise over the harbour", "platforms": ["instagram", "x"]},
        )
        assert created.status_code == 200, created.text
        body = created.json()
        assert body["status"] == "generated", body.get("statusReason")  # done by the worker serve started
        assert set(body["content"]) == {"instagram", "x"}
        image = requests.get(body["media"][0]["url"], timeout=10)
        assert image.status_code == 200 and image.content[:2] == b"\xff\xd8"
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
