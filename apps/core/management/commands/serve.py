"""Serve HTTP and websockets on one port (ASGI, uvicorn); in the embedded default also run
a Celery worker and beat as child processes on the filesystem broker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Serve Postforge (HTTP + websockets); starts the worker and beat unless --no-worker."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-worker", action="store_true", help="Do not start the Celery worker and beat")
        parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")

    def handle(self, *args, host, port, no_worker, workers, **options):
        import uvicorn

        children: list[subprocess.Popen] = []
        embedded = settings.CELERY_BROKER_URL.startswith("filesystem")
        if not no_worker:
            env = dict(os.environ)
            celery = [sys.executable, "-m", "celery", "-A", "config"]
            children.append(subprocess.Popen(
                [*celery, "worker", "-l", "warning", "-Q", "default,generation,publishing,webhooks",
                 "--concurrency", "2", "--without-mingle", "--without-gossip"] + (["-P", "threads"] if embedded else []),
                env=env,
            ))
            children.append(subprocess.Popen(
                [*celery, "beat", "-l", "warning", "-s", str(settings.VAR_DIR / "celerybeat-schedule")], env=env,
            ))
        self.stdout.write(f"Postforge on http://{host}:{port}  (API docs /v1/docs/ and /api/docs/, admin /admin/)")
        try:
            uvicorn.run("config.asgi:application", host=host, port=port, workers=workers, log_level="warning", lifespan="off")
        finally:
            for child in children:
                child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
