"""Analytics aggregate and export.

1. GET /v1/analytics/content?groupBy=day (one organization's year) over N snapshot rows across
   100 organizations, beside the bare SQL aggregate it replaces, in the same run and process
   (Django test client in-process: auth, validation, the ORM query, JSON), one request of each
   in turn so both see the same machine load. Prints req/s, p50/p99 and the ratio API / bare SQL.
2. The export of 10,000 posts: peak Python memory (tracemalloc) while streaming 2,000 and
   10,000 posts; flat means the peak does not grow with the number of posts.

Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1/postforge_bench_analytics).

    .venv/bin/python bench/analytics.py [--orgs 100] [--posts-per-org 1000] [--snapshots 10]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def seed(orgs: int, per_org: int, snaps: int) -> None:
    from django.db import connection

    from apps.accounts.models import Organization
    from apps.analytics.models import PostSnapshot
    from apps.brands.models import Brand
    from apps.content.models import Content
    from apps.profiles.models import SocialProfile
    from apps.publishing.models import Publication

    if PostSnapshot.objects.count() >= orgs * per_org * snaps:
        return
    print(f"seeding {orgs} organizations x {per_org} posts x {snaps} snapshots ...", flush=True)
    old = Organization.objects.filter(slug__startswith="abench-")
    for model in (PostSnapshot, Publication, Content, SocialProfile, Brand):
        model.objects.filter(organization__in=old)._raw_delete(model.objects.db)
    old.delete()
    start = datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC)
    for n in range(orgs):
        org = Organization.objects.create(name=f"ABench {n}", slug=f"abench-{n}")
        brand = Brand.objects.create(organization=org, name="B", slug="b")
        profiles = [
            SocialProfile.objects.create(
                organization=org,
                brand=brand,
                platform=p,
                external_id=f"{n}-{p}",
                username=f"u{n}{p}",
                follower_count=1000,
            )
            for p in ("instagram", "x", "linkedin")
        ]
        contents = Content.objects.bulk_create(
            [
                Content(
                    organization=org, brand=brand, platforms=["instagram"], prompt="p", status="published"
                )
                for _ in range(per_org)
            ]
        )
        Publication.objects.bulk_create(
            [
                Publication(
                    organization=org,
                    content=c,
                    profile=profiles[i % 3],
                    platform=profiles[i % 3].platform,
                    status="published",
                    scheduled_for=start + datetime.timedelta(hours=8.7 * i),
                    due_at=start,
                    published_at=start + datetime.timedelta(hours=8.7 * i),
                    external_id=f"e{i}",
                )
                for i, c in enumerate(contents)
            ],
            batch_size=2000,
        )
    with connection.cursor() as cur:
        cur.execute(
            """
            INSERT INTO analytics_postsnapshot (id, created_at, updated_at, organization_id, publication_id, content_id,
                profile_id, platform, taken_at, published_at, views, reach, likes, comments, shares, saves,
                unavailable, latest)
            SELECT gen_random_uuid(), now(), now(), p.organization_id, p.id, p.content_id, p.profile_id, p.platform,
                   p.published_at + (s || ' hours')::interval, p.published_at, 100 * s, 70 * s, 5 * s, s, s / 2, s / 3,
                   '{}'::jsonb, s = %s
            FROM publishing_publication p
            JOIN accounts_organization o ON o.id = p.organization_id AND o.slug LIKE 'abench-%%'
            CROSS JOIN generate_series(1, %s) s
        """,
            [snaps, snaps],
        )
        cur.execute("ANALYZE")


BARE_SQL = """
SELECT date_trunc('day', p.published_at AT TIME ZONE 'UTC') AS d, count(*),
       sum(coalesce(s.reach, s.impressions, s.views, 0)),
       sum(coalesce(s.likes,0)+coalesce(s.comments,0)+coalesce(s.shares,0)+coalesce(s.saves,0)
           +coalesce(s.replies,0)+coalesce(s.reposts,0)+coalesce(s.quotes,0))
