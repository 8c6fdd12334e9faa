"""Database helpers shared by services."""

from __future__ import annotations

from django.db import connection


def relax_commit() -> None:
    """Let the current transaction commit without waiting for its WAL flush (PostgreSQL's
    `synchronous_commit = off`, for this transaction only).

    Only for writes whose loss in a database server crash is repaired by what is already
    durable: a later synchronous commit flushes the WAL before it, so the window is only a
    server crash before the next synchronous commit. The caller holds a transaction."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
