"""The review console against the real `manage.py serve`, started as `make run` starts it
(migrate, collectstatic, seed_demo, serve with its worker and beat) on the embedded default in
a temporary var/ folder, driven in headless Chromium. One server for the whole package."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.admin.conftest import CHROMIUM_ARGS
from tests.core.test_serve import ROOT, Serve
from tests.live import free_port

SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


class ReviewServe(Serve):
    def seed(self) -> subprocess.CompletedProcess:
        """`make run`'s seed step: the demo key of the last run is reused while it is active."""
        key_file = self.var_dir / "demo-key.txt"
        seeded = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "seed_demo", "--key-file", str(key_file)],
            env=self.env,
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        key_file.write_text(seeded.stdout.strip().splitlines()[-1] + "\n")
        return seeded

    def prepare(self) -> ReviewServe:
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=self.env, check=True, cwd=ROOT)
        subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=self.env, check=True, cwd=ROOT)
        seeded = self.seed()
        self.key = seeded.stdout.strip().splitlines()[-1]
        self.login = re.search(r"staff login (\S+) / (\S+)", seeded.stderr)
        return self

    def python(self, code: str) -> str:
        """Run `code` in a Django shell on the server's own database; its stdout."""
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "shell", "--no-imports", "-c", code],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def v1(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.key}", **kwargs.pop("headers", {})}
        return requests.request(method, f"{self.base}/v1{path}", headers=headers, timeout=60, **kwargs)

    def generate(self, prompt: str, platforms: list[str], **extra) -> dict:
        body = {"prompt": prompt, "platforms": platforms, **extra}
        answer = self.v1("POST", "/content/generate?wait=30", json=body)
        assert answer.status_code in (200, 201, 202), answer.text
        content = answer.json()
        deadline = time.monotonic() + 90
        while content["status"] in ("pending", "generating"):
            assert time.monotonic() < deadline, content
            time.sleep(0.5)
            content = self.v1("GET", f"/content/{content['id']}").json()
        return content

    def staff_user(
        self, username: str, password: str, *, reviewer: bool = False, member: bool = True
    ) -> None:
        """A staff account (a superuser, or a member of the Reviewer group), made as the README
        says: a reviewer is also a member of the organizations it reviews (the demo's here,
        unless ``member=False``)."""
        self.python(
            "from django.contrib.auth import get_user_model; from django.contrib.auth.models import Group\n"
            "from apps.accounts.models import Membership, Organization\n"
            f"u, _ = get_user_model().objects.get_or_create(username={username!r})\n"
            f"u.is_staff = True; u.is_superuser = {not reviewer}; u.set_password({password!r}); u.save()\n"
            + ("u.groups.add(Group.objects.get(name='Reviewer'))\n" if reviewer else "")
            + (
                "for org in Organization.objects.all():\n"
                "    Membership.objects.get_or_create(organization=org, user=u, defaults={'role': 'editor'})\n"
                if reviewer and member
                else ""
            )
        )


@pytest.fixture(scope="session")
def serve(tmp_path_factory):
    s = ReviewServe(tmp_path_factory.mktemp("review-var"), free_port()).prepare()
    (s.var_dir / "banner.txt").write_text(
        f"Admin login: {s.login.group(1)} / {s.login.group(2)}\nAPI key:     {s.key}\n"
    )
    s.start("--banner-file", str(s.var_dir / "banner.txt"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    import os
    import shutil

    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or "/usr/bin/chromium"
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            yield b
            b.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def shot(page, name: str, *, full_page: bool = True) -> Path:
    """A screenshot kept under var/screenshots/ (read them: the page is the product)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def login(browser, serve, username: str, password: str, *, width: int = 1400):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{serve.base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    return page


def pretty(value) -> str:
    return json.dumps(value, indent=1)[:2000]
