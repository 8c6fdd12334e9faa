"""`make run` installs the service alone; `make test` and `make lint` add the dev extra (issue 28:
a fresh clone's `make run` spent 5 3/4 of its 7 minutes on test and lint tools). Read with
`make -n` (nothing runs), on a virtualenv path of the test's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _dry(target: str, venv: Path) -> list[str]:
    done = subprocess.run(
        ["make", "-n", target, f"VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if "pip install" in line]


def test_make_run_installs_the_service_without_the_dev_tools(tmp_path):
    installs = _dry("run", tmp_path / "venv")
    assert any(line.endswith("-e .") for line in installs), installs
    assert not any("[dev]" in line for line in installs), installs


def test_make_test_and_lint_add_the_dev_extra_and_test_installs_pgbouncer(tmp_path):
    for target in ("test", "lint"):
        installs = _dry(target, tmp_path / "venv")
        assert any('-e ".[dev]"' in line for line in installs), (target, installs)
    plan = subprocess.run(
        ["make", "-n", "test", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "apt-get install -y -qq pgbouncer" in plan
