"""A private PgBouncer (Debian's, `make test` installs it) in transaction mode on a free port,
in front of the shared PostgreSQL: started and stopped by the test that needs it, never shared."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.live import free_port

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"


def available() -> bool:
    return Path(PGBOUNCER).exists()


class PgBouncer:
    """PgBouncer on a free port, pool_mode transaction, `pool_size` server connections for the
    database. Run as the `postgres` user when the tests run as root (PgBouncer refuses root).
    stop() and start() again keep the port (an outage of the pooler)."""

    def __init__(
        self,
        *,
        database: str,
        host: str = "127.0.0.1",
        port: int = 5432,
        user: str = "postgres",
        pool_size: int = 3,
    ) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="pf-pgbouncer-"))
        self.folder.chmod(0o755)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        (self.folder / "users.txt").write_text(f'"{user}" ""\n')
        (self.folder / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"{database} = host={host} port={port} dbname={database} user={user}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.folder / 'users.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {pool_size}\nmin_pool_size = 0\nreserve_pool_size = 0\n"
            "max_client_conn = 500\n"
            "ignore_startup_parameters = extra_float_digits\n"
            "server_reset_query =\n"
        )
        for path in self.folder.iterdir():
            path.chmod(0o644)
        self.user = user

    def start(self) -> PgBouncer:
        cmd = [PGBOUNCER, str(self.folder / "pgbouncer.ini")]
        if os.geteuid() == 0:
            cmd[1:1] = ["-u", self.user]
        with open(self.folder / "pgbouncer.log", "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return self
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer did not start: {(self.folder / 'pgbouncer.log').read_text()}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # an outage, not a shutdown: clients' connections drop
            self.proc.wait(timeout=10)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def pgbouncer(*, database: str, pool_size: int = 3, **kwargs: object) -> Iterator[int]:
    """A started PgBouncer for the block; yields its port."""
    bouncer = PgBouncer(database=database, pool_size=pool_size, **kwargs).start()  # type: ignore[arg-type]
    try:
        yield bouncer.port
    finally:
        bouncer.close()
