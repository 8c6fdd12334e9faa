"""Both AsyncAPI documents pass the AsyncAPI Initiative's own parser (issue 28).

An integrator's tools (generators, AsyncAPI Studio) read the documents with `@asyncapi/parser`,
which refused both: `info/externalDocs/url` was the relative `/v1/docs/`, and the suite's
JSON-Schema check (tests/events/asyncapi_check.py) ran without a format checker, so it stayed
green. The parser is installed once, pinned, into `var/node-tools/asyncapi` (or
`POSTFORGE_NODE_TOOLS`), as tests/test_typescript_client.py installs its npm packages; Node.js
18+ with npm must be installed.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from apps.events import asyncapi
from tests.events.asyncapi_check import document_errors

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(os.environ.get("POSTFORGE_NODE_TOOLS", ROOT / "var" / "node-tools")) / "asyncapi"
PACKAGES = {"@asyncapi/parser": "3.6.0"}
SCRIPT = Path(__file__).with_name("asyncapi_parse.cjs")


def _installed(name: str) -> str | None:
    manifest = TOOLS / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def _parser() -> Path:
    """The pinned parser's node_modules, installed on first use."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, (
        f"Node.js 18+ and npm are needed (Debian: apt-get install nodejs npm); missing {missing}"
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
                str(TOOLS.parent / ".npm-cache"),
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


def _parse(documents: dict[str, dict], folder: Path) -> dict[str, dict]:
    """What the parser says of each document: {name: {parsed, errors}}."""
    paths = []
    for name, document in documents.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(document))
        paths.append(str(path))
    done = subprocess.run(
        ["node", str(SCRIPT), *paths],
        env={**os.environ, "NODE_PATH": str(_parser())},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {Path(a["path"]).stem: a for a in answers}


@pytest.mark.django_db
def test_the_official_parser_accepts_both_served_documents_and_refuses_a_relative_link(client, tmp_path):
    served = {}
    for family in ("v1", "api"):
        answer = client.get(f"/{family}/asyncapi/")
        assert answer.status_code == 200
        served[family] = answer.json()
        # the link is absolute, on the host the document was asked on
        assert served[family]["info"]["externalDocs"]["url"] == f"http://testserver/{family}/docs/"
    relative = copy.deepcopy(served["v1"])
    relative["info"]["externalDocs"]["url"] = "/v1/docs/"  # what main served
    said = _parse({**served, "relative": relative}, tmp_path)
    for family in ("v1", "api"):
        assert said[family] == {"path": said[family]["path"], "parsed": True, "errors": []}, said[family]
    # the parser is really checking: main's relative link is refused, where main's check passed it
    assert not said["relative"]["parsed"]
    assert any(e["path"] == "info/externalDocs/url" for e in said["relative"]["errors"]), said["relative"]
    # and so is the suite's JSON-Schema check now that it checks formats (`uri`)
    assert any(e.startswith("info/externalDocs:") for e in document_errors(relative))


def test_without_a_request_the_links_are_on_public_base_url(settings):
    settings.PUBLIC_BASE_URL = "https://posts.example.test"
    doc = asyncapi.document("api")
    assert doc["info"]["externalDocs"]["url"] == "https://posts.example.test/api/docs/"
    assert doc["servers"]["postforge"]["host"] == "posts.example.test"
    assert doc["servers"]["postforge"]["protocol"] == "wss"
    assert document_errors(doc) == []
