"""Benchmark of the local generation engine.

Run from the project root:  .venv/bin/python bench/generation.py

Prints:
  * time per 1080x1350 image (median of N, PNG and JPEG, both styles),
  * time per 6 s 1080x1920 30 fps video (median of 3),
  * a batch of 20 generations (each: caption + 1080x1350 JPEG image; every 4th also a
    5 s 720x1280 video) run in 1 and in 2 worker processes, and the speedup,
  * the same batch through the real pipeline on real Celery worker processes (prefork,
    Redis broker, PostgreSQL), with --concurrency 1 then 2: wall time from enqueueing the
    20 tasks to all 20 contents in `review`, and the speedup (target >= 1.8x on 2 cores).

The Celery section needs PostgreSQL (BENCH_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/postforge_bench, created and migrated if missing) and
Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/14: a database of its own, so that no
other worker on the machine takes the bench's tasks). `--celery-only` skips the engine
sections. Stops by itself (every wait has a deadline); about 2-3 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from apps.content.cost import generation_cost  # noqa: E402
from apps.generation.base import BrandVoice, ImageRequest, TextRequest, VideoRequest  # noqa: E402
from apps.generation.local import LocalEngine  # noqa: E402

BRAND = BrandVoice(
    name="Bench Roasters",
    themes=("coffee", "community"),
    hashtags=("#BenchRoasters",),
    primary_color="#7A3E1D",
    secondary_color="#F2C57C",
)
PROMPTS = [
    "fresh croissants on a marble counter",
    "a cyclist climbing a mountain pass at sunrise",
    "minimal desk setup with a laptop and a plant",
    "summer cocktail with lime and mint",
    "rainy city street with neon reflections",
    "kids building a sandcastle on the beach",
    "a cosy reading corner with a blanket",
    "team celebrating a product launch",
]
IMAGE_RUNS = 15
VIDEO_RUNS = 3
BATCH = 20


def _median_ms(fn, runs: int) -> tuple[float, float]:
    """(median wall-clock ms, median CPU ms). CPU time counts every thread of this process and
    is not inflated when other programs share the machine, so it is printed alongside."""
    walls, cpus = [], []
    for i in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        fn(i)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def generate(index: int) -> float:
    """One batch item, as a worker would do it; returns its own duration in seconds."""
    engine = LocalEngine()
    start = time.perf_counter()
    prompt = PROMPTS[index % len(PROMPTS)]
    engine.text(TextRequest(prompt=prompt, platform="instagram", brand=BRAND, seed=index))
    image = engine.image(
        ImageRequest(prompt=prompt, width=1080, height=1350, brand=BRAND, seed=index, format="JPEG")
    )
    assert image.width == 1080
    if index % 4 == 0:
        video = engine.video(
            VideoRequest(prompt=prompt, width=720, height=1280, seconds=5, fps=30, brand=BRAND, seed=index)
        )
        assert video.data[4:8] == b"ftyp"
    return time.perf_counter() - start


def _warm(_: int) -> int:
    LocalEngine().image(ImageRequest(prompt="warm up", width=64, height=64))
    return os.getpid()


def run_batch(workers: int) -> float:
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        list(pool.map(_warm, range(workers * 2)))  # start and import in every worker first
        # the order batch_start enqueues in: heaviest first
        order = sorted(
            range(BATCH),
            key=lambda i: -generation_cost(media_type="video" if i % 4 == 0 else "image", seconds=5),
        )
        start = time.perf_counter()
        list(pool.map(generate, order))
        return time.perf_counter() - start


def engine_sections() -> None:
    engine = LocalEngine()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"local engine benchmark on {os.cpu_count()} CPU(s), load average {load:.2f} at start")

    for style in ("photorealistic", "illustration"):
        for fmt in ("PNG", "JPEG"):
            ms = _median_ms(
                lambda i, style=style, fmt=fmt: engine.image(
                    ImageRequest(
                        prompt=PROMPTS[i % len(PROMPTS)],
                        width=1080,
                        height=1350,
                        style=style,
                        brand=BRAND,
                        seed=i,
                        format=fmt,
                    )
                ),
                IMAGE_RUNS,
            )
            print(
                f"image 1080x1350 {style:<14} {fmt:<4}: {ms[0]:7.1f} ms wall, {ms[1]:7.1f} ms CPU "
                f"(median of {IMAGE_RUNS})"
            )

    ref = engine.image(ImageRequest(prompt="reference", width=800, height=1000, brand=BRAND)).data
    ms = _median_ms(
        lambda i: engine.image(
            ImageRequest(
                prompt=PROMPTS[i % len(PROMPTS)], width=1080, height=1350, brand=BRAND, reference=ref, seed=i
            )
        ),
        7,
    )
    print(f"image 1080x1350 with reference   PNG : {ms[0]:7.1f} ms wall, {ms[1]:7.1f} ms CPU (median of 7)")
    ms = _median_ms(
        lambda i: engine.text(
            TextRequest(
                prompt=PROMPTS[i % len(PROMPTS)], platform="instagram", length="long", brand=BRAND, seed=i
            )
        ),
        50,
    )
    print(f"caption (long, with hashtags)      : {ms[0]:7.2f} ms wall (median of 50)")

    times, cpus = [], []
    for i in range(VIDEO_RUNS):
        start, cpu = time.perf_counter(), time.process_time()
        video = engine.video(
            VideoRequest(prompt=PROMPTS[i], width=1080, height=1920, seconds=6, fps=30, brand=BRAND, seed=i)
        )
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    print(
        f"video 6 s 1080x1920 30 fps H.264   : {statistics.median(times):7.2f} s wall, "
        f"{statistics.median(cpus):5.2f} s CPU over all threads (median of {VIDEO_RUNS}; "
        f"{len(video.data) / 1e6:.1f} MB)"
    )

    one = run_batch(1)
    two = run_batch(2)
    print(f"batch of {BATCH} (text + image, every 4th + 5 s 720x1280 video):")
    print(f"  1 worker : {one:6.2f} s")
    print(f"  2 workers: {two:6.2f} s")
    print(f"  speedup  : {one / two:6.2f}x")


# --- Celery: the same batch through the pipeline on real worker processes ----------------

CELERY_RUNS = 3  # batches per configuration (median reported)
CELERY_DEADLINE = 150.0  # seconds for one batch; the script gives up rather than hang


def _setup_django(database_url: str, redis_url: str, media_root: str) -> dict:
    """Point this process (and the workers it starts) at the bench database and Redis."""
    os.environ.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CELERY_BROKER_URL=redis_url,
        MEDIA_ROOT=media_root,
        GENERATION_ENGINE="local",
        CELERY_TASK_ALWAYS_EAGER="false",
        LOG_LEVEL="WARNING",
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    # create the database if it is missing (an error just means it exists)
    subprocess.run(
        ["psql", database_url.rsplit("/", 1)[0] + "/postgres", "-c", "CREATE DATABASE postforge_bench"],
        capture_output=True,
        check=False,
    )
    import django

    from bench.common import ensure_secrets

    ensure_secrets()
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return dict(os.environ, PYTHONPATH=ROOT)


def _start_worker(concurrency: int, env: dict) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "-l",
        "warning",
        "-Q",
        "generation,default",
        "--concurrency",
        str(concurrency),
        "--pool",
        "prefork",
        "--without-mingle",
        "--without-gossip",
        "-n",
        f"bench-{concurrency}@%h",
    ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)  # no banner; errors on stderr


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _create(org, brand, index: int):
    """One batch item, created without enqueueing (the timer starts at the enqueue)."""
    from apps.content.services import GenerationInput, content_request_generation

    video = index % 4 == 0
    # Instagram feed 4:5 -> a 1080x1350 JPEG; X feed video 9:16 -> 720x1280 (the pipeline makes
    # 6 s videos, the engine-level batch above 5 s ones; a video content has no image).
    inp = GenerationInput(
        prompt=PROMPTS[index % len(PROMPTS)],
        platforms=["x" if video else "instagram"],
        brand=brand,
        media_type="video" if video else "image",
        dimensions="9:16" if video else "4:5",
    )
    return content_request_generation(organization=org, inp=inp, enqueue=False)


def _generate_all(contents, deadline: float) -> float:
    """Enqueue every content's generation task and wait until all are in review."""
    from apps.generation.tasks import generate_content

    ids_ = [c.pk for c in contents]
    start = time.perf_counter()
    for pk in ids_:
        generate_content.delay(str(pk))
    return _wait_in_review(ids_, start, deadline)


