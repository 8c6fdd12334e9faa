"""The real `manage.py serve` as `make run` starts it (migrate, collectstatic, seed_demo,
serve) on the embedded default in a temporary var/ folder: what a new user meets."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Error as PlaywrightError

from tests.live import free_port

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.services


def _env(var_dir: Path, **extra) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DATABASE_URL",
            "REDIS_URL",
            "CELERY_BROKER_URL",
            "PUBLIC_BASE_URL",
            "MEDIA_ROOT",
            "STATIC_ROOT",
            "DEV_TOKEN_KEY_PATH",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        )
    }
    env.update(
        {
            "POSTFORGE_VAR_DIR": str(var_dir),
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    env.update(extra)
    return env


def _descendants(pid: int) -> set[int]:
    """Every live process whose ancestry leads to `pid` (any session, any group)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pids) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] != "Z":
            alive.add(pid)
    return alive


class Serve:
    def __init__(self, var_dir: Path, port: int, **env):
        self.var_dir, self.port = var_dir, port
        self.env = _env(var_dir, **env)
        self.base = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.key = ""

    def prepare(self) -> Serve:
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=self.env, check=True, cwd=ROOT)
        subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=self.env, check=True, cwd=ROOT)
        seeded = subprocess.run(
            [*manage, "seed_demo"], env=self.env, check=True, cwd=ROOT, capture_output=True, text=True
        )
        self.key = seeded.stdout.strip().splitlines()[-1]
        self.login = re.search(r"staff login (\S+) / (\S+)", seeded.stderr)
        return self

    def start(self, *args) -> Serve:
        # serve writes its output to the file (its own descriptor); the test reads the file
        with open(self.var_dir / "serve.out", "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(self.port), *args],
                env=self.env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 150  # the banner waits for the worker's first heartbeat
        while "Postforge is up" not in self.output():
            assert self.proc.poll() is None, f"serve exited: {self.output()}"
            assert time.monotonic() < deadline, f"serve did not print its banner: {self.output()}"
            time.sleep(0.1)
        self.wait_for_children()
        return self

    def wait_for_children(self, count: int = 2) -> None:
        """The worker and beat have started (their Python processes)."""
        deadline = time.monotonic() + 30
        while len(_descendants(self.proc.pid)) < count:
            assert time.monotonic() < deadline, "the worker and beat did not start"
            time.sleep(0.1)

    def output(self) -> str:
        return (self.var_dir / "serve.out").read_text()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            for pid in _descendants(self.proc.pid) | {self.proc.pid}:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    s = Serve(tmp_path_factory.mktemp("serve-var"), free_port()).prepare()
    (s.var_dir / "banner.txt").write_text(  # as `make run` writes it
        f"Admin login: {s.login.group(1)} / {s.login.group(2)}\nAPI key:     {s.key}\n"
    )
    s.start("--banner-file", str(s.var_dir / "banner.txt"))
    yield s
    s.stop()


def test_admin_static_files_come_from_the_application_compressed_and_fingerprinted(serve):
    plain = requests.get(f"{serve.base}/static/admin/css/base.css", timeout=10)
    assert plain.status_code == 200 and "text/css" in plain.headers["Content-Type"]
    login = requests.get(f"{serve.base}/admin/login/", timeout=10).text
    hashed = re.search(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"', login)
    assert hashed, "the admin links its fingerprinted stylesheet"
    styled = requests.get(serve.base + hashed.group(1), headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert styled.status_code == 200
    assert styled.headers.get("Content-Encoding") in ("gzip", "br")
    assert "max-age=315360000" in styled.headers["Cache-Control"]  # fingerprinted: cached for good


@pytest.mark.parametrize("family", ["v1", "api"])
def test_api_docs_and_redoc_load_their_assets_from_the_service(serve, family):
    for page in ("docs", "redoc"):
        html = requests.get(f"{serve.base}/{family}/{page}/", timeout=10)
        assert html.status_code == 200, page
        assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css|png))"', html.text)
        assert assets, f"{page} links no assets"
        for asset in assets:
            assert asset.startswith("/static/"), f"{page} loads {asset} from elsewhere"
            assert requests.get(serve.base + asset, timeout=10).status_code == 200, asset
        assert "cdn." not in html.text and "unpkg" not in html.text


def test_one_banner_when_up_and_worker_logs_in_var_log(serve):
    out = serve.output()
    assert out.count("Postforge is up on") == 1
    assert f"http://localhost:{serve.port}/admin/" in out
    assert (
        f"API key:     {serve.key}" in out
        and f"Admin login: {serve.login.group(1)} / {serve.login.group(2)}" in out
    )
    assert "celery@" not in out and "No hostname was supplied" not in out  # no Celery banners here
    requests.post(
        f"{serve.base}/v1/content/generate",
        headers={"Authorization": f"Bearer {serve.key}"},
        json={"prompt": "A quiet harbour", "platforms": ["x"]},
        timeout=30,
    )  # enqueues on the broker
    assert "No hostname was supplied" not in serve.output()
    logs = serve.var_dir / "log"
    deadline = time.monotonic() + 30
    while not (
        (logs / "worker.log").exists()
        and "ready" in (logs / "worker.log").read_text()
        and (logs / "beat.log").exists()
    ):
        assert time.monotonic() < deadline, f"no worker/beat logs in var/log: {list(logs.iterdir())}"
        time.sleep(0.2)


def test_urls_handed_out_use_the_port_served_on(serve):
    headers = {"Authorization": f"Bearer {serve.key}"}
    connect = requests.post(
        f"{serve.base}/v1/profiles/connect",
        headers=headers,
        timeout=10,
        json={"platform": "x", "redirectUri": "https://app.example.com/connected"},
    )
    assert connect.status_code == 200, connect.text
    assert connect.json()["authUrl"].startswith(f"http://localhost:{serve.port}/"), connect.json()["authUrl"]


@pytest.mark.parametrize(
    "how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["SIGTERM", "SIGINT", "SIGKILL"]
)
def test_stopping_serve_leaves_no_worker_or_beat(tmp_path, how):
    s = Serve(tmp_path, free_port())
    s.env = _env(tmp_path)
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput", "-v0"],
        env=s.env,
        check=True,
        cwd=ROOT,
    )
    s.start()
    children = _descendants(s.proc.pid)
    try:
        assert len(children) >= 2
        os.kill(s.proc.pid, how)  # the parent only, as `kill PID` does
        s.proc.wait(timeout=15)
        deadline = time.monotonic() + 15
        while _alive(children):
            assert time.monotonic() < deadline, f"left running after {how.name}: {_alive(children)}"
            time.sleep(0.1)
    finally:
        for pid in _alive(children | _descendants(s.proc.pid)):
            os.kill(pid, signal.SIGKILL)


