from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    """Per module: Playwright's sync API keeps an event loop running in this thread while
    the browser is open, which would break later tests that call asyncio.run()."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(executable):
        raise RuntimeError("Chromium is not installed: `apt-get install chromium` (.ci/run does it)")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # playwright's sync API runs an event loop
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


@pytest.fixture
def staff(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("staff", "staff@example.com", "s3cret-pass")


@pytest.fixture
def admin_page(browser, live_server, staff):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "staff")
    page.fill("#id_password", "s3cret-pass")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    yield page
    context.close()