def _wait_in_review(ids_, start: float, deadline: float) -> float:
    """Seconds from `start` until every content is in review (a failure or the deadline raises)."""
    from apps.content.models import Content

    while True:
        statuses = list(Content.objects.filter(pk__in=ids_).values_list("status", flat=True))
        if statuses.count("review") == len(ids_):
            return time.perf_counter() - start
        if "failed" in statuses:
            reasons = set(
                Content.objects.filter(pk__in=ids_, status="failed").values_list("status_reason", flat=True)
            )
            raise RuntimeError(f"a generation failed: {reasons}")
        if time.perf_counter() - start > deadline:
            raise TimeoutError(f"{statuses.count('review')}/{len(ids_)} in review after {deadline:.0f} s")
        time.sleep(0.05)


def _batch(org, brand) -> tuple[float, list]:
    """The batch as users start it: planned posts, then batch_start (which enqueues the
    heaviest first); timed from the start until every item is in review."""
    import datetime

    from apps.content.models import Content, ContentSchedule
    from apps.content.services import batch_start
    from apps.profiles.models import SocialProfile

    profiles = {}
    for platform in ("instagram", "x"):
        profiles[platform] = SocialProfile.objects.get_or_create(
            organization=org,
            platform=platform,
            external_id=f"bench-{platform}",
            defaults={"brand": brand, "username": f"bench_{platform}", "sandbox": True},
        )[0]
    schedules = []
    for index in range(BATCH):
        video = index % 4 == 0
        platform = "x" if video else "instagram"
        schedules.append(
            ContentSchedule.objects.create(
                organization=org,
                profile=profiles[platform],
                scheduled_date=datetime.date.today() + datetime.timedelta(days=1),
                task=PROMPTS[index % len(PROMPTS)],
                platform=platform,
                media_type="video" if video else "image",
                dimensions="9:16" if video else "4:5",
            )
        )
    start = time.perf_counter()
    batch = batch_start(organization=org, schedules=schedules)
    ids_ = list(Content.objects.filter(batch=batch).values_list("pk", flat=True))
    elapsed = _wait_in_review(ids_, start, CELERY_DEADLINE)
    return elapsed, list(Content.objects.filter(pk__in=ids_))


