"""PostgreSQL through PgBouncer in transaction mode (issue 33): the PGBOUNCER setting turns off
server-side cursors and psycopg's prepared statements, and the analytics export pages by key, so
a 10,000-post export streams through a pool of 2 server connections from real gunicorn workers.
(pretix met this: a WITH HOLD cursor's next FETCH lands on another server connection.)"""

from __future__ import annotations

import csv
import datetime
import io

import pytest
import requests
from django.db import connection

from tests import pgbouncer as pgb
from tests.live import wsgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _seed(org, n: int) -> None:
    from apps.brands.models import Brand
    from apps.content.models import Content
    from apps.profiles.models import SocialProfile
    from apps.publishing.models import Publication

    brand = Brand.objects.create(organization=org, name="Bouncer", slug="bouncer")
    profile = SocialProfile.objects.create(
        organization=org, brand=brand, platform="x", external_id="pgb", username="pgb"
    )
    contents = Content.objects.bulk_create(
        [
            Content(organization=org, brand=brand, platforms=["x"], prompt="p", status="published")
            for _ in range(n)
        ],
        batch_size=2000,
    )
    start = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    Publication.objects.bulk_create(
        [
            Publication(
                organization=org,
                content=c,
                profile=profile,
                platform="x",
                status="published",
                scheduled_for=start,
                due_at=start,
                # every 20th post shares its second with the one before: the page key has ties
                published_at=start + datetime.timedelta(seconds=60 * (i - i % 20 // 19)),
                external_id=f"e{i}",
            )
            for i, c in enumerate(contents)
        ],
        batch_size=2000,
    )


def test_a_10000_row_export_streams_through_pgbouncer_in_transaction_mode(owner):
    assert pgb.available(), "install Debian's pgbouncer (make test does: apt-get install pgbouncer)"
    _seed(owner.org, 10_000)
    db = connection.settings_dict
    with pgb.pgbouncer(database=db["NAME"], pool_size=2) as port:
        url = f"postgres://{db['USER']}@127.0.0.1:{port}/{db['NAME']}"
        with wsgi_server(workers=2, DATABASE_URL=url, PGBOUNCER="1", CONN_MAX_AGE="60") as base:
            headers = {"Authorization": f"Bearer {owner.key}"}
            period = "startDate=2026-02-01&endDate=2026-04-30"
            answer = requests.get(
                f"{base}/v1/analytics/export?format=csv&{period}", headers=headers, timeout=120
            )
            assert answer.status_code == 200, answer.text[:500]
            rows = list(csv.DictReader(io.StringIO(answer.text)))
            # every post once, in order, across the page boundaries and their ties
            assert len(rows) == 10_000 and len({r["publicationId"] for r in rows}) == 10_000
            stamps = [r["publishedAt"] for r in rows]
            assert stamps == sorted(stamps)
            # other reads and a write through the same small pool, from both workers
            for _ in range(6):
                assert requests.get(f"{base}/v1/brands", headers=headers, timeout=30).status_code == 200
            made = requests.post(
                f"{base}/v1/brands", headers=headers, json={"name": "Through the pool"}, timeout=30
            )
            assert made.status_code == 201, made.text
            as_json = requests.get(
                f"{base}/api/analytics/export?format=json&{period}", headers=headers, timeout=120
            )
            assert as_json.status_code == 200 and len(as_json.json()["data"]) == 10_000
