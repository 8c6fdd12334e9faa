"""Mutation testing of the pure modules with mutmut (issue 24): `make mutation`.

Each listed module is mutated and every mutant is run against the tests that cover it (mutmut
maps tests to functions in a first clean run, over the test files listed here). The score of a
module is killed / (mutants - equivalent ones): mutants listed in bench/mutation_equivalent.txt
(name and why) are left out; every other survivor, and a mutant no test reaches, counts against
it. Fails when a module scores under --min (85%).

    .venv/bin/python bench/mutation.py                 # every mutant (the full run)
    .venv/bin/python bench/mutation.py --sample 40     # a seeded sample of each module (CI)
    .venv/bin/python bench/mutation.py --module apps/core/ids.py
    .venv/bin/python bench/mutation.py --module apps/core/ids.py --survivors  # after new tests

mutmut works in a copy (var/mutation/): apps, config, tests and pyproject.toml with a
[tool.mutmut] section for this run. apps/core/ratelimit.py's Redis path needs Redis: the tests
use REDIS_URL's server when set (`make mutation` starts a private one when it is not).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = Path(os.environ.get("MUTATION_WORK", ROOT / "var" / "mutation"))
EQUIVALENT = ROOT / "bench" / "mutation_equivalent.txt"

# module -> the test files that pin it
MODULES: dict[str, list[str]] = {
    "apps/core/ids.py": ["tests/core/test_ids.py"],
    "apps/core/pagination.py": ["tests/core/test_pagination.py"],
    "apps/core/ratelimit.py": ["tests/core/test_ratelimit_unit.py"],
    "apps/platforms/text.py": [
        "tests/platforms/test_text_units.py",
        "tests/platforms/test_platform_rules.py",
    ],
    "apps/platforms/captions.py": ["tests/platforms/test_captions.py", "tests/platforms/test_adaptation.py"],
    "apps/platforms/validation.py": [
        "tests/platforms/test_validation.py",
        "tests/platforms/test_adaptation.py",
    ],
    # the literal examples only: the properties over every format (test_adaptation_properties.py,
    # 90 Hypothesis runs, 40 s plain) take minutes a mutant under mutmut's tracing
    "apps/platforms/adaptation.py": [
        "tests/platforms/test_adaptation.py",
        "tests/platforms/test_first_comment_placement.py",
    ],
}
# mutmut's exit codes per mutant: a test failed (1, 3: pytest's internal error), or the tests ran
# past their CPU-time budget (a mutant that makes them hang is noticed too: 36, SIGXCPU 24, -24,
# 152, 255)
KILLED = {1, 3, 36, 24, -24, 152, 255}
LABELS = {0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 35: "suspicious"}


def equivalent() -> dict[str, str]:
    """``mutant name -> reason`` from bench/mutation_equivalent.txt (``name: reason`` lines)."""
    out = {}
    for line in EQUIVALENT.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(":")
            out[name.strip()] = reason.strip()
    return out


def prepare(modules: list[str]) -> None:
    """The copy mutmut works in, with its configuration (kept between runs: mutmut reruns only
    the mutants of changed code)."""
    WORK.mkdir(parents=True, exist_ok=True)
    # mutmut takes a copy newer than its source for mutants already written: another set of
    # modules, or another checkout, starts afresh
    stamp = WORK / "modules.json"
    if not stamp.exists() or json.loads(stamp.read_text()) != modules:
        shutil.rmtree(WORK / "mutants", ignore_errors=True)
    stamp.write_text(json.dumps(modules))
    for name in ("apps", "config", "tests", "templates"):
        if (WORK / name).exists():
            shutil.rmtree(WORK / name)
        shutil.copytree(
            ROOT / name, WORK / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules")
        )
    node_modules = ROOT / "tests/platforms/twitter_text/node_modules"
    if node_modules.exists():
        (WORK / "tests/platforms/twitter_text/node_modules").symlink_to(node_modules)
    shutil.copy2(ROOT / "manage.py", WORK / "manage.py")
    tests = sorted({t for m in modules for t in MODULES[m]})
    pyproject = (ROOT / "pyproject.toml").read_text()
    config = {
        "source_paths": ["apps"],
        "only_mutate": modules,
        "also_copy": ["config", "templates", "manage.py"],
        "pytest_add_cli_args_test_selection": tests,
        # --reuse-db: the DB-backed tests (pagination) create the test database once, in the clean
        # run, and each mutant's run reuses it (created anew per mutant it took 10 s, and two
        # children creating and dropping the same database at once failed each other)
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q", "-p", "no:randomly", "--reuse-db"],
    }
    section = "\n[tool.mutmut]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in config.items())
    (WORK / "pyproject.toml").write_text(pyproject + section)


def mutmut(*args: str) -> None:
    """Runs mutmut in the copy, its output (a spinner) to var/mutation/mutmut.log."""
    # the differential text tests draw fewer examples per mutant (their fixed edge cases all run)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PF_DIFFERENTIAL_EXAMPLES": "40"}
    cmd = ["nice", "-n", "10", str(Path(sys.executable).parent / "mutmut"), *args]
    with (WORK / "mutmut.log").open("a") as log:
        done = subprocess.run(cmd, cwd=WORK, env=env, check=False, stdout=log, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = (WORK / "mutmut.log").read_text(errors="replace")[-3000:]
        sys.exit(f"{tail}\nmutmut {' '.join(args[:3])}... exited {done.returncode} (var/mutation/mutmut.log)")


def results(module: str) -> dict[str, int | None]:
    meta = WORK / "mutants" / f"{module}.meta"
    return json.loads(meta.read_text())["exit_code_by_key"]


def all_mutants(module: str) -> list[str]:
    """The module's mutant names, from the trampolined copy mutmut wrote."""
    source = (WORK / "mutants" / module).read_text()
    dotted = module.removesuffix(".py").replace("/", ".")
    names = sorted(set(re.findall(r"^def (x.+?__mutmut_\d+)\(", source, re.M)))
    names += sorted(set(re.findall(r"^    def (xǁ.+?__mutmut_\d+)\(", source, re.M)))
    return [f"{dotted}.{n}" for n in names]


