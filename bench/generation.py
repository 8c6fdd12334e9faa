"""Benchmark of the local generation engine.

Run from the project root:  .venv/bin/python bench/generation.py

Prints:
  * time per 1080x1350 image (median of N, PNG and JPEG, both styles),
  * time per 6 s 1080x1920 30 fps video (median of 3),
  * a batch of 20 generations (each: caption + 1080x1350 JPEG image; every 4th also a
    5 s 720x1280 video) run in 1 and in 2 worker processes, and the speedup.
Finishes in well under two minutes on a 2-core machine.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from apps.content.generation.base import BrandVoice, ImageRequest, TextRequest, VideoRequest  # noqa: E402
from apps.content.generation.local import LocalEngine  # noqa: E402

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
        start = time.perf_counter()
        list(pool.map(generate, range(BATCH)))
        return time.perf_counter() - start


def main() -> None:
    began = time.perf_counter()
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
    print(f"total benchmark time: {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
