"""Serve HTTP and websockets on one port (ASGI, uvicorn); in the embedded default also run
a Celery worker and beat as child processes on the filesystem broker.

- SIGTERM and SIGINT stop uvicorn and then the worker and beat (SIGTERM, SIGKILL after 10 s).
- A SIGKILLed `serve` does not leave them behind: each child asks the kernel for SIGTERM when
  its parent dies (Linux PR_SET_PDEATHSIG, set between fork and exec).
- With PUBLIC_BASE_URL unset, the URLs handed out (sandbox authUrl, media, callbacks) use the
  address served on; the children inherit it.
- Two workers (generation on its own) and beat log to var/log/; one banner is printed when
  everything is up, a worker's heartbeat included.
- A worker or beat that exits on its own is started again (`_supervise`): `make run`'s
  restart policy, as compose's `restart: unless-stopped` (issue 20: the worker's stall watch
  exits it when its consumer is stuck after a Redis restart).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

PR_SET_PDEATHSIG = 1
QUEUES = "default,generation,publishing,webhooks,analytics"
GENERATION_QUEUE = "generation"
#: the banner waits this long for the worker's first heartbeat
WORKER_WAIT_SECONDS = float(os.environ.get("SERVE_WORKER_WAIT_SECONDS", "120"))


def _die_with_parent() -> None:
    """preexec_fn of a child: SIGTERM it when the parent (serve) dies, even by SIGKILL."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: SIGTERM/SIGINT to serve still stop them
        pass


def public_base_url(host: str, port: int) -> str:
    """The URL clients reach this server on: loopback and wildcard addresses read as localhost."""
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "::1", "localhost") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


