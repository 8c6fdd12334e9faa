"""`migrate` on the direct database URL, with a lock timeout (issue 33).

- MIGRATE_DATABASE_URL: behind PgBouncer in transaction mode the service's DATABASE_URL is the
  pooler, which cannot hold a migration's session (advisory locks, SET, long DDL); migrations
  take this direct URL instead. Unset: DATABASE_URL.
- MIGRATE_LOCK_TIMEOUT (PostgreSQL, default 5s): a migration whose ALTER waits behind a long
  transaction fails after this long, instead of holding its place in the lock queue while every
  request that touches the table queues behind it. The migrate Job (or compose's `migrate`)
  exits non-zero and is retried; nothing was half-applied (each migration is one transaction).
- `migrate --check` (Django's): exits non-zero while migrations are unapplied: the init
  container's gate in deploy/k8s, so no pod of a release starts on an old schema.
"""

from __future__ import annotations

from typing import Any

import environ
from django.conf import settings
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created


def use_direct_database(alias: str) -> bool:
    """Point `alias` at MIGRATE_DATABASE_URL (only the configured database: a test run's
    test_ database is never swapped for it). Whether it did."""
    url = getattr(settings, "MIGRATE_DATABASE_URL", "")
    wrapper = connections[alias]
    if not url or alias != "default" or wrapper.settings_dict["NAME"] != settings.DATABASE_NAME_CONFIGURED:
        return False
    direct = environ.Env.db_url_config(url)
    wrapper.close()
    options = {**wrapper.settings_dict.get("OPTIONS", {}), **direct.pop("OPTIONS", {})}
    options.pop("server_side_binding", None)  # a direct connection needs no PgBouncer workaround
    options.pop("prepare_threshold", None)
    wrapper.settings_dict.update(direct, OPTIONS=options, CONN_MAX_AGE=0, DISABLE_SERVER_SIDE_CURSORS=False)
    return True


def _set_lock_timeout(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    if connection.vendor == "postgresql" and settings.MIGRATE_LOCK_TIMEOUT:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, false)", [settings.MIGRATE_LOCK_TIMEOUT])


class Command(DjangoMigrate):
    help = DjangoMigrate.help + " On MIGRATE_DATABASE_URL when set, with MIGRATE_LOCK_TIMEOUT."

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        use_direct_database(alias)
        wrapper = connections[alias]
        if wrapper.vendor == "postgresql":
            wrapper.close()  # the next connection gets the timeout
            connection_created.connect(_set_lock_timeout, dispatch_uid="postforge-migrate-lock-timeout")
        try:
            super().handle(*args, **options)
        finally:
            connection_created.disconnect(dispatch_uid="postforge-migrate-lock-timeout")
