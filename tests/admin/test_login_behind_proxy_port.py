"""The admin login on a non-default port behind a reverse proxy (issue 28): nginx's `$host`
drops the port from `Host`, so the login form's Origin (with the port) matched nothing and
Django refused it (CSRF). CSRF_TRUSTED_ORIGINS now always holds PUBLIC_BASE_URL's origin, port
included, and docs/deploy.md's snippet keeps the port (`$http_host`).

Real processes: gunicorn behind tests/proxy.py on a free (non-default) port, once dropping the
port as `$host` does and once keeping it as `$http_host` does; headless Chromium logs in.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.live import ROOT, _stop, _wait_healthy, free_port, wsgi_server

pytestmark = [pytest.mark.services, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _proxy(port: int, upstream: str, *flags: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "proxy.py"), str(port), upstream.rsplit(":", 1)[1], *flags]
    )
    _wait_healthy(proc, f"http://127.0.0.1:{port}", "the reverse proxy")
    return proc


def _log_in(browser, base: str, tmp_path, name: str) -> str:
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{base}/admin/login/")
        page.fill("#id_username", "staff")
        page.fill("#id_password", "s3cret-pass")
        page.click("input[type=submit]")
        page.wait_for_load_state()
        page.screenshot(path=str(tmp_path / f"{name}.png"))
        return page.url if page.query_selector("#site-name") and "login" not in page.url else page.content()
    finally:
        context.close()


def test_admin_login_on_a_non_default_port_behind_a_proxy(browser, staff, tmp_path):
    dropping, keeping = free_port(), free_port()
    # one public URL per proxy: each run of the service names the one it is reached at
    for port, flags in ((dropping, ("--host-without-port",)), (keeping, ())):
        public = f"http://localhost:{port}"
        with wsgi_server(workers=1, PUBLIC_BASE_URL=public) as server:
            proxy = _proxy(port, server, *flags)
            try:
                landed = _log_in(browser, public, tmp_path, f"login-{port}")
            finally:
                _stop(proxy)
        assert landed == f"{public}/admin/", landed[:2000]
