"""The outside approver's page behind a reverse proxy (issue 28): its rate limit is keyed on the
client as TRUSTED_PROXIES resolves it (approvers behind one proxy never share a budget), failed
lookups (made-up tokens) are limited per client, and every answer sends a
Content-Security-Policy.

Real processes: gunicorn (as docker/compose.yaml's `web`) behind tests/proxy.py, which appends
the client's address to X-Forwarded-For as nginx does. Clients differ by source address (all of
127.0.0.0/8 is loopback); the proxy connects from 127.0.0.1.
"""

from __future__ import annotations

import http.client
import uuid
from urllib.parse import urlsplit

import pytest

from tests.content.factories import make_content
from tests.live import reverse_proxy, wsgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PER_LINK = 3
FAILURES = 5


def get(base: str, source: str, path: str) -> tuple[int, dict[str, str], str]:
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        conn.close()


def test_approvers_behind_one_proxy_have_their_own_budgets_and_guessing_is_limited(owner, settings):
    settings.PUBLIC_BASE_URL = "http://localhost"
    content = make_content(owner.org)
    url = (
        owner.client()
        .post(f"/v1/content/cnt_{content.pk.hex}/approval-links", {}, format="json")
        .json()["url"]
    )
    path = urlsplit(url).path
    n = uuid.uuid4().int  # fresh addresses per run (counts in Redis outlive a test)
    net = f"127.{n % 250 + 1}.{(n >> 8) % 250}"
    ana, ben, guesser, cleo = (f"{net}.{i}" for i in range(2, 6))
    env = {
        "TRUSTED_PROXIES": "127.0.0.1/32",
        "APPROVAL_LINK_RATE_LIMIT": str(PER_LINK),
        "APPROVAL_LINK_FAILURE_LIMIT": str(FAILURES),
    }
    with (
        wsgi_server(workers=1, args=("--forwarded-allow-ips", "127.0.0.1"), **env) as server,
        reverse_proxy(server) as proxy,
    ):
        ana_answers = [get(proxy, ana, path) for _ in range(PER_LINK + 1)]
        ben_first = get(proxy, ben, path)  # the same link, the same proxy: Ben's own budget
        made_up = [get(proxy, guesser, f"/approve/{uuid.uuid4().hex}x/") for _ in range(FAILURES + 2)]
        guesser_real = get(proxy, guesser, path)  # past the failure budget: not looked at
        cleo_made_up = get(proxy, cleo, f"/approve/{uuid.uuid4().hex}x/")  # her own budget
        cleo_real = get(proxy, cleo, path)
    assert [a[0] for a in ana_answers] == [200] * PER_LINK + [429]
    assert "Retry-After" in {k.title() for k in ana_answers[-1][1]}
    assert ben_first[0] == 200
    assert [m[0] for m in made_up] == [410] * FAILURES + [429, 429]
    assert "Too many links that do not work" in made_up[-1][2]
    assert guesser_real[0] == 429
    assert (cleo_made_up[0], cleo_real[0]) == (410, 200)
    for status, headers, _ in (ana_answers[0], ana_answers[-1], made_up[0], made_up[-1]):
        csp = headers.get("content-security-policy", "")
        assert "script-src 'none'" in csp and "frame-ancestors 'none'" in csp, (status, headers)
        assert "form-action 'self'" in csp and "default-src 'none'" in csp