class Command(BaseCommand):
    help = "Serve Postforge (HTTP + websockets); starts the worker and beat unless --no-worker."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--no-worker", action="store_true", help="Do not start the Celery worker and beat"
        )
        parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
        parser.add_argument("--banner-file", default="", help="extra lines for the banner (login, key)")

    def handle(
        self,
        *args: Any,
        host: str,
        port: int,
        no_worker: bool,
        workers: int,
        banner_file: str,
        **options: Any,
    ) -> None:
        import uvicorn
        from django.core.exceptions import ImproperlyConfigured

        from apps.core.secrets_policy import require

        try:
            require()  # before any child starts: outside development, no public secrets
        except ImproperlyConfigured as exc:
            raise CommandError(str(exc)) from None

        if not os.environ.get("PUBLIC_BASE_URL"):
            base = public_base_url(host, port)
            os.environ["PUBLIC_BASE_URL"] = base  # the children read it from their settings
            settings.PUBLIC_BASE_URL = base
            if not os.environ.get("OAUTH_CALLBACK_BASE_URL"):
                settings.OAUTH_CALLBACK_BASE_URL = base
        base = settings.PUBLIC_BASE_URL
        children = [] if no_worker else self._start_children()
        stopping = threading.Event()
        if children:
            threading.Thread(target=self._supervise, args=(children, stopping), daemon=True).start()

        config = uvicorn.Config(
            "config.asgi:application",
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
            lifespan="off",
        )
        server = uvicorn.Server(config)

        def banner_when_up() -> None:
            while not server.started and not stopping.wait(0.1):
                pass
            # "up" includes a worker (issue 28: /readyz said no worker was alive for 45 s after
            # the banner): wait for its heartbeat, and say so when it is late
            late = children and not self._wait_for_worker(stopping, WORKER_WAIT_SECONDS)
            if stopping.is_set():
                return
            extra = (
                Path(banner_file).read_text().strip() if banner_file and Path(banner_file).exists() else ""
            )
            extra = extra.replace("{base}", base)
            lines = [
                "",
                f"  Postforge is up on {base}",
                f"  API docs:   {base}/v1/docs/  and  {base}/api/docs/  (ReDoc: /v1/redoc/, /api/redoc/)",
                f"  Admin:      {base}/admin/",
            ]
            lines += [f"  {line}" for line in extra.splitlines() if line.strip()]
            if children:
                lines.append(f"  Worker and beat log to {settings.VAR_DIR / 'log'}/")
            if late:
                lines.append(
                    f"  The worker is not up after {WORKER_WAIT_SECONDS:.0f} s: see {settings.VAR_DIR / 'log'}/worker.log"
                )
            lines.append("  Stop with Ctrl-C.")
            self.stdout.write("\n".join(lines) + "\n")
            self.stdout.flush()

        if workers == 1:
            threading.Thread(target=banner_when_up, daemon=True).start()
        try:
            if workers == 1:
                # uvicorn turns SIGTERM/SIGINT into a clean shutdown, and re-raises Ctrl-C after it
                with contextlib.suppress(KeyboardInterrupt):
                    server.run()
            else:
                uvicorn.run(
                    "config.asgi:application",
                    host=host,
                    port=port,
                    workers=workers,
                    log_level="warning",
                    lifespan="off",
                )
        finally:
            stopping.set()
            self._stop(children)

    @staticmethod
    def _wait_for_worker(stopping: threading.Event, seconds: float) -> bool:
        """Whether workers for every queue beat their heartbeats (apps.core.workers) within `seconds`."""
        from apps.core import workers as heartbeats

        wanted = set(QUEUES.split(","))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if wanted <= {q for w in heartbeats.alive() for q in w["queues"]}:
                    return True
            except Exception:  # Redis still starting: look again
                pass
            if stopping.wait(0.25):
                return False
        return False

    def _start_children(self) -> list[subprocess.Popen]:
        embedded = settings.CELERY_BROKER_URL.startswith("filesystem")
        log_dir = settings.VAR_DIR / "log"
        log_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        celery = [sys.executable, "-m", "celery", "-A", "config"]

        def worker_command(name: str, queues: str, log: str) -> list[str]:
            command = [
                *celery,
                "worker",
                "-l",
                "info",
                "-Q",
                queues,
                "--concurrency",
                "2",
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-n",
                f"{name}@{os.uname().nodename}",
                "-f",
                str(log_dir / log),
            ]
            return command + (["-P", "threads"] if embedded else [])

        # generations on a worker of their own, as in compose (issue 33): a burst of them never
        # holds up due posts, the outbox or webhook deliveries
        # (SERVE_GENERATION_WORKER=0: one worker for every queue, bench/beat.py's baseline)
        if os.environ.get("SERVE_GENERATION_WORKER", "1") == "0":
            self._commands = [(worker_command("postforge", QUEUES, "worker.log"), "worker", env)]
        else:
            others = ",".join(q for q in QUEUES.split(",") if q != GENERATION_QUEUE)
            self._commands = [
                (worker_command("postforge", others, "worker.log"), "worker", env),
                (
                    worker_command("generation", GENERATION_QUEUE, "worker-generation.log"),
                    "worker-generation",
                    env,
                ),
            ]
        beat = [
            *celery,
            "beat",
            "-l",
            "info",
            "-s",
            str(settings.VAR_DIR / "celerybeat-schedule"),
            "-f",
            str(log_dir / "beat.log"),
        ]
        self._commands.append((beat, "beat", env))
        return [self._spawn(cmd, name, env) for cmd, name, env in self._commands]

    @staticmethod
    def _spawn(cmd: list[str], name: str, env: dict) -> subprocess.Popen:
        log_dir = settings.VAR_DIR / "log"
        # the banner and anything before logging starts (the child keeps its own descriptor)
        with open(log_dir / f"{name}.out", "ab") as out:
            return subprocess.Popen(
                cmd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,  # noqa: PLW1509 - only prctl, so children die with serve
            )

    def _supervise(self, children: list[subprocess.Popen], stopping: threading.Event) -> None:
        """The restart policy of `make run`, as compose's `restart: unless-stopped`: a worker or
        beat that exits on its own (the stall watch's exit after a broker restart, a crash, a
        kill) is started again, after a second, and after 10 s when it keeps exiting."""
        recent: dict[int, list[float]] = {}
        while not stopping.wait(1.0):
            for i, child in enumerate(children):
                code = child.poll()
                if code is None or stopping.is_set():
                    continue
                cmd, name, env = self._commands[i]
                now = time.monotonic()
                starts = [t for t in recent.get(i, []) if now - t < 60] + [now]
                recent[i] = starts
                self.stderr.write(f"serve: the {name} exited (code {code}); starting it again\n")
                if len(starts) > 3 and stopping.wait(10.0):
                    return
                children[i] = self._spawn(cmd, name, env)

    @staticmethod
    def _stop(children: list[subprocess.Popen]) -> None:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
