"""A TypeScript client generated from each live schema runs a whole first session, and both
schemas pass Redocly's recommended lint (issues 10 and 20).

openapi-typescript generates the types of `/v1/schema/` and of `/api/schema/` of a real server
(any warning fails the test); a user's whole first session in both families
(tests/typescript/session.ts, called through openapi-fetch: brand, upload, generate, list with
filters and pages, update, approve, schedule, scheduled list, publish, webhook and its test,
analytics, delete) must pass `tsc --strict`, including the lines that must *not* type-check
(`@ts-expect-error`: an unknown platform, a sort outside the enum, a number as a schedule
body...), and then runs under Node against the real server and a real Celery worker; what each
step answered is checked here, with the database and the webhook receiver.

The npm packages are installed once, pinned, into `var/node-tools` (or `POSTFORGE_NODE_TOOLS`)
with npm's own cache there; later runs reuse them. Node.js 18+ with npm must be installed.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import shutil
import subprocess
import zoneinfo
from pathlib import Path

import pytest

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.content.models import Content
from apps.core import ids
from apps.media.models import MediaAsset
from apps.publishing.models import Publication
from tests.content.factories import make_content
from tests.factories import ProfileFactory
from tests.live import asgi_server, celery_worker
from tests.webhooks.receiver import Receiver

pytestmark = [pytest.mark.services]

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
        "outDir": "out",
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


@contextlib.contextmanager
def broker():
    """Send tasks to the Redis broker: the worker process generates, publishes and delivers."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield app
    finally:
        app.conf.task_always_eager = previous


