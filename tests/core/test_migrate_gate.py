"""Migrations on a cluster (issue 33): `migrate` takes MIGRATE_DATABASE_URL (direct, while
DATABASE_URL may be PgBouncer), fails within MIGRATE_LOCK_TIMEOUT when a long transaction holds
a table it alters (instead of queueing every request behind its lock), and `migrate --check`
is the gate an init container uses: non-zero while migrations are unapplied."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from tests.live import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.services


def _manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_migration_blocked_by_a_held_lock_fails_within_its_timeout_on_the_direct_url(tmp_path):
    db = connection.settings_dict
    host, port, user = db["HOST"] or "127.0.0.1", db["PORT"] or 5432, db["USER"]
    name = f"{db['NAME']}_lock_{os.getpid()}"
    admin = psycopg.connect(host=host, port=port, user=user, dbname="postgres", autocommit=True)
    admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
    admin.execute(f'CREATE DATABASE "{name}"')
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MIGRATE_DATABASE_URL")}
    env.update(
        # the service's URL leads nowhere (a pooler that is down): migrate must not need it
        DATABASE_URL=f"postgres://{user}@127.0.0.1:{free_port()}/{name}",
        MIGRATE_DATABASE_URL=f"postgres://{user}@{host}:{port}/{name}",
        MIGRATE_LOCK_TIMEOUT="2s",
        POSTFORGE_VAR_DIR=str(tmp_path),
        PYTHONPATH=str(ROOT),
        SECRET_KEY="x" * 50,
        DEBUG="1",
    )
    holder = None
    try:
        first = _manage(env, "migrate", "contenttypes", "0001", "--noinput")
        assert first.returncode == 0, first.stderr
        gate = _manage(env, "migrate", "--check")
        assert gate.returncode != 0  # the init container's gate: unapplied migrations
        # a long transaction reads the table the next migration alters
        holder = psycopg.connect(host=host, port=port, user=user, dbname=name)
        holder.execute("SELECT count(*) FROM django_content_type").fetchone()
        started = time.monotonic()
        blocked = _manage(env, "migrate", "contenttypes", "--noinput")
        took = time.monotonic() - started
        assert blocked.returncode != 0
        assert "lock timeout" in blocked.stderr, blocked.stderr[-2000:]
        # the 2 s timeout plus the process's start (Django's, on a loaded machine): the holder never
        # lets go, so without the timeout this run would wait for it until _manage's 120 s timeout
        assert took < 60, took
        still = holder.execute("SELECT count(*) FROM django_migrations WHERE app = 'contenttypes'").fetchone()
        assert still == (1,)  # nothing half-applied
        holder.rollback()
        holder.close()
        holder = None
        done = _manage(env, "migrate", "--noinput")
        assert done.returncode == 0, done.stderr[-2000:]
        assert _manage(env, "migrate", "--check").returncode == 0
    finally:
        if holder is not None:
            holder.close()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
