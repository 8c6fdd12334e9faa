"""Behind a reverse proxy one client's failed authentications lock out no one else, and a
valid credential is never refused by the failure budget (issue 20).

Real processes: gunicorn (as docker/compose.yaml's `web`) or uvicorn (`ws`, which serves the
API too), with TRUSTED_PROXIES naming the proxy, behind tests/proxy.py, a small reverse proxy
of its own process that appends the client's address to X-Forwarded-For as nginx and Caddy
do. Clients on this machine differ by source address (all of 127.0.0.0/8 is loopback): the attacker, another
client, a client that skips the proxy and forges the header; the proxy connects from
127.0.0.1."""

from __future__ import annotations

import http.client
import json
import uuid
from urllib.parse import urlsplit

import pytest

from tests.live import asgi_server, reverse_proxy, wsgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

LIMIT = 30
SERVER_ENV = {"AUTH_FAILURE_LIMIT": str(LIMIT), "TRUSTED_PROXIES": "127.0.0.1/32"}


def call(base: str, source: str, *, key: str | None = None, forwarded_for: str | None = None):
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30, source_address=(source, 0))
    headers = {}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    try:
        conn.request("GET", "/v1/brands", headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


@pytest.fixture(params=["gunicorn", "uvicorn"])
def server(request):
    if request.param == "gunicorn":
        with wsgi_server(args=("--forwarded-allow-ips", "127.0.0.1"), **SERVER_ENV) as base:
            yield base
    else:
        with asgi_server(FORWARDED_ALLOW_IPS="127.0.0.1", **SERVER_ENV) as base:
            yield base


def test_a_valid_key_works_after_30_failures_from_the_same_proxy_address_and_a_forged_header_is_ignored(
    server, owner
):
    # fresh addresses per run (counts in Redis outlive a test): 127.A.B.2, .3, ...
    n = uuid.uuid4().int
    net = f"127.{n % 250 + 1}.{(n >> 8) % 250}"
    attacker, other, direct, named, named2 = (f"{net}.{i}" for i in range(2, 7))
    with reverse_proxy(server) as proxy:
        # the attacker, through the proxy, even naming someone else in its own X-Forwarded-For
        failures = [call(proxy, attacker, key="pf_live_guessguessguess", forwarded_for=other)[0]]
        failures += [call(proxy, attacker, key="pf_live_guessguessguess")[0] for _ in range(LIMIT + 4)]
        assert failures == [401] * LIMIT + [429] * 5
        status, body = call(proxy, attacker)  # nothing to check, past the budget: refused
        assert (status, body["error"]["code"]) == (429, "RATE_LIMIT_ERROR")
        # a valid key is checked and served, from the attacker's own address too
        assert call(proxy, attacker, key=owner.key)[0] == 200
        assert call(proxy, other, key=owner.key)[0] == 200
        # another client behind the same proxy has its own budget
        assert call(proxy, other)[0] == 401
        # a client reaching the server directly (an untrusted peer) that forges the header is
        # counted as itself: its failures are its own, and not the address it named
        forged = [
            call(server, direct, key="pf_live_forgedforged", forwarded_for=named)[0] for _ in range(LIMIT + 1)
        ]
        assert forged == [401] * LIMIT + [429]
        assert call(proxy, named)[0] == 401  # the named address's budget is untouched
        assert call(server, direct, forwarded_for=named2)[0] == 429