def _installed(name: str) -> str | None:
    manifest = TOOLS / "node_modules" / name / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def _tools() -> Path:
    """The pinned packages, installed on first use."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, (
        f"Node.js 18+ and npm are needed for this test (Debian: apt-get install nodejs npm); missing {missing}"
    )
    TOOLS.mkdir(parents=True, exist_ok=True)
    # the suite's parallel workers share the folder: one installs while the others wait
    with open(TOOLS / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _install_missing()
    return TOOLS / "node_modules"


def _install_missing() -> None:
    if any(_installed(name) != version for name, version in PACKAGES.items()):
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


def _schemas(client, folder: Path) -> None:
    for family in ("v1", "api"):
        response = client.get(f"/{family}/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
        assert response.status_code == 200
        (folder / f"{family}.json").write_bytes(response.content)


def _typescript(modules: Path, folder: Path) -> None:
    """The generated types of both schemas in `folder` (any generator warning fails)."""
    for family in ("v1", "api"):
        done = subprocess.run(
            [
                str(modules / ".bin" / "openapi-typescript"),
                str(folder / f"{family}.json"),
                "-o",
                str(folder / f"{family}.ts"),
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "warn" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
        types = (folder / f"{family}.ts").read_text()
        assert "export interface paths" in types and '"/content/{id}"' in types
        # the bodies the generators once could not type (an anyOf of partial schemas)
        for name in ("ScheduleInputRequest", "PublishInputRequest", "ConnectInputRequest"):
            if family == "v1":
                assert f"{name}: {{" in types and f"{name}: unknown" not in types, name


@pytest.mark.django_db
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


@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(900)  # tsc, then a whole session in each family through real processes
def test_typescript_clients_generated_from_both_schemas_run_a_whole_first_session(client, tmp_path):
    modules = _tools()
    _schemas(client, tmp_path)
    _typescript(modules, tmp_path)
    session = ROOT / "tests" / "typescript" / "session.ts"
    shutil.copy(session, tmp_path / "session.ts")
    assert session.read_text().count("@ts-expect-error") >= 10  # the refusals are part of what is checked
    (tmp_path / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    (tmp_path / "package.json").write_text(json.dumps({"type": "module", "private": True}))
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

    org = organization_get_or_create(name="TypeScript Client Org")
    key = api_key_create(organization=org, role="owner", name="ts").secret
    brand = Brand.objects.get(organization=org, is_default=True)
    profile_a = ProfileFactory(organization=org, brand=brand, sandbox=True, platform="instagram")
    profile_b = ProfileFactory(organization=org, brand=brand, sandbox=True, platform="instagram")
    earlier_a = make_content(org, profile=profile_a, caption="Yesterday's roast.")  # in review
    earlier_b = make_content(org, profile=profile_b, status="approved", caption="Rye on Sundays.")
    env = {"WEBHOOK_ALLOW_HTTP": "true", "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8"}
    with Receiver() as receiver, broker(), asgi_server(**env) as base, celery_worker(**env):
        run = subprocess.run(
            [
                "node",
                str(tmp_path / "out" / "session.js"),
                base,
                key,
                ids.render(profile_a.pk, "profile"),
                str(profile_b.pk),
                receiver.url,
            ],
            cwd=tmp_path,
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        steps = json.loads(run.stdout.strip().splitlines()[-1])
        kinds = sorted(json.loads(r["body"])["type"] for r in receiver.wait_for(2, timeout=60))
    _check_family_a(steps["a"], org=org, profile_a=profile_a, earlier=earlier_a)
    _check_family_b(steps["b"], org=org, profile_b=profile_b, earlier=earlier_b)
    assert kinds.count("webhook.test") == 2, kinds  # each family's test event reached the receiver


def _check_family_a(a: dict, *, org, profile_a, earlier) -> None:
    profile_id = ids.render(profile_a.pk, "profile")
    assert Brand.objects.get(pk=ids.parse(a["brand"], "brand")).name == "Sunrise Coffee"
    asset_id, kind = a["upload"]
    assert asset_id.startswith("ast_") and kind == "image"
    assert a["profiles"][1] == "instagram" and profile_id in a["profiles"][0]
    content_id, status = a["generate"]
    assert status == "generated"
    earlier_id = ids.render(earlier.pk, "content")
    assert a["list"] == [
        {"ids": [earlier_id], "total": 2, "pages": 2},
        {"ids": [content_id], "total": 2, "pages": 2},
    ]
    assert a["update"] == "Bright, floral, ours." and a["approve"] == "approved"
    assert a["schedule"][:2] == ["scheduled", "scheduled"] and a["scheduled"] == [content_id]
    when = datetime.datetime.fromisoformat(a["schedule"][2].replace("Z", "+00:00"))
    assert when.astimezone(zoneinfo.ZoneInfo("Europe/Paris")).hour == 9
    assert a["publish"][0] in ("publishing", "published") and a["publish"][1:2] == ["published"]
    assert a["publish"][2]  # the post's URL
    assert Publication.objects.get(content=earlier).status == Publication.PUBLISHED
    assert a["webhook"][1:] == [True, "webhook.test"]
    assert "metrics" in a["analytics"][0] and "profile" in a["analytics"][1]
    total_posts, profile_of, buckets = a["analyticsTyped"]  # read through the declared types
    assert isinstance(total_posts, int) and isinstance(buckets, int) and profile_of.startswith("prf_")
    assert a["delete"] == [204, 404, "NOT_FOUND"]
    assert not Content.objects.filter(pk=ids.parse(content_id, "content")).exists()


def _check_family_b(b: dict, *, org, profile_b, earlier) -> None:
    assert b["brand"][1] == "cosy"
    media_id, kind, media_type = b["upload"]
    assert (kind, media_type) == ("reference", "image")
    assert MediaAsset.objects.get(pk=media_id).brand_id == ids.parse(b["brand"][0], "brand")
    assert b["authorize"] is True and b["profile"] == [str(profile_b.pk), "valid", True]
    item_id, status = b["generate"]
    assert status == "reviewing"
    assert b["list"] == [  # oldest first: the post made before the session, then the one it generated
        {"ids": [str(earlier.pk)], "total": 2, "hasNext": True},
        {"ids": [item_id], "total": 2, "hasNext": False},
    ]
    assert b["update"] == "Warm sourdough, 7 sharp." and b["approve"] == "approved"
    assert b["schedule"] == ["scheduled", [[item_id, "scheduled"]]]
    assert b["publish"][0] in ("publishing", "published") and b["publish"][1] == "published"
    assert Publication.objects.get(content=earlier).status == Publication.PUBLISHED
    assert b["webhook"][1] == "webhook.test"
    assert b["analytics"][0] and b["analytics"][1]
    posts_now, failures, top = b["analyticsTyped"]  # read through the declared types
    assert isinstance(posts_now, int) and isinstance(failures, int) and isinstance(top, list)
    assert b["delete"] == [204, 404]
    assert not Content.objects.filter(pk=item_id).exists()
