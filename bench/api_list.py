"""API list throughput: GET /v1/brands at 100,000 rows across 100 organizations, and GET
/v1/content and GET /api/content at 100,000 contents (3 variants each) across the same
organizations; the measured organization's contents also have a shown image and a
publication each. A deep organization (6,000 contents, the same shape) gives page 250 of 20:
`cursor=` paging against `page=250`.

Compares, on the same server in the same run:
  - the API list (auth, rate limit, paging with COUNT, sorting, serialization, headers),
  - the leanest Django view returning the same JSON (ORM .values() + orjson; one per
    family's content list: Family B's items carry more fields and their tag ids),
  - a view with no database at all,
for limit=20 and limit=100, under gunicorn sync workers (the production layout for the
REST API) and under uvicorn (ASGI, the embedded default), in rounds: every endpoint in turn
within a round, each API next to its lean view, so that a burst of load on a shared machine
hits both sides. Prints the median req/s (with its spread), p50/p99 and the ratio API / lean. Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1/
postforge_bench), Redis (REDIS_URL) and `wrk` (apt-get install wrk).

    .venv/bin/python bench/api_list.py [--rows 100000] [--duration 4] [--server-rounds 3]

`--in-process` times the same endpoints with Django's test client instead (no server, no
wrk: for a shared machine where wrk figures swing with the load): each round times every
endpoint of a comparison in turn (API, lean view; page, cursor), and the medians per request
are compared, with the load average beside each figure.

    .venv/bin/python bench/api_list.py --in-process [--rounds 25]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_database(url: str, rows: int, orgs: int, content_rows: int) -> dict[str, str]:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    from bench.common import ensure_secrets

    ensure_secrets()
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from apps.accounts.models import ApiKey, Organization
    from apps.accounts.services import api_key_create
    from apps.brands.models import Brand

    if Brand.objects.count() < rows:
        print(f"seeding {rows} brands in {orgs} organizations ...", flush=True)
        Brand.objects.all().delete()
        ApiKey.objects.all().delete()
        Organization.objects.all().delete()
        per_org = rows // orgs
        for n in range(orgs):
            org = Organization.objects.create(name=f"Bench {n}", slug=f"bench-{n}")
            Brand.objects.bulk_create(
                [
                    Brand(
                        organization=org,
                        name=f"Brand {n}-{i}",
                        slug=f"b-{i}",
                        description="x" * 300,
                        voice="warm, witty and expert " * 5,
                        tone=["friendly", "expert"],
                        primary_color="#112233",
                        secondary_color="#445566",
                        hashtags=["#one", "#two", "#three"],
                        fonts=["Inter"],
                        is_default=(i == 0),
                    )
                    for i in range(per_org)
                ],
                batch_size=2000,
            )
        with connection.cursor() as cur:
            cur.execute("ANALYZE")
    from apps.content.models import Content, Variant

    if Content.objects.count() < content_rows:
        print(f"seeding {content_rows} contents with 3 variants each in {orgs} organizations ...", flush=True)
        Content.objects.all().delete()
        per_org = content_rows // orgs
        for org_ in Organization.objects.order_by("slug")[:orgs]:
            brand = Brand.objects.filter(organization=org_, is_default=True).first()
            contents = Content.objects.bulk_create(
                [
                    Content(
                        organization=org_,
                        brand=brand,
                        platforms=["x", "linkedin", "instagram"],
                        status="review",
                        prompt=f"Our autumn menu {i}: roasted squash soup and cider",
                        progress=100,
                    )
                    for i in range(per_org)
                ],
                batch_size=2000,
            )
            Variant.objects.bulk_create(
                [
                    Variant(
                        content=c,
                        platform=platform,
                        caption="Autumn is here, and so is our squash soup. " * 3,
                        hashtags=["#autumn", "#soup", "#cafe"],
                        alt_text="A bowl of soup",
                        adaptations=[],
                    )
                    for c in contents
                    for platform in ("x", "linkedin", "instagram")
                ],
                batch_size=5000,
            )
        with connection.cursor() as cur:
            cur.execute("ANALYZE")
    org = Organization.objects.order_by("slug").first()
    deep = seed_deep(DEEP_ROWS)
    for org_ in (org, deep):
        seed_media_and_publications(org_)
    ApiKey.objects.filter(organization__in=[org, deep]).delete()
    return {
        "key": api_key_create(organization=org, name="bench").secret,
        "deep_key": api_key_create(organization=deep, name="bench deep").secret,
        "deep_org": deep,
    }


#: contents of the deep organization: page 250 of 20 lies inside it
DEEP_ROWS = 6_000
DEEP_PAGE = 250


def _contents(org, brand, n: int) -> None:
    from apps.content.models import Content, Variant

    for start in range(0, n, 2000):
        contents = Content.objects.bulk_create(
            [
                Content(
                    organization=org,
                    brand=brand,
                    platforms=["x", "linkedin", "instagram"],
                    status="review",
                    prompt=f"Our autumn menu {i}: roasted squash soup and cider",
                    progress=100,
                )
                for i in range(start, min(n, start + 2000))
            ]
        )
        Variant.objects.bulk_create(
            [
                Variant(
                    content=c,
                    platform=platform,
                    caption="Autumn is here, and so is our squash soup. " * 3,
                    hashtags=["#autumn", "#soup", "#cafe"],
                    alt_text="A bowl of soup",
                    adaptations=[],
                )
                for c in contents
                for platform in ("x", "linkedin", "instagram")
            ],
            batch_size=5000,
        )


def seed_deep(n: int):
    """An organization of `n` contents (3 variants each), for paging deep."""
    from django.db import connection

    from apps.accounts.models import Organization
    from apps.brands.models import Brand
    from apps.content.models import Content

    org, _ = Organization.objects.get_or_create(slug="bench-deep", defaults={"name": "Bench deep"})
    brand = Brand.objects.filter(organization=org).first() or Brand.objects.create(
        organization=org, name="Deep brand", slug="deep", is_default=True
    )
    if Content.objects.filter(organization=org).count() < n:
        print(f"seeding {n} contents in the deep organization ...", flush=True)
        Content.objects.filter(organization=org).delete()
        _contents(org, brand, n)
        with connection.cursor() as cur:
            cur.execute("ANALYZE")
    return org


def seed_media_and_publications(org) -> None:
    """A shown image and a publication (on an X profile) for each content of `org`."""
    import datetime

    from django.db import connection
    from django.utils import timezone

    from apps.content.models import Content
    from apps.media.models import Kind, MediaAsset
    from apps.profiles.models import SocialProfile
    from apps.publishing.models import Publication

    if MediaAsset.objects.filter(organization=org, content__isnull=False).exists():
        return
    print(f"seeding media and publications for {org.slug} ...", flush=True)
    contents = list(Content.objects.filter(organization=org).only("id", "brand_id"))
    profile = SocialProfile.objects.filter(organization=org).first() or SocialProfile.objects.create(
        organization=org,
        brand_id=contents[0].brand_id,
        platform="x",
        external_id=f"bench-{org.pk.hex}",
        username="bench",
    )
    MediaAsset.objects.bulk_create(
        [
            MediaAsset(
                organization=org,
                content=c,
                kind=Kind.GENERATED,
                media_type="image",
                file=f"media/bench/{c.pk.hex}.png",
                thumbnail=f"media/bench/{c.pk.hex}-thumb.png",
                content_type="image/png",
                size=120_000,
                width=1080,
                height=1080,
            )
            for c in contents
        ],
        batch_size=2000,
    )
    when = timezone.now() - datetime.timedelta(days=1)
    Publication.objects.bulk_create(
        [
            Publication(
                organization=org,
                content=c,
                profile=profile,
                platform="x",
                status=Publication.PUBLISHED,
                scheduled_for=when,
                due_at=when,
                published_at=when,
                url=f"https://x.com/bench/status/{n}",
            )
            for n, c in enumerate(contents)
        ],
        batch_size=2000,
    )
    with connection.cursor() as cur:
        cur.execute("ANALYZE")


def deep_cursor(org, page: int, limit: int) -> str:
    """The `nextCursor` that page `page - 1` of the deep organization's /v1/content answers
    (the default sort: createdAt descending, then id)."""
    from apps.content.models import Content
    from apps.core.pagination import _encode_cursor

    last = (
        Content.objects.filter(organization=org)
        .order_by("-created_at", "-pk")
        .values("created_at", "pk")[(page - 1) * limit - 1]
    )
    return _encode_cursor([last["created_at"].isoformat(), str(last["pk"])])


def start(kind: str, port: int, env: dict) -> subprocess.Popen:
    py = sys.executable
    if kind == "gunicorn":
        cmd = [
            py,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            "2",
            "--worker-class",
            "sync",
            "--log-level",
            "warning",
            "--keep-alive",
            "5",
        ]
    else:
        cmd = [
            py,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "2",
            "--log-level",
            "warning",
            "--lifespan",
            "off",
            "--no-access-log",
        ]
    env = dict(env, CONN_MAX_AGE="60" if kind == "gunicorn" else "0")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    import requests

    for _ in range(200):
        try:
            requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc
        except requests.RequestException:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{kind} did not start")


def wrk(url: str, key: str, duration: int, connections: int = 8) -> tuple[float, float, float]:
    out = subprocess.run(
        [
            "wrk",
            "-t",
            "1",
            "-c",
            str(connections),
            "-d",
            f"{duration}s",
            "--latency",
            "-H",
            f"Authorization: Bearer {key}",
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def pct(label):
        m = re.search(rf"\s{label}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        raise RuntimeError(f"{url}: {non2xx.group(1)} non-2xx responses")
    return rps, pct("50"), pct("99")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--orgs", type=int, default=100)
    parser.add_argument("--content-rows", type=int, default=100_000)
    parser.add_argument("--duration", type=int, default=4, help="seconds of wrk per endpoint and round")
    parser.add_argument("--server-rounds", type=int, default=3, help="rounds of the server runs")
    parser.add_argument("--in-process", action="store_true", help="Django's test client, no server, no wrk")
    parser.add_argument("--rounds", type=int, default=25, help="rounds of --in-process")
    args = parser.parse_args()
    if args.in_process:
        in_process(args)
        return
    if not shutil.which("wrk"):
        sys.exit("wrk is needed: apt-get install wrk")
    from bench.common import ensure_database, free_port

    url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postforge_bench")
    ensure_database(url)  # the database BENCH_DATABASE_URL names
    creds = setup_database(url, args.rows, args.orgs, args.content_rows)
    env = dict(
        os.environ,
        DATABASE_URL=url,
        POSTFORGE_BENCH_VIEWS="1",
        RATE_LIMIT_DEFAULT="100000000",
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        LOG_LEVEL="WARNING",
    )
    rounds = args.server_rounds
    print(
        f"rows={args.rows} orgs={args.orgs} (1 org = {args.rows // args.orgs} rows); 2 workers; wrk 8 connections; "
        f"{rounds} rounds of {args.duration}s per endpoint, the endpoints in turn within each round "
        "(a burst of load on a shared machine hits every endpoint); medians"
    )
    print(
        f"{'server':9} {'endpoint':32} {'limit':>5} {'req/s':>8} {'(min-max)':>13} {'p50 ms':>7} {'p99 ms':>7}"
    )
    # an API next to its lean view: each pair a few seconds apart
    endpoints = [
        (name, path, limit)
        for limit in (20, 100)
        for name, path in (
            ("nodb", "/bench/nodb"),
            ("lean", "/bench/lean-brands"),
            ("api", "/v1/brands"),
            ("lean-content", "/bench/lean-content"),
            ("api-content", "/v1/content"),
            ("lean-content-b", "/bench/lean-content-b"),
            ("api-content-b", "/api/content"),
        )
        if not (name == "nodb" and limit == 100)
    ]
    results = {}
    loads = []
    # BENCH_GUNICORN_PORT / BENCH_UVICORN_PORT, or ports nothing listens on now
    ports = {
        kind: int(os.environ.get(f"BENCH_{kind.upper()}_PORT") or free_port())
        for kind in ("gunicorn", "uvicorn")
    }
    for kind, port in ports.items():
        proc = start(kind, port, env)
        try:
            base = f"http://127.0.0.1:{port}"
            for _, path, limit in endpoints:
                wrk(f"{base}{path}?limit={limit}", creds["key"], 1)  # warm up
            runs: dict = {e: [] for e in endpoints}
            for _ in range(rounds):
                loads.append(float(loadavg()))
                for e in endpoints:
                    runs[e].append(wrk(f"{base}{e[1]}?limit={e[2]}", creds["key"], args.duration))
            for e in endpoints:
                name, path, limit = e
                rps = statistics.median(r[0] for r in runs[e])
                p50 = statistics.median(r[1] for r in runs[e])
                p99 = statistics.median(r[2] for r in runs[e])
                spread = f"({min(r[0] for r in runs[e]):.0f}-{max(r[0] for r in runs[e]):.0f})"
                results[(kind, name, limit)] = rps
                print(
                    f"{kind:9} {name + ' ' + path:32.32} {limit:>5} {rps:>8.0f} {spread:>13} {p50:>7.1f} {p99:>7.1f}",
                    flush=True,
                )
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(f"load average at the start of each round: {min(loads):.1f}-{max(loads):.1f}")
    print()
    for kind in ("gunicorn", "uvicorn"):
        for api, lean, label in (
            ("api", "lean", "brands"),
            ("api-content", "lean-content", "v1 content"),
            ("api-content-b", "lean-content-b", "api content"),
        ):
            for limit in (20, 100):
                ratio = results[(kind, api, limit)] / results[(kind, lean, limit)]
                verdict = "meets" if ratio >= 0.5 else "MISSES"
                print(f"{kind}: {label} API/lean at limit={limit}: {ratio:.2f} ({verdict} the 0.5 target)")
    print(
        f"gunicorn/uvicorn for the API list at limit=20: "
        f"{results[('gunicorn', 'api', 20)] / results[('uvicorn', 'api', 20)]:.2f}"
    )


def loadavg() -> str:
    """The 1-minute load average (the machine is shared: every figure says what it ran beside)."""
    return Path("/proc/loadavg").read_text().split()[0]


def in_process(args) -> None:
    """Each comparison's endpoints through Django's test client, in turn within every round, in
    one process; the median per request of each, and their ratio (as requests per second)."""
    from bench.common import ensure_database

    url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postforge_bench")
    ensure_database(url)
    os.environ.update(POSTFORGE_BENCH_VIEWS="1", RATE_LIMIT_DEFAULT="100000000", LOG_LEVEL="WARNING")
    creds = setup_database(url, args.rows, args.orgs, args.content_rows)
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {creds['key']}", HTTP_HOST="localhost")
    deep = Client(HTTP_AUTHORIZATION=f"Bearer {creds['deep_key']}", HTTP_HOST="localhost")
    cursor = deep_cursor(creds["deep_org"], DEEP_PAGE, 20)
    by_page = deep.get(f"/v1/content?limit=20&page={DEEP_PAGE}").json()["data"]
    by_cursor = deep.get(f"/v1/content?limit=20&cursor={cursor}").json()["data"]
    assert by_page == by_cursor and len(by_page) == 20, "the cursor does not reach the same page"
    # Family B's lean view returns the same fields as its list, down to media and publications
    a, b = (client.get(f"{u}?limit=5").json()["data"] for u in ("/api/content", "/bench/lean-content-b"))
    for x, y in zip(a, b, strict=True):
        assert list(x) == list(y), "lean-content-b does not return /api/content's fields"
        for part in ("mediaAssets", "publications"):
            assert [list(i) for i in x[part]] == [list(i) for i in y[part]], part
    # (label, client, target, baseline); the ratio is baseline ms / target ms (target's share of
    # the baseline's requests per second) except for paging, where it is cursor ms / page ms
    comparisons = [
        ("brands", client, "/v1/brands?limit={n}", "/bench/lean-brands?limit={n}"),
        ("v1 content", client, "/v1/content?limit={n}", "/bench/lean-content?limit={n}"),
        ("api content", client, "/api/content?limit={n}", "/bench/lean-content-b?limit={n}"),
    ]
    print(f"in-process, {args.rounds} rounds, median ms per request; load average beside each figure")
    for label, c, target, baseline in comparisons:
        for limit in (20, 100):
            a, b, load = _alternate(c, [target.format(n=limit), baseline.format(n=limit)], args.rounds)
            ratio = b / a
            verdict = "meets" if ratio >= 0.5 else "MISSES"
            line = (
                f"{label:11} limit={limit:<3} API {a:7.1f} ms  lean {b:7.1f} ms  "
                f"API/lean (req/s) {ratio:.2f} ({verdict} 0.5)  load {load}"
            )
            print(line, flush=True)
    page_url = f"/v1/content?limit=20&page={DEEP_PAGE}"
    cursor_url = f"/v1/content?limit=20&cursor={cursor}"
    first_url = "/v1/content?limit=20"
    p, k, f, load = _alternate(deep, [page_url, cursor_url, first_url], args.rounds)
    print(
        f"v1 content  page {DEEP_PAGE} of 20 ({DEEP_ROWS} rows), whole request: page= {p:7.1f} ms  "
        f"cursor= {k:7.1f} ms  (page 1: {f:.1f} ms)  cursor/page {k / p:.2f}  load {load}",
        flush=True,
    )
    p, k, f, load = _alternate(deep, [page_url, cursor_url, first_url], args.rounds, sql=True)
    verdict = "meets" if k <= p / 3 else "MISSES"
    print(
        f"v1 content  page {DEEP_PAGE} of 20 ({DEEP_ROWS} rows), paging SQL: page= {p:7.2f} ms  "
        f"cursor= {k:7.2f} ms  (page 1: {f:.2f} ms)  cursor/page {k / p:.2f} ({verdict} 1/3)  load {load}",
        flush=True,
    )


def _alternate(client, urls: list[str], rounds: int, *, sql: bool = False) -> tuple:
    """The median ms per request of each url, timed in turn in every round; then the load.
    `sql`: instead, PostgreSQL's own execution time of the list's paging statements (the count
    and the page's rows; EXPLAIN ANALYZE of each, run again after it: the client's scheduling on
    a loaded machine does not count; not the page's variants, media, publications or auth)."""
    import statistics

    from django.db import connection

    spent = [0.0]

    def timed(execute, sql_, params, many, context):
        result = execute(sql_, params, many, context)
        if 'FROM "content_content"' in sql_ and ("LIMIT" in sql_ or "COUNT(" in sql_):
            with context["connection"].connection.cursor() as raw:  # the page's rows stay unread
                raw.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql_}", params)
                plan = raw.fetchone()[0]
            spent[0] += (plan if isinstance(plan, list) else json.loads(plan))[0]["Execution Time"] / 1000
        return result

    times: list[list[float]] = [[] for _ in urls]
    for _ in range(2):  # warm up
        for u in urls:
            response = client.get(u)
            assert response.status_code == 200, (u, response.content[:300])
    for _ in range(rounds):
        for i, u in enumerate(urls):
            if sql:
                spent[0] = 0.0
                with connection.execute_wrapper(timed):
                    response = client.get(u)
                times[i].append(spent[0] * 1000)
            else:
                started = time.perf_counter()
                response = client.get(u)
                times[i].append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (u, response.content[:300])
    return (*(statistics.median(t) for t in times), loadavg())


if __name__ == "__main__":
    main()