FROM publishing_publication p
LEFT JOIN analytics_postsnapshot s ON s.publication_id = p.id AND s.latest
WHERE p.organization_id = %s AND p.status = 'published' AND p.published_at >= %s AND p.published_at < %s
GROUP BY 1 ORDER BY 1
"""


def summary(samples: list[float]) -> tuple[float, float, float]:
    """(throughput, p50 ms, p99 ms) of sequential samples."""
    total = sum(samples)
    samples = sorted(samples)
    return (
        len(samples) / total,
        statistics.median(samples) * 1000,
        samples[int(len(samples) * 0.99) - 1] * 1000,
    )


def interleaved(a, b, n: int) -> tuple[tuple, tuple, float]:
    """Time ``a`` and ``b`` alternately, n times each, so both see the same load on a shared
    machine (the ratio is then not skewed by a burst that hit only one of them). Also returns
    the median CPU time of this process for ``a`` (ms): Python's own work, which other
    processes on the machine do not inflate."""
    a(), b()
    sa, sb, cpu = [], [], []
    for _ in range(n):
        for fn, out in ((a, sa), (b, sb)):
            t, c = time.perf_counter(), time.process_time()
            fn()
            out.append(time.perf_counter() - t)
            if fn is a:
                cpu.append(time.process_time() - c)
    return summary(sa), summary(sb), statistics.median(cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--orgs", type=int, default=100)
    parser.add_argument("--posts-per-org", type=int, default=1000)
    parser.add_argument("--snapshots", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1/postforge_bench_analytics"
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # the per-key limit (100 a minute) would answer most timed requests with a 429
    os.environ["RATE_LIMIT_DEFAULT"] = "100000000"
    import django

    from bench.common import ensure_database, ensure_secrets

    ensure_database(os.environ["DATABASE_URL"])
    ensure_secrets()
    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    from apps.accounts.models import Organization
    from apps.accounts.services import api_key_create
    from apps.analytics import reports
    from apps.analytics.models import PostSnapshot

    setup_test_environment()
    call_command("migrate", verbosity=0)
    seed(args.orgs, args.posts_per_org, args.snapshots)
    print(f"snapshot rows: {PostSnapshot.objects.count():,}")
    org = Organization.objects.filter(slug="abench-0").first()
    key = api_key_create(organization=org, name="bench").secret
    client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
    url = "/v1/analytics/content?groupBy=day&startDate=2025-01-01&endDate=2025-12-31"
    assert client.get(url).status_code == 200, client.get(url).content
    start, end = (
        datetime.datetime(2025, 1, 1, tzinfo=datetime.UTC),
        datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    )

    def bare():
        with connection.cursor() as cur:
            cur.execute(BARE_SQL, [org.pk, start, end])
            cur.fetchall()

    statuses = []

    def api():
        statuses.append(client.get(url).status_code)

    (api_rps, api_p50, api_p99), (sql_rps, sql_p50, sql_p99), api_cpu = interleaved(api, bare, args.requests)
    assert set(statuses) == {200}, f"not every timed request answered 200: {sorted(set(statuses))}"
    print(
        f"API  /v1/analytics/content groupBy=day, one org's year: {api_rps:8.1f} req/s  p50 {api_p50:6.2f} ms  p99 {api_p99:6.2f} ms"
    )
    print(
        f"bare SQL aggregate, same org and year:               {sql_rps:8.1f} q/s    p50 {sql_p50:6.2f} ms  p99 {sql_p99:6.2f} ms"
    )
    print(
        f"ratio API / bare SQL throughput: {api_rps / sql_rps:.2f}   (p50 ratio {sql_p50 / api_p50:.2f}; "
        f"API Python CPU per request p50 {api_cpu:.2f} ms)"
    )

    orgs = [o.pk for o in Organization.objects.filter(slug__startswith="abench-").order_by("slug")]
    far = datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC)
    for posts in (2000, 10000):
        tracemalloc.start()
        rows = 0
        for o in orgs:
            if rows >= posts:
                break
            for n, _chunk in enumerate(reports.stream_export(reports.export_rows(o, start, far), "csv")):
                rows += 1 if n else 0  # the first chunk is the header
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"export of {rows:,} posts (CSV, streamed): peak Python memory {peak / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
