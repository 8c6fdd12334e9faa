"""The admin's analytics and failures pages under the real `manage.py serve` as `make run`
starts it (migrate, collectstatic, seed_demo, serve) on the embedded default, in headless
Chromium: the demo organization's sandbox posts are measured by serve's own beat and worker
(the real collection), the page's stylesheets and scripts come from serve itself (WhiteNoise)
and the charts are drawn with the figures the API gives for the same posts."""

from __future__ import annotations

import datetime
import os
import sqlite3
import time
from pathlib import Path

import pytest
import requests

from tests.core.test_serve import ROOT, Serve
from tests.live import free_port

pytestmark = [pytest.mark.services, pytest.mark.browser]

SCREENSHOTS = ROOT / "var" / "screenshots"
# days ago of the posts published on the demo's Instagram profile and on an X profile
INSTAGRAM_DAYS, X_DAYS = (1.5, 3, 6, 10, 18), (2, 6, 14)

SEED = """
import datetime
from django.utils import timezone
from apps.accounts.models import Organization
from apps.profiles.models import SocialProfile
from apps.publishing.models import Publication, SandboxPost
from tests.content.factories import make_content

org = Organization.objects.get(name="Demo")
ig = SocialProfile.objects.get(organization=org, platform="instagram", external_id="sandbox-demo")
x = SocialProfile.objects.create(organization=org, brand=ig.brand, platform="x", external_id="sandbox-demo-x",
                                 username="demo_x", sandbox=True, connected_at=timezone.now(), follower_count=250)
for profile, days in ((ig, {ig_days}), (x, {x_days})):
    for days_ago in days:
        when = timezone.now() - datetime.timedelta(days=days_ago)
        content = make_content(org, brand=ig.brand, status="published", image=False, platforms=(profile.platform,))
        post = SandboxPost.objects.create(organization=org, profile=profile, platform=profile.platform,
                                          reference=str(content.pk), external_id=f"sbx-{{content.pk.hex[:16]}}")
        SandboxPost.objects.filter(pk=post.pk).update(created_at=when)
        Publication.objects.create(organization=org, content=content, profile=profile, platform=profile.platform,
                                   scheduled_for=when, due_at=when, status="published", published_at=when,
                                   external_id=post.external_id)
# a refused post: the failures page's one group
failed = make_content(org, brand=ig.brand, status="published", image=False, platforms=("instagram",))
Publication.objects.create(organization=org, content=failed, profile=ig, platform="instagram",
                           scheduled_for=timezone.now(), due_at=timezone.now(), status="failed",
                           error_code="media_refused", last_error="Sandbox: this post was refused (media not accepted).")
print(org.pk)
"""


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """serve with its beat sweeping for metrics every 10 s (the default is 10 minutes)."""
    s = Serve(
        tmp_path_factory.mktemp("serve-analytics"),
        free_port(),
        ANALYTICS_SWEEP_INTERVAL="10",
        ANALYTICS_FOLLOWERS_INTERVAL="10",
    ).prepare()
    import subprocess
    import sys

    seeded = subprocess.run(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "shell",
            "-c",
            SEED.format(ig_days=INSTAGRAM_DAYS, x_days=X_DAYS),
        ],
        env=s.env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    s.org_pk = seeded.stdout.strip().splitlines()[-1]
    s.start()
    yield s
    s.stop()


def _measured(serve) -> tuple[int, int]:
    """(posts with a snapshot, profiles with a follower snapshot) in serve's own database."""
    with sqlite3.connect(serve.var_dir / "postforge.sqlite3", timeout=10) as db:
        posts = db.execute("select count(distinct publication_id) from analytics_postsnapshot").fetchone()[0]
        profiles = db.execute(
            "select count(distinct profile_id) from analytics_profilesnapshot where followers is not null"
        ).fetchone()[0]
    return posts, profiles


def _api_totals(serve, platform: str) -> dict:
    start = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=29)).date().isoformat()
    body = requests.get(
        f"{serve.base}/v1/analytics/content",
        params={"groupBy": "day", "platform": platform, "startDate": start},
        headers={"Authorization": f"Bearer {serve.key}"},
        timeout=30,
    )
    assert body.status_code == 200, body.text
    return body.json()["metrics"]


# Per chart and series: the values pygal wrote and the bars/dots as the browser laid them out.
DRAWN = """(chart) => {
  const svg = document.querySelector(`#${chart} svg`);
  const box = svg.getBoundingClientRect();
  const legend = [...svg.querySelectorAll(".legends .legend text")].map(t => t.textContent);
  const series = legend.map((_, i) => {
    const in_ = (selector) => [...svg.querySelectorAll(`.serie-${i} ${selector}`)];
    return {
      values: in_("desc.value").map(d => Number(d.textContent.replace(/,/g, ""))),
      bars: in_("rect.rect").map(r => r.getBBox().height),
      dots: in_("circle.dot").filter(c => c.getBBox().width > 0).length,
    };
  });
  return {width: box.width, height: box.height, series, legend};
}"""