def test_websocket_receives_generation_progress_from_the_worker_serve_started(serve):
    """In memory in the web process, yet the worker's progress and the outbox's events arrive
    (apps.events.layers): no Redis, no other server."""
    import json

    from websockets.sync.client import connect

    headers = {"Authorization": f"Bearer {serve.key}"}
    with connect(f"ws://127.0.0.1:{serve.port}/ws/events/?token={serve.key}", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "connection.ready"
        created = requests.post(
            f"{serve.base}/v1/content/generate",
            headers=headers,
            timeout=30,
            json={"prompt": "Fresh sourdough at the corner bakery", "platforms": ["instagram", "x"]},
        )
        posted_at = time.monotonic()
        assert created.status_code in (200, 201, 202), created.text
        content_id = created.json()["id"]  # an API key's socket reads the same `cnt_` id
        seen: list[tuple[float, dict]] = []
        deadline = time.monotonic() + 90
        while True:
            message = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            seen.append((time.monotonic(), message))
            # this content's events only (an earlier test's generation may end meanwhile)
            types = {m["type"] for _, m in seen if m.get("data", {}).get("contentId") == content_id}
            # the web process's outbox sends `content.created`, the worker its progress: the two
            # paths race, so `content.created` may come after the generation has ended
            if types & {"content.generated", "content.failed"} and "content.created" in types:
                break
    types = [m["type"] for _, m in seen]
    progress = [
        m["data"]["progress"]
        for _, m in seen
        if m["type"] == "content.generation.progress" and m["data"]["contentId"] == content_id
    ]
    assert progress, f"no generation progress reached the websocket: {types}"
    assert progress == sorted(progress) and progress[-1] == 100 and len(set(progress)) >= 3, progress
    ours = [m["type"] for _, m in seen if m.get("data", {}).get("contentId") == content_id]
    generation = [t for t in ours if t.startswith("content.generat")]
    assert generation[-1] == "content.generated", ours
    # Family A's words, as GET /v1/content answers for the same object
    generated = next(
        m["data"]
        for _, m in seen
        if m["type"] == "content.generated" and m["data"]["contentId"] == content_id
    )
    rest = requests.get(f"{serve.base}/v1/content/{content_id}", headers=headers, timeout=30).json()
    assert (
        (generated["contentId"], generated["status"])
        == (rest["id"], rest["status"])
        == (content_id, "generated")
    )
    import datetime

    def lag(message):
        sent = datetime.datetime.fromisoformat(message["sentAt"].replace("Z", "+00:00"))
        return (datetime.datetime.now(datetime.UTC) - sent).total_seconds()

    assert all(lag(m) < 1.0 + (time.monotonic() - t) for t, m in seen), (
        "a message took over a second to arrive"
    )
    created_at = [t for t, m in seen if m["type"] == "content.created"]
    assert created_at and created_at[0] - posted_at < 1.0, f"content.created not within a second: {types}"


@pytest.fixture(scope="module")
def chromium():
    import shutil

    from playwright.sync_api import sync_playwright

    from tests.admin.conftest import CHROMIUM_ARGS

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            yield b
            b.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.mark.browser
def test_in_chromium_swagger_renders_operations_and_the_admin_is_styled(serve, chromium):
    shots = Path(os.environ.get("POSTFORGE_SCREENSHOTS", serve.var_dir / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    outside = []  # fetched from elsewhere (a request the page policy blocks never finishes)
    page.on(
        "requestfinished",
        lambda r: outside.append(r.url) if not r.url.startswith((serve.base, "blob:", "data:")) else None,
    )
    for family in ("v1", "api"):
        page.goto(f"{serve.base}/{family}/docs/")
        page.wait_for_selector(".opblock-summary", timeout=30000)  # operations rendered by Swagger UI
        assert page.locator(".opblock").count() > 10
        page.screenshot(path=str(shots / f"docs-{family}.png"))
    page.goto(f"{serve.base}/v1/redoc/")
    page.wait_for_selector("[data-section-id]", timeout=30000)  # ReDoc rendered the operations
    page.screenshot(path=str(shots / "redoc-v1.png"))
    page.goto(f"{serve.base}/admin/login/")
    page.fill("#id_username", serve.login.group(1))
    page.fill("#id_password", serve.login.group(2))
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    # the admin's stylesheet applied: the header has its coloured background
    assert page.locator("#header").evaluate("e => getComputedStyle(e).backgroundColor") not in (
        "rgba(0, 0, 0, 0)",
        "",
    )
    assert "No worker is alive" not in page.locator("#worker-status").inner_text()  # serve runs one
    assert "O auth" not in page.locator("#content-main").inner_text()  # models named as people write them
    page.screenshot(path=str(shots / "admin.png"))
    assert not outside, f"requests left the service: {outside[:5]}"
    context.close()


# Every value the live-progress box shows, kept in sessionStorage so that it outlives the reload
# the page does when generation ends. Only the page's websocket handler writes "NN% (stage)".
RECORD_PROGRESS = """
(() => {
  const key = "pf-progress-seen";
  document.addEventListener("DOMContentLoaded", () => {
    const label = document.getElementById("pf-progress-label");
    if (!label) return;
    const seen = JSON.parse(sessionStorage.getItem(key) || "[]");
    seen.push({label: label.textContent.trim(), rendered: true});
    sessionStorage.setItem(key, JSON.stringify(seen));
    new MutationObserver(() => {
      const now = JSON.parse(sessionStorage.getItem(key) || "[]");
      now.push({label: label.textContent.trim(), value: document.getElementById("pf-progress").value,
                status: document.getElementById("pf-status").textContent});
      sessionStorage.setItem(key, JSON.stringify(now));
    }).observe(label, {childList: true, characterData: true, subtree: true});
  });
})();
"""


@pytest.mark.browser
def test_in_chromium_the_admin_content_page_shows_live_progress_from_serves_own_worker(serve, chromium):
    """The review console under `serve` as `make run` starts it: a video generates in the
    worker serve started (another process, no Redis), and the staff page's progress bar moves
    while it does, then the page shows the generated content."""
    shots = Path(os.environ.get("POSTFORGE_SCREENSHOTS", serve.var_dir / "screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.add_init_script(RECORD_PROGRESS)
    page.goto(f"{serve.base}/admin/login/")
    page.fill("#id_username", serve.login.group(1))
    page.fill("#id_password", serve.login.group(2))
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")

    # A 6 s H.264 video takes the worker a few seconds on the CPU: time for the page to subscribe.
    created = requests.post(
        f"{serve.base}/v1/content/generate",
        headers={"Authorization": f"Bearer {serve.key}"},
        json={
            "prompt": "A lighthouse keeper's morning on the Cornish coast",
            "platforms": ["tiktok"],
            "media": {"type": "video", "postType": "short"},
        },
        timeout=30,
    )
    assert created.status_code in (200, 201, 202), created.text
    content_id = created.json()["id"].removeprefix("cnt_")
    page.goto(f"{serve.base}/admin/content/content/{content_id}/change/")
    rendered = int(page.locator("#pf-progress").get_attribute("value"))
    assert rendered < 100, "the page was rendered after generation ended: nothing left to watch"
    # the websocket handler writes "NN% (stage)": a figure the server did not render
    page.wait_for_function(
        "() => /\\(\\w+\\)/.test(document.getElementById('pf-progress-label')?.textContent || '')"
        " || !document.getElementById('pf-live')",
        timeout=60000,
    )
    try:  # mid-generation unless it just ended
        page.screenshot(path=str(shots / "admin-live-progress.png"))
    except PlaywrightError:  # the page was reloading itself into review at that moment: take the next frame
        page.wait_for_load_state()
        page.screenshot(path=str(shots / "admin-live-progress.png"))

    # generation ends: the page reloads itself and shows the generated item and its video
    page.wait_for_selector("#pf-approve", timeout=90000)
    assert page.locator("#pf-live").count() == 0
    assert page.locator("#pf-status").inner_text().strip().lower() == "review"  # waiting for a reviewer
    page.wait_for_selector("#pf-media video")
    assert (
        page.locator("[data-platform=tiktok] h3").inner_text().startswith("TikTok")
    )  # the platform's own name
    page.screenshot(path=str(shots / "admin-generated.png"))
    seen = page.evaluate("() => JSON.parse(sessionStorage.getItem('pf-progress-seen') || '[]')")
    live = [int(s["value"]) for s in seen if not s.get("rendered")]
    assert live and live == sorted(live) and live[-1] <= 100, seen
    assert any(rendered < v < 100 for v in live), f"no intermediate progress reached the page: {seen}"
    assert all(s["status"] == "generating" for s in seen if not s.get("rendered")), seen  # the status follows
    context.close()


def test_the_banner_comes_once_a_worker_is_alive_and_readiness_says_so_at_once(serve):
    """Issue 28: /readyz said no worker was alive for about 45 s after the banner. The banner now
    waits for a worker's heartbeat, so the first look after it sees one (staff see the details;
    the public reads ok)."""
    from tests.live import staff_session

    assert requests.get(f"{serve.base}/readyz", timeout=10).json() == {"status": "ok"}
    staff = staff_session(serve.base, serve.login.group(1), serve.login.group(2))
    body = staff.get(f"{serve.base}/readyz", timeout=10).json()
    assert body["workers"]["alive"] >= 1, body
    # generations have a worker of their own, as in compose (issue 33)
    assert "generation" in body["workers"]["queues"], body
    logs = serve.var_dir / "log"
    assert (logs / "worker-generation.log").exists() and (logs / "worker.log").exists()
