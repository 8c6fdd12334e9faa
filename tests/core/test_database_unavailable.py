"""A lost database connection is a 503 with Retry-After in the family's format, never a 500
(issue 20: during a 2.3 s PostgreSQL restart, 7 requests got 500).

Real gunicorn with persistent connections (CONN_MAX_AGE=60, as docker/compose.yaml runs it).
Mid-sequence the test terminates the server's backends on its *own* test database
(pg_terminate_backend) and refuses new connections to that database for a moment
(ALLOW_CONNECTIONS false): what a restart looks like to the application. The shared server is
never restarted."""

from __future__ import annotations

import pytest
import requests
from django.db import connection

from tests.live import wsgi_server
from tests.openapi_check import assert_conforms

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _database_away(away: bool) -> None:
    """From a connection to the maintenance database (a database cannot refuse itself)."""
    import psycopg

    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        dbname="postgres",
        autocommit=True,
    ) as admin:
        admin.execute(f'ALTER DATABASE "{db["NAME"]}" ALLOW_CONNECTIONS {"false" if away else "true"}')
        if away:  # the web process's kept connection (the test's own stays: it is in the other list)
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> %s",
                [db["NAME"], connection.connection.info.backend_pid],
            )


def test_requests_while_the_database_is_away_are_503_with_retry_after_then_served_again(owner):
    headers = {"Authorization": f"Bearer {owner.key}"}
    with wsgi_server(workers=1, CONN_MAX_AGE="60", DATABASE_UNAVAILABLE_RETRY_AFTER="7") as base:
        assert requests.get(f"{base}/v1/brands", headers=headers, timeout=30).status_code == 200
        assert requests.get(f"{base}/api/brands", headers=headers, timeout=30).status_code == 200
        _database_away(True)
        try:
            # the kept connection was cut, then no new one can open
            first, api, v1 = (
                requests.get(f"{base}/{family}/brands", headers=headers, timeout=30)
                for family in ("v1", "api", "v1")
            )
            admin = requests.get(f"{base}/admin/login/", timeout=30)  # outside the API's views
        finally:
            _database_away(False)
        after = requests.get(f"{base}/v1/brands", headers=headers, timeout=30)
    assert (first.status_code, first.headers["Retry-After"]) == (503, "7")
    assert (v1.status_code, v1.headers["Retry-After"]) == (503, "7")
    assert v1.json()["error"]["code"] == "SERVICE_UNAVAILABLE"
    assert v1.json()["error"]["message"].startswith("The database is unavailable for a moment")
    assert v1.json()["requestId"] == v1.headers["X-Request-ID"]
    assert (api.status_code, api.headers["Retry-After"]) == (503, "7")
    # both as their OpenAPI documents declare the 503 (body and Retry-After)
    assert_conforms("v1", "/brands", "get", 503, v1.json())
    assert_conforms("api", "/brands", "get", 503, api.json())
    assert api.json() == {
        "error": "The database is unavailable for a moment; retry after Retry-After seconds.",
        "details": {"code": "SERVICE_UNAVAILABLE"},
    }
    assert admin.status_code in (200, 503)
    if admin.status_code == 503:
        assert admin.headers["Retry-After"] == "7"
    assert after.status_code == 200  # back without a restart of the web process