def test_in_chromium_the_analytics_pages_under_serve_chart_what_serves_worker_measured(serve):
    # serve's beat and worker measure the eight posts and both profiles (the sandbox's metrics)
    deadline = time.monotonic() + 120
    while _measured(serve) != (len(INSTAGRAM_DAYS) + len(X_DAYS), 2):
        assert time.monotonic() < deadline, (
            f"not measured by serve's worker: {_measured(serve)}\n"
            + (serve.var_dir / "log" / "worker.log").read_text()[-5000:]
        )
        time.sleep(1)
    api = {p: _api_totals(serve, p) for p in ("instagram", "x")}
    assert api["instagram"]["totalPosts"] == len(INSTAGRAM_DAYS) and api["x"]["totalPosts"] == len(X_DAYS)
    assert api["instagram"]["totalReach"] > 0 and api["x"]["totalEngagement"] > 0

    from playwright.sync_api import sync_playwright

    from tests.admin.conftest import CHROMIUM_ARGS

    shots = Path(os.environ.get("POSTFORGE_SCREENSHOTS", SCREENSHOTS))
    shots.mkdir(parents=True, exist_ok=True)
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            import shutil

            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            responses = []
            page.on("response", lambda r: responses.append((r.url, r.status, r.request.resource_type)))
            page.goto(f"{serve.base}/admin/login/")
            page.fill("#id_username", serve.login.group(1))
            page.fill("#id_password", serve.login.group(2))
            page.click("input[type=submit]")
            page.wait_for_selector("#site-name")
            responses.clear()
            page.goto(f"{serve.base}/admin/analytics/?org={serve.org_pk}&days=30&groupBy=day")
            page.wait_for_load_state("networkidle")

            # every stylesheet and script the page loads is served by serve, from its static files
            assets = [(u, s) for u, s, kind in responses if kind in ("stylesheet", "script")]
            assert {u.rsplit(".", 1)[-1] for u, _ in assets} >= {"css", "js"}, assets
            assert all(u.startswith(f"{serve.base}/static/") and s == 200 for u, s in assets), assets
            assert all(u.startswith(serve.base) for u, _, _ in responses), responses
            # and applied: the admin header's colour, the cards' borders from the page's style block
            assert page.locator("#header").evaluate("e => getComputedStyle(e).backgroundColor") not in (
                "rgba(0, 0, 0, 0)",
                "",
            )
            assert (
                page.locator(".pf-card").first.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
            )

            # the charts as drawn: one series per platform, bars as tall as the API's figures
            for chart, figure in (
                ("chart-posts", "totalPosts"),
                ("chart-reach", "totalReach"),
                ("chart-engagement", "totalEngagement"),
            ):
                drawn = page.evaluate(DRAWN, chart)
                assert drawn["width"] > 600 and drawn["height"] > 150, drawn
                assert drawn["legend"] == ["instagram", "x"], drawn["legend"]
                for series, platform, days in zip(
                    drawn["series"], ("instagram", "x"), (INSTAGRAM_DAYS, X_DAYS), strict=True
                ):
                    assert len(series["values"]) == 31  # a bucket per day of the 30-day window
                    assert sum(series["values"]) == api[platform][figure], (chart, platform, series["values"])
                    # one visible bar per day with a post (every post has likes, so reach and engagement > 0)
                    assert sum(1 for h in series["bars"] if h > 0) == len(days), (chart, series["bars"])
            followers = page.evaluate(DRAWN, "chart-followers")
            assert followers["legend"] == ["instagram @demo.sandbox", "x @demo_x"]
            assert [s["values"] for s in followers["series"]] == [[1000], [250]]
            assert all(s["dots"] == 1 for s in followers["series"]), followers  # today's snapshot, drawn
            top = page.locator("#pf-top-posts tbody tr")
            assert top.count() == 5 and top.first.locator("a").count() == 1
            page.screenshot(path=str(shots / "serve-admin-analytics.png"), full_page=True)

            page.goto(f"{serve.base}/admin/analytics/failures/?org={serve.org_pk}")
            row = page.locator("#pf-failures tr[data-kind=publishing]")
            assert row.count() == 1 and "media not accepted" in row.inner_text()
            assert page.inner_text("#pf-failures-summary").startswith("1 failure")
            page.screenshot(path=str(shots / "serve-admin-failures.png"), full_page=True)
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
