"""API list throughput: GET /v1/brands at 100,000 rows across 100 organizations, and GET
/v1/content at 100,000 contents (3 variants each) across the same organizations.

Compares, on the same server in the same run:
  - the API list (auth, rate limit, paging with COUNT, sorting, serialization, headers),
  - the leanest Django view returning the same JSON (ORM .values() + orjson),
  - a view with no database at all,
for limit=20 and limit=100, under gunicorn sync workers (the production layout for the
REST API) and under uvicorn (ASGI, the embedded default). Prints req/s, p50/p99 and the
ratio API / lean. Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1/
postforge_bench), Redis (REDIS_URL) and `wrk` (apt-get install wrk).

    .venv/bin/python bench/api_list.py [--rows 100000] [--duration 8]

`--in-process` times the same endpoints with Django's test client instead (no server, no
wrk: for a shared machine where wrk figures swing with the load): rounds alternate the API
and the lean view, and the median per request is compared.

    .venv/bin/python bench/api_list.py --in-process [--rounds 25]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
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
    ApiKey.objects.filter(organization=org).delete()
    return {"key": api_key_create(organization=org, name="bench").secret}


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
    parser.add_argument("--duration", type=int, default=8)
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--rounds", type=int, default=25)
    args = parser.parse_args()
    if args.in_process:
        in_process(args)
        return
    if not shutil.which("wrk"):
        sys.exit("wrk is needed: apt-get install wrk")
    url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postforge_bench")
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-c", "CREATE DATABASE postforge_bench"],
        capture_output=True,
    )
    creds = setup_database(url, args.rows, args.orgs, args.content_rows)
    env = dict(
        os.environ,
        DATABASE_URL=url,
        POSTFORGE_BENCH_VIEWS="1",
        RATE_LIMIT_DEFAULT="100000000",
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        LOG_LEVEL="WARNING",
    )
    print(
        f"rows={args.rows} orgs={args.orgs} (1 org = {args.rows // args.orgs} rows); 2 workers; wrk 8 connections, {args.duration}s"
    )
    print(f"{'server':9} {'endpoint':32} {'limit':>5} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7}")
    results = {}
    for kind, port in (("gunicorn", 8701), ("uvicorn", 8702)):
        proc = start(kind, port, env)
        try:
            base = f"http://127.0.0.1:{port}"
            for name, path in (
                ("nodb", "/bench/nodb"),
                ("lean", "/bench/lean-brands"),
                ("api", "/v1/brands"),
                ("lean-content", "/bench/lean-content"),
                ("api-content", "/v1/content"),
            ):
                for limit in (20, 100):
                    if name == "nodb" and limit == 100:
                        continue
                    wrk(f"{base}{path}?limit={limit}", creds["key"], 1)  # warm up
                    rps, p50, p99 = wrk(f"{base}{path}?limit={limit}", creds["key"], args.duration)
                    results[(kind, name, limit)] = rps
                    print(
                        f"{kind:9} {name + ' ' + path:32.32} {limit:>5} {rps:>8.0f} {p50:>7.1f} {p99:>7.1f}",
                        flush=True,
                    )
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print()
    for kind in ("gunicorn", "uvicorn"):
        for api, lean, label in (("api", "lean", "brands"), ("api-content", "lean-content", "content")):
            for limit in (20, 100):
                ratio = results[(kind, api, limit)] / results[(kind, lean, limit)]
                verdict = "meets" if ratio >= 0.5 else "MISSES"
                print(f"{kind}: {label} API/lean at limit={limit}: {ratio:.2f} ({verdict} the 0.5 target)")
    print(
        f"gunicorn/uvicorn for the API list at limit=20: "
        f"{results[('gunicorn', 'api', 20)] / results[('uvicorn', 'api', 20)]:.2f}"
    )


def in_process(args) -> None:
    """The API list and the lean view through Django's test client, alternately, in one process."""
    import statistics

    url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postforge_bench")
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-c", f"CREATE DATABASE {url.rsplit('/', 1)[1]}"],
        capture_output=True,
    )
    os.environ.update(POSTFORGE_BENCH_VIEWS="1", RATE_LIMIT_DEFAULT="100000000", LOG_LEVEL="WARNING")
    creds = setup_database(url, args.rows, args.orgs, args.content_rows)
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {creds['key']}", HTTP_HOST="localhost")
    pairs = (
        ("brands", "/v1/brands", "/bench/lean-brands"),
        ("content", "/v1/content", "/bench/lean-content"),
    )
    print(f"in-process, {args.rounds} rounds, median ms per request")
    for label, api, lean in pairs:
        for limit in (20, 100):
            times: dict[str, list[float]] = {api: [], lean: []}
            for _ in range(2):  # warm up
                for path in (api, lean):
                    assert client.get(f"{path}?limit={limit}").status_code == 200
            for _ in range(args.rounds):
                for path in (api, lean):
                    started = time.perf_counter()
                    response = client.get(f"{path}?limit={limit}")
                    times[path].append((time.perf_counter() - started) * 1000)
                    assert response.status_code == 200, response.content[:200]
            a, b = statistics.median(times[api]), statistics.median(times[lean])
            print(
                f"{label:8} limit={limit:<3} API {a:7.1f} ms  lean {b:7.1f} ms  API/lean (req/s) {b / a:.2f}"
            )


if __name__ == "__main__":
    main()