def _purge(app) -> None:
    with app.connection_for_write() as conn:
        for queue in ("generation", "default"):
            with contextlib.suppress(Exception):  # a queue that never existed
                conn.default_channel.queue_purge(queue)


def run_celery_batch(concurrency: int, org, brand, env: dict) -> tuple[float, dict]:
    from apps.media.models import MediaAsset
    from config.celery import app

    _purge(app)
    worker = _start_worker(concurrency, env)
    try:
        # Warm every prefork child (Django, the engine, fonts, codecs) before timing.
        _generate_all([_create(org, brand, 1 + 4 * i) for i in range(2 * concurrency)], CELERY_DEADLINE)
        runs = []
        for _ in range(CELERY_RUNS):  # this machine's run-to-run spread is wide: report the median
            elapsed, contents = _batch(org, brand)
            runs.append(elapsed)
        made = MediaAsset.objects.filter(content__in=contents, kind="generated")
        shapes = {(m.media_type, m.width, m.height, round(m.duration or 0)) for m in made}
        return statistics.median(runs), {"media": made.count(), "shapes": sorted(shapes), "runs": runs}
    finally:
        _stop(worker)


def celery_section() -> None:
    database_url = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postforge_bench")
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
    media_root = tempfile.mkdtemp(prefix="postforge-bench-media-")
    try:
        env = _setup_django(database_url, redis_url, media_root)
        from apps.accounts.services import organization_get_or_create
        from apps.brands.models import Brand
        from apps.content.models import Batch, Content, ContentSchedule
        from apps.events.models import Event
        from apps.media.models import MediaAsset

        org = organization_get_or_create(name="Bench Generation")
        brand = Brand.objects.get(organization=org, is_default=True)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"celery section: load average {load:.2f} at start", flush=True)
        results = {}
        for concurrency in (1, 2):
            MediaAsset.objects.filter(organization=org).delete()
            ContentSchedule.objects.filter(organization=org).delete()
            Content.objects.filter(organization=org).delete()
            Batch.objects.filter(organization=org).delete()
            Event.objects.filter(organization=org).delete()
            results[concurrency] = run_celery_batch(concurrency, org, brand, env)
        one, two = results[1][0], results[2][0]
        print(
            f"celery batch of {BATCH} through the pipeline (Redis broker, PostgreSQL, prefork; "
            f"batch_start -> all in review):"
        )
        print(f"  media made per run: {results[2][1]['media']} {results[2][1]['shapes']}")
        for concurrency, label in ((1, one), (2, two)):
            runs = ", ".join(f"{r:.2f}" for r in results[concurrency][1]["runs"])
            print(f"  --concurrency {concurrency}: {label:6.2f} s (median of {runs})")
        print(f"  speedup        : {one / two:6.2f}x (target >= 1.8x)")
    finally:
        shutil.rmtree(media_root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--celery-only", action="store_true", help="run only the Celery section")
    args = parser.parse_args()
    began = time.perf_counter()
    if not args.celery_only:
        engine_sections()
    celery_section()
    print(f"total benchmark time: {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
