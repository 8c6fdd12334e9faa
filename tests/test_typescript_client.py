"""A TypeScript client generated from each live schema compiles a first session, and both
schemas pass Redocly's recommended lint (issue 10).

openapi-typescript generates the types of `/v1/schema/` and of `/api/schema/`; the README's
first session in both families (tests/typescript/session.ts, called through openapi-fetch)
must then pass `tsc --strict --noEmit`, including the lines that must *not* type-check
(`@ts-expect-error`: an unknown platform, a sort outside the enum...).

The npm packages are installed once, pinned, into `var/node-tools` (or `POSTFORGE_NODE_TOOLS`)
with npm's own cache there; later runs reuse them. Node.js 18+ with npm must be installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db]

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(os.environ.get("POSTFORGE_NODE_TOOLS", ROOT / "var" / "node-tools"))
PACKAGES = {
    "openapi-typescript": "7.13.0",
    "typescript": "5.9.3",
    "openapi-fetch": "0.17.0",
    "@redocly/cli": "2.77.0",
}
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "noEmit": True,
        "target": "ES2022",
        "module": "ESNext",
        "moduleResolution": "Bundler",
        "lib": ["ES2022", "DOM"],
        "noUncheckedIndexedAccess": True,
        "skipLibCheck": False,
        "types": [],
    },
    "files": ["session.ts", "v1.ts", "api.ts"],
}


def _installed(name: str) -> str | None:
    manifest = TOOLS / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def _tools() -> Path:
    """The pinned packages, installed on first use."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, (
        f"Node.js 18+ and npm are needed for this test (Debian: apt-get install nodejs npm); missing {missing}"
    )
    if any(_installed(name) != version for name, version in PACKAGES.items()):
        TOOLS.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--cache",
                str(TOOLS / ".npm-cache"),
                "--prefix",
                str(TOOLS),
                *[f"{name}@{version}" for name, version in PACKAGES.items()],
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return TOOLS / "node_modules"


def _schemas(client, folder: Path) -> None:
    for family in ("v1", "api"):
        response = client.get(f"/{family}/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
        assert response.status_code == 200
        (folder / f"{family}.json").write_bytes(response.content)


def test_both_schemas_pass_redocly_lint_with_the_recommended_rules(client, tmp_path):
    modules = _tools()
    _schemas(client, tmp_path)
    for family in ("v1", "api"):
        done = subprocess.run(
            [
                str(modules / ".bin" / "redocly"),
                "lint",
                "--extends",
                "recommended",
                "--format",
                "json",
                str(tmp_path / f"{family}.json"),
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "REDOCLY_TELEMETRY": "off"},
        )
        report = json.loads(done.stdout[done.stdout.index("{") :])
        errors = [p for p in report["problems"] if p["severity"] == "error"]
        assert not errors and report["totals"]["errors"] == 0, (family, json.dumps(errors[:20], indent=1))
        assert done.returncode == 0, (family, done.stdout[-2000:], done.stderr[-2000:])


def test_typescript_clients_generated_from_both_schemas_compile_a_first_session(client, tmp_path):
    modules = _tools()
    _schemas(client, tmp_path)
    for family in ("v1", "api"):
        done = subprocess.run(
            [
                str(modules / ".bin" / "openapi-typescript"),
                str(tmp_path / f"{family}.json"),
                "-o",
                str(tmp_path / f"{family}.ts"),
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "warn" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
        types = (tmp_path / f"{family}.ts").read_text()
        assert "export interface paths" in types and '"/content/{id}"' in types

    session = ROOT / "tests" / "typescript" / "session.ts"
    shutil.copy(session, tmp_path / "session.ts")
    assert session.read_text().count("@ts-expect-error") >= 5  # the refusals are part of what is checked
    (tmp_path / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    (tmp_path / "node_modules").symlink_to(modules, target_is_directory=True)
    done = subprocess.run(
        [str(modules / ".bin" / "tsc"), "-p", str(tmp_path / "tsconfig.json")],
        cwd=tmp_path,
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
