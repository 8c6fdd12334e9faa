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


@contextmanager
def pgbouncer(
    *, database: str, host: str = "127.0.0.1", port: int = 5432, user: str = "postgres", pool_size: int = 3
) -> Iterator[int]:
    """PgBouncer on a free port, pool_mode transaction, `pool_size` server connections for the
    database; yields its port. Run as the `postgres` user when the tests run as root (PgBouncer
    refuses root)."""
    folder = Path(tempfile.mkdtemp(prefix="pf-pgbouncer-"))
    folder.chmod(0o755)
    listen = free_port()
    (folder / "users.txt").write_text(f'"{user}" ""\n')
    (folder / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"{database} = host={host} port={port} dbname={database} user={user}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {listen}\nunix_socket_dir =\n"
        "auth_type = trust\n"
        f"auth_file = {folder / 'users.txt'}\n"
        "pool_mode = transaction\n"
        f"default_pool_size = {pool_size}\nmin_pool_size = 0\nreserve_pool_size = 0\n"
        "max_client_conn = 200\n"
        "ignore_startup_parameters = extra_float_digits\n"
        "server_reset_query =\n"
    )
    for path in folder.iterdir():
        path.chmod(0o644)
    cmd = [PGBOUNCER, str(folder / "pgbouncer.ini")]
    if os.geteuid() == 0:
        cmd[1:1] = ["-u", user]
    log = open(folder / "pgbouncer.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", listen), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer did not start: {(folder / 'pgbouncer.log').read_text()}")
            time.sleep(0.05)
        yield listen
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
