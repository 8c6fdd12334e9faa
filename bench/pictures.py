"""Benchmark of the local engine's designed posts against its abstract compositions, in one run.

Run from the project root:  .venv/bin/python bench/pictures.py [--rounds N]

Prints, as medians over the rounds (each round renders every case once, in turn, so that a busy
machine slows both sides alike):
  * a designed 1080x1350 JPEG (every template in turn, with a logo) against the abstract
    composition the engine drew before (the same size, format and styles): target < 250 ms;
  * a designed 6 s 1080x1920 30 fps video with its music bed against the abstract scene video:
    target < 6 s;
and the ratios designed / abstract. The figures are wall-clock on whatever else the machine
runs: read the ratios first on a shared machine.

Then (issue 30) the poster layouts against the older templates, in the same rounds: a 1080x1350
JPEG poster with a Lucide icon, one with the brand's photo cropped around its subject, and the
older template of the same spec (the spec without its ``message``): target < 400 ms each.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from PIL import Image, ImageDraw  # noqa: E402

from apps.generation.base import BrandVoice, ImageRequest, PostDesign, VideoRequest  # noqa: E402
from apps.generation.local import LocalEngine  # noqa: E402
from apps.generation.local_media.brief import TEMPLATES, spec_from_text  # noqa: E402

BRAND = BrandVoice(name="Crumb Co", tone="friendly", primary_color="#7A3E2B", secondary_color="#F2C572")
PROMPT = (
    "Crumb Co opens its sourdough bakery on Rue Verte on Saturday 14 June at 8am, code OPEN10 for 10% off."
)
FACTS = [
    "Crumb Co opens its sourdough bakery on Rue Verte on Saturday 14 June at 8am.",
    "Use code OPEN10 for 10% off.",
]


def _logo() -> bytes:
    img = Image.new("RGBA", (240, 100), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((0, 0, 100, 100), fill=(20, 110, 90, 255))
    d.rectangle((115, 25, 235, 75), fill=(230, 60, 40, 255))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def _design(template: str, music: bool = True) -> PostDesign:
    spec = spec_from_text(
        prompt=PROMPT,
        hook="Big news: we open Saturday!",
        facts=FACTS,
        cta="See you there",
        brand=BRAND,
        template=template,
    )
    return PostDesign(spec=spec, platform="instagram", logo=_logo(), music=music)


def _photo() -> bytes:
    img = Image.new("RGB", (1600, 1000), (214, 206, 190))
    d = ImageDraw.Draw(img)
    d.ellipse((1050, 180, 1450, 580), fill=(150, 70, 40))
    d.rectangle((0, 760, 1600, 1000), fill=(120, 100, 80))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    engine = LocalEngine()
    designs = {t: _design(t) for t in TEMPLATES}
    engine.image(
        ImageRequest(prompt=PROMPT, width=540, height=675, brand=BRAND, design=designs["offer"])
    )  # warm up
    images: dict[str, list[float]] = {"designed": [], "abstract": []}
    videos: dict[str, list[float]] = {"designed": [], "abstract": []}
    for _ in range(args.rounds):
        for n, template in enumerate(TEMPLATES):
            style = "illustration" if n % 2 else "photorealistic"
            base = ImageRequest(
                prompt=PROMPT, width=1080, height=1350, style=style, brand=BRAND, seed=n, format="JPEG"
            )
            images["abstract"].append(_time(lambda base=base: engine.image(base)))
            designed = ImageRequest(**{**base.__dict__, "design": designs[template]})
            images["designed"].append(_time(lambda designed=designed: engine.image(designed)))
        scene = VideoRequest(
            prompt=PROMPT, width=1080, height=1920, seconds=6.0, style="illustration", brand=BRAND
        )
        videos["abstract"].append(_time(lambda scene=scene: engine.video(scene)))
        designed_video = VideoRequest(**{**scene.__dict__, "design": _design("announcement")})
        videos["designed"].append(_time(lambda v=designed_video: engine.video(v)))

    poster = _design("offer")
    older = PostDesign(
        **{**poster.__dict__, "spec": {k: v for k, v in poster.spec.items() if k != "message"}}
    )
    photo = PostDesign(**{**poster.__dict__, "photo": _photo()})
    posters: dict[str, list[float]] = {"icon": [], "photo": [], "older": []}
    for r in range(args.rounds * 3):
        for name, design in (("icon", poster), ("photo", photo), ("older", older)):
            req = ImageRequest(
                prompt=PROMPT,
                width=1080,
                height=1350,
                style="illustration",
                brand=BRAND,
                seed=r,
                format="JPEG",
                design=design,
            )
            posters[name].append(_time(lambda req=req: engine.image(req)))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the end")
    for name, runs in (("1080x1350 JPEG image", images), ("6 s 1080x1920 video", videos)):
        d, a = statistics.median(runs["designed"]), statistics.median(runs["abstract"])
        unit, scale, digits = ("ms", 1000, 0) if "image" in name else ("s", 1, 2)

        def fmt(x: float, scale: float = scale, digits: int = digits) -> str:
            return f"{x * scale:.{digits}f}"

        print(
            f"{name}: designed {fmt(d)} {unit} (min {fmt(min(runs['designed']))}, max {fmt(max(runs['designed']))}), "
            f"abstract {fmt(a)} {unit}, ratio designed/abstract {d / a:.2f}"
        )
    o = statistics.median(posters["older"])
    for name in ("icon", "photo"):
        m = statistics.median(posters[name])
        print(
            f"1080x1350 JPEG poster with {'an icon' if name == 'icon' else 'a photo crop'}: {m * 1000:.0f} ms "
            f"(max {max(posters[name]) * 1000:.0f}), older template {o * 1000:.0f} ms, ratio {m / o:.2f}"
        )


if __name__ == "__main__":
    main()
