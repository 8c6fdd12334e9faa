"""A publishing cluster on this machine for fault tests and benchmarks: a private Redis,
beat processes and Celery worker processes on the test (or bench) database.

Used by tests/publishing/test_exactly_once.py and bench/scheduler.py.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from django.db import connection
from django.utils import timezone

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(
        self,
        *,
        workers: int = 2,
        concurrency: int = 2,
        beats: int = 1,
        env: dict | None = None,
        var_dir: str | None = None,
        queues: str = "default,publishing,generation",
        worker_queues: list[str] | None = None,
    ):
        self.redis_port = free_port()
        self.redis: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.beats: list[subprocess.Popen] = []
        self.n_workers, self.concurrency, self.n_beats = workers, concurrency, beats
        self.queues = queues
        # one queue list per worker, in turn (a worker of its own for a queue), instead of `queues` for all
        self.worker_queues = worker_queues
        self.var_dir = Path(var_dir or ROOT / "var" / f"cluster-{os.getpid()}")
        self.var_dir.mkdir(parents=True, exist_ok=True)
        db = connection.settings_dict
        self.env = dict(os.environ)
        self.env.update(
            {
                "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
                "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
                "PYTHONPATH": str(ROOT),
                "POSTFORGE_VAR_DIR": str(self.var_dir),
                "PUBLISH_DISPATCH_INTERVAL": "0.5",
                "PUBLISH_SWEEP_INTERVAL": "2",
                "PUBLISH_LEASE_SECONDS": "8",
                "PUBLISH_HEARTBEAT_SECONDS": "2",
                "PUBLISH_QUEUED_STUCK_SECONDS": "6",
                "LOG_LEVEL": "WARNING",
                "CONN_MAX_AGE": "60",  # as docker/compose.yaml runs workers: one connection per process
                # a consumer stuck after the Redis restart (Celery's known bug) is replaced within the test
                "WORKER_STALL_SECONDS": "15",
                "WORKER_HEARTBEAT_SECONDS": "2",
            }
        )
        self.env.update(env or {})
        self.kills = 0
        self.redis_restarts = 0
        self.logs: list[Path] = []
        self.node_names: list[str] = []
        # like compose's restart policy: a worker that exits on its own is started again
        self.supervise = True
        self.restarts = 0
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._expected: set[int] = set()  # pids we killed ourselves

    # --- processes ------------------------------------------------------------------
    def start_redis(self) -> None:
        self.redis = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        client = redis.Redis(port=self.redis_port)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("private redis did not start")

    def restart_redis(self) -> None:
        """Kill Redis (losing every queued task) and start it again."""
        self.redis.kill()
        self.redis.wait()
        self.start_redis()
        self.redis_restarts += 1

    def _celery(self, *args, name: str) -> subprocess.Popen:
        # each process logs to its own file, so that a failing fault test can say what happened
        log = open(self.var_dir / f"{name}.log", "wb")  # noqa: SIM115 (the child holds it)
        self.logs.append(self.var_dir / f"{name}.log")
        try:
            return subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", *args],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()

    def log_tails(self, lines: int = 30) -> str:
        """The last lines each worker and beat logged (for a failing test's message)."""
        out = []
        for path in self.logs:
            try:
                tail = path.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                continue
            out.append(f"--- {path.name}\n" + "\n".join(tail))
        return "\n".join(out)

    def start_worker(self) -> subprocess.Popen:
        with self._lock:
            n = len(self.workers)
            node = f"w{n}-{random.randint(0, 1 << 30)}@{os.uname().nodename}"
            queues = self.worker_queues[n % len(self.worker_queues)] if self.worker_queues else self.queues
            proc = self._celery(
                "worker",
                "-l",
                "warning",
                "-Q",
                queues,
                "--concurrency",
                str(self.concurrency),
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-P",
                "prefork",
                "-n",
                node,
                name=f"worker-{n}",
            )
            self.workers.append(proc)
            self.node_names.append(node)
            return proc

    def _supervise(self) -> None:
        """Start again any worker that exited without being told to (a stall watch's exit)."""
        while not self._stopping.wait(0.5):
            with self._lock:
                for proc in list(self.workers):
                    if proc.poll() is not None and proc.pid not in self._expected:
                        self._expected.add(proc.pid)
                        self.restarts += 1
                        self.start_worker()

    def start_beat(self) -> subprocess.Popen:
        n = len(self.beats)
        proc = self._celery("beat", "-l", "warning", "-s", str(self.var_dir / f"beat-{n}"), name=f"beat-{n}")
        self.beats.append(proc)
        return proc

    def start(self) -> Cluster:
        self.start_redis()
        for _ in range(self.n_workers):
            self.start_worker()
        for _ in range(self.n_beats):
            self.start_beat()
        if self.supervise:
            threading.Thread(target=self._supervise, daemon=True, name="cluster-supervisor").start()
        return self

    def kill_random_worker(self) -> None:
        """SIGKILL a worker's main process and its pool children, then start a new one."""
        with self._lock:
            alive = [w for w in self.workers if w.poll() is None]
            if not alive:
                return
            victim = random.choice(alive)
        self._kill(victim)

    def kill_worker_calling_from(self, port: int) -> bool:
        """SIGKILL the worker one of whose processes holds the TCP connection from local `port`
        (a call a fake server is answering right now), then start a new one; False if none does."""
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as fh:
                for line in fh.readlines()[1:]:
                    fields = line.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{fields[9]}]")
        with self._lock:
            alive = [w for w in self.workers if w.poll() is None]
        for worker in alive:
            for pid in self._pids(worker):
                try:
                    fds = os.listdir(f"/proc/{pid}/fd")
                except OSError:
                    continue
                if any(_readlink(f"/proc/{pid}/fd/{fd}") in inodes for fd in fds):
                    self._kill(worker)
                    return True
        return False

    @staticmethod
    def _pids(worker: subprocess.Popen) -> list[int]:
        children = subprocess.run(
            ["pgrep", "-P", str(worker.pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        return [worker.pid, *map(int, children)]

    def _kill(self, victim: subprocess.Popen) -> None:
        with self._lock:
            self._expected.add(victim.pid)
        for pid in self._pids(victim):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        victim.wait()
        self.kills += 1
        self.start_worker()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            self._expected.update(p.pid for p in self.workers)
        for proc in self.workers + self.beats:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.workers + self.beats:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        if self.redis and self.redis.poll() is None:
            self.redis.kill()
            self.redis.wait()


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return ""


def make_due_publications(*, n: int, spread_seconds: float, start_in: float = 3.0, profiles: int = 10):
    """n approved contents with an Instagram variant, each scheduled on a sandbox profile,
    due within `spread_seconds` from `start_in` seconds from now. Returns the org."""
    from apps.accounts.services import organization_get_or_create
    from apps.brands.services import brand_ensure_default
    from apps.content.models import Content, Variant
    from apps.profiles.models import SocialProfile
    from apps.publishing.models import Publication

    org = organization_get_or_create(name=f"Chaos {random.randint(0, 1 << 30)}")
    brand = brand_ensure_default(organization=org)
    profs = [
        SocialProfile.objects.create(
            organization=org,
            brand=brand,
            platform="instagram",
            external_id=f"sb-{i}",
            username=f"sandbox{i}",
            sandbox=True,
            connected_at=timezone.now(),
        )
        for i in range(profiles)
    ]
    base = timezone.now() + datetime.timedelta(seconds=start_in)
    contents = Content.objects.bulk_create(
        [
            Content(
                organization=org, brand=brand, platforms=["instagram"], prompt=f"post {i}", status="scheduled"
            )
            for i in range(n)
        ]
    )
    Variant.objects.bulk_create(
        [
            Variant(content=c, platform="instagram", caption=f"Post number {i}", hashtags=["#chaos"])
            for i, c in enumerate(contents)
        ]
    )
    Publication.objects.bulk_create(
        [
            Publication(
                organization=org,
                content=c,
                profile=profs[i % profiles],
                platform="instagram",
                scheduled_for=base + datetime.timedelta(seconds=spread_seconds * i / max(1, n)),
                due_at=base + datetime.timedelta(seconds=spread_seconds * i / max(1, n)),
            )
            for i, c in enumerate(contents)
        ],
        batch_size=1000,
    )
    return org


def wait_until_terminal(org, *, timeout: float, on_tick=None) -> dict:
    from django.db.models import Count

    from apps.publishing.models import Publication

    def counts() -> dict:
        found = dict(
            Publication.objects.filter(organization=org)
            .values_list("status")
            .annotate(n=Count("id"))
            .order_by()
        )
        return {s: found.get(s, 0) for s in Publication.STATUSES}

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = counts()
        if now["published"] + now["failed"] == sum(now.values()):
            return now
        if on_tick:
            on_tick(now)
        time.sleep(0.5)
    return counts()


def audit(org) -> dict:
    """What happened to every publication: duplicates, early posts, failures without reason."""
    from django.db.models import Count

    from apps.publishing.models import Publication, SandboxPost

    pubs = {str(p.pk): p for p in Publication.objects.filter(organization=org)}
    posts = list(SandboxPost.objects.filter(organization=org).values("reference", "created_at"))
    per_ref = SandboxPost.objects.filter(organization=org).values("reference").annotate(n=Count("id"))
    duplicates = [r["reference"] for r in per_ref if r["n"] > 1]
    early = [p["reference"] for p in posts if p["created_at"] < pubs[p["reference"]].scheduled_for]
    posted = {x["reference"] for x in posts}
    published_without_post = [k for k, p in pubs.items() if p.status == "published" and k not in posted]
    failed_without_reason = [k for k, p in pubs.items() if p.status == "failed" and not p.last_error]
    lateness = sorted((p["created_at"] - pubs[p["reference"]].scheduled_for).total_seconds() for p in posts)
    return {
        "publications": len(pubs),
        "posts": len(posts),
        "duplicates": duplicates,
        "early": early,
        "published_without_post": published_without_post,
        "failed_without_reason": failed_without_reason,
        "lateness": lateness,
    }
