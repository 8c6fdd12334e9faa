"""Both OpenAPI schemas, fuzzed by schemathesis against a real server on the test database.

An organization with an owner API key and a few objects (a brand, a sandbox profile, a
generated content item) is created first; then a real uvicorn server runs and the
schemathesis CLI fuzzes every operation of `/v1/schema/` and of `/api/schema/` (Family B
takes the same API key). Every response must be a non-5xx, with a declared status code,
content type, body schema and headers.

The rate limits are raised for the server so that the fuzzing is not throttled (429 is
still declared everywhere). Generation requests enqueue to a filesystem broker private to
this test (no worker consumes it), so nothing is left behind in Redis for other tests.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from tests.content.factories import make_content
from tests.factories import ProfileFactory
from tests.live import asgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
ST = ROOT / ".venv" / "bin" / "st"
CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
])
#: seconds per family; both together (with the server's start) stay under ~4 minutes
MAX_TIME = int(os.environ.get("SCHEMATHESIS_MAX_TIME", "100"))
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25"))


@pytest.fixture
def tenant(tmp_path):
    org = organization_get_or_create(name="Schemathesis Org")
    key = api_key_create(organization=org, role="owner", name="schemathesis").secret
    brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(organization=org, brand=brand, sandbox=True)
    make_content(org, status="review", profile=profile)
    return org, key


def _schemathesis(base: str, family: str, key: str, report_dir: Path) -> subprocess.CompletedProcess:
    cmd = [
        str(ST), "run", f"{base}/{family}/schema/", "--url", base,
        "-H", f"Authorization: Bearer {key}",
        "--checks", CHECKS,
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", str(MAX_EXAMPLES),
        "--max-time", str(MAX_TIME),
        "--workers", "2",
        "--request-timeout", "30",
        "--seed", os.environ.get("SCHEMATHESIS_SEED", str(int(time.time()))),
        "--generation-database", "none",
        "--no-color",
        "--report", "junit", "--report-dir", str(report_dir),
    ]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=MAX_TIME + 90)


def test_both_schemas_hold_against_a_live_server(tenant, tmp_path):
    _, key = tenant
    var = tmp_path / "var"
    var.mkdir()
    server_env = {
        "RATE_LIMIT_DEFAULT": 1_000_000, "RATE_LIMIT_GENERATION": 1_000_000, "RATE_LIMIT_BATCH": 1_000_000,
        # tasks go to a broker folder of this test only: no worker, nothing left in Redis
        "POSTFORGE_VAR_DIR": var, "CELERY_BROKER_URL": "filesystem://",
    }
    results = {}
    with asgi_server(**server_env) as base:
        for family in ("v1", "api"):
            results[family] = _schemathesis(base, family, key, tmp_path / f"report-{family}")
    failed = {family: r for family, r in results.items() if r.returncode != 0}
    for family, r in results.items():
        summary = r.stdout[r.stdout.rfind("SUMMARY"):] if "SUMMARY" in r.stdout else r.stdout[-3000:]
        print(f"\n===== schemathesis /{family}/schema/ (exit {r.returncode}) =====\n{summary}")
    assert not failed, "\n\n".join(
        f"===== /{family}/schema/ exit {r.returncode} =====\n{r.stdout[-20000:]}\n{r.stderr[-3000:]}"
        for family, r in failed.items()
    )
