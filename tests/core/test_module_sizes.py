"""No module under apps/ is over 800 lines: a module that grows past it is split along its
concerns (issue 20), as apps/core/schema.py (schema_inputs, schema_links) and
apps/content/services (a package: creation, review, batches, labels),
apps/publishing/services, apps/generation/local_text and apps/media/processing were."""

from __future__ import annotations

from pathlib import Path

MAX_LINES = 800
APPS = Path(__file__).resolve().parents[2] / "apps"


def _lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_no_module_under_apps_is_over_800_lines():
    sizes = {
        str(path.relative_to(APPS)): _lines(path)
        for path in APPS.rglob("*.py")
        if "migrations" not in path.parts
    }
    over = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert over == {}, f"split these along their concerns (at most {MAX_LINES} lines each): {over}"