def wilson_upper(killed: int, n: int, z: float = 1.96) -> float:
    """The upper end of the 95% Wilson interval of a sampled score (%): a sample fails a module
    only when even that is under the minimum, so a sound module does not fail CI by chance."""
    if n == 0:
        return 100.0
    p = killed / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return 100.0 * (centre + spread) / (1 + z * z / n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", action="append", choices=sorted(MODULES), help="only these modules")
    ap.add_argument("--sample", type=int, default=0, help="run N mutants per module, drawn at random")
    ap.add_argument("--seed", type=int, default=None, help="the sample's seed (default: random, printed)")
    ap.add_argument("--min", type=float, default=85.0, help="the lowest score a module may have (%%)")
    ap.add_argument("--fresh", action="store_true", help="forget earlier results")
    ap.add_argument("--max-children", type=int, default=2)
    ap.add_argument("--report", action="store_true", help="only report the results mutmut has so far")
    ap.add_argument(
        "--survivors",
        action="store_true",
        help="rerun only the mutants that survived the last run (after adding tests: a mutant killed "
        "before stays killed, since tests are only added)",
    )
    ap.add_argument(
        "--not-gated",
        action="append",
        default=[],
        choices=sorted(MODULES),
        help="print, but never fail on, these",
    )
    args = ap.parse_args()
    modules = args.module or list(MODULES)
    if args.fresh and WORK.exists():
        shutil.rmtree(WORK)
    started = time.monotonic()
    skip = equivalent()
    if not args.report:
        prepare(modules)
    wanted: set[str] | None = None
    if args.report:
        pass
    elif args.survivors:
        chosen = [
            n
            for module in modules
            for n, code in results(module).items()
            if n not in skip and code is not None and code not in KILLED
        ]
        print(f"rerunning {len(chosen)} survivors", flush=True)
        if chosen:
            mutmut("run", "--max-children", str(args.max_children), *chosen)
    elif args.sample:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
        print(f"mutation sample: {args.sample} mutants per module, seed {seed}", flush=True)
        # generate the mutants and map the tests (with a run of the first mutant of each function
        # of the first module: mutmut writes its mutants only in a run), then draw
        first = modules[0].removesuffix(".py").replace("/", ".")
        mutmut("run", "--max-children", str(args.max_children), f"{first}.*__mutmut_1")
        rng = random.Random(seed)
        chosen: list[str] = []
        for module in modules:
            names = [n for n in all_mutants(module) if n not in skip]
            chosen += rng.sample(names, min(args.sample, len(names)))
        mutmut("run", "--max-children", str(args.max_children), *chosen)
        wanted = set(chosen)
    else:
        mutmut("run", "--max-children", str(args.max_children))
    failed = []
    print()
    print(f"{'module':34} {'mutants':>8} {'equiv.':>7} {'killed':>7} {'survived':>9} {'score':>7}")
    for module in modules:
        codes = results(module)
        if args.report:  # what has run so far
            codes = {n: c for n, c in codes.items() if c is not None}
        names = [n for n in codes if wanted is None or n in wanted]
        eq = [n for n in names if n in skip]
        counted = [n for n in names if n not in skip]
        killed = [n for n in counted if codes[n] in KILLED]
        survivors = [n for n in counted if codes[n] not in KILLED]
        score = 100.0 * len(killed) / len(counted) if counted else 100.0
        upper = wilson_upper(len(killed), len(counted)) if wanted is not None else score
        bound = f"  (95% up to {upper:.0f}%)" if wanted is not None else ""
        print(
            f"{module:34} {len(names):8} {len(eq):7} {len(killed):7} {len(survivors):9} {score:6.1f}%{bound}"
        )
        for n in survivors:
            print(f"    {LABELS.get(codes[n], f'exit {codes[n]}')}: {n}")
        if upper < args.min and module not in args.not_gated:
            failed.append(module)
    print(f"({time.monotonic() - started:.0f} s)")
    if failed:
        print(f"FAIL: under {args.min:.0f}%: {', '.join(failed)}  (`mutmut show NAME` in {WORK})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
