"""A 401 says how to authenticate and what budget is left; failures are throttled per address."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def _address() -> str:
    # a fresh address per test: counts in Redis outlive a test
    n = uuid.uuid4().int
    return f"10.{n % 250}.{(n >> 8) % 250}.{(n >> 16) % 250 + 1}"


@pytest.mark.parametrize("path", ["/v1/brands", "/api/brands"])
def test_a_401_carries_a_bearer_challenge_and_the_rate_limit_headers(path, settings):
    settings.AUTH_FAILURE_LIMIT = 5
    address = _address()
    missing = APIClient(REMOTE_ADDR=address).get(path)
    assert missing.status_code == 401
    assert missing["WWW-Authenticate"] == 'Bearer realm="postforge"'
    assert (missing["X-RateLimit-Limit"], missing["X-RateLimit-Remaining"]) == ("5", "4")
    assert int(missing["X-RateLimit-Reset"]) > 0
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION="Bearer pf_live_wrong")
    wrong = client.get(path)
    assert wrong.status_code == 401
    assert wrong["WWW-Authenticate"] == 'Bearer realm="postforge", error="invalid_token"'
    assert wrong["X-RateLimit-Remaining"] == "3"


@pytest.mark.parametrize("family", ["v1", "api"])
def test_failed_authentication_is_throttled_per_client_address(family, settings, owner):
    settings.AUTH_FAILURE_LIMIT = 3
    address = _address()
    guesser = APIClient(REMOTE_ADDR=address)
    guesser.credentials(HTTP_AUTHORIZATION="Bearer pf_live_guess")
    assert [guesser.get(f"/{family}/brands").status_code for _ in range(3)] == [401, 401, 401]
    refused = guesser.get(f"/{family}/brands")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    body = refused.json()
    code = body["error"]["code"] if family == "v1" else body["details"]["code"]
    assert code == "RATE_LIMIT_ERROR"
    # past the limit a request without credentials is refused unchecked, a wrong key too...
    assert APIClient(REMOTE_ADDR=address).get(f"/{family}/brands").status_code == 429
    # ...but a valid key from that address is served (issue 20: the budget never locks out
    # valid credentials, or one client behind a shared address denies everyone else)
    valid_from_there = APIClient(REMOTE_ADDR=address)
    valid_from_there.credentials(HTTP_AUTHORIZATION=f"Bearer {owner.key}")
    assert valid_from_there.get(f"/{family}/brands").status_code == 200
    assert guesser.get(f"/{family}/brands").status_code == 429
    # ...while another address is not affected
    elsewhere = APIClient(REMOTE_ADDR=_address())
    elsewhere.credentials(HTTP_AUTHORIZATION=f"Bearer {owner.key}")
    assert elsewhere.get(f"/{family}/brands").status_code == 200


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "client"),
    [
        ("10.0.0.5", "", "10.0.0.5"),  # no proxy
        ("203.0.113.9", "198.51.100.7", "203.0.113.9"),  # an untrusted peer's header is ignored
        ("10.0.0.5", "198.51.100.7", "198.51.100.7"),  # the trusted proxy names the client
        ("10.0.0.5", "1.1.1.1, 198.51.100.7", "198.51.100.7"),  # what the client wrote is left of it
        ("10.0.0.5", "198.51.100.7, 10.0.0.9", "198.51.100.7"),  # two trusted hops
        ("10.0.0.5", "10.0.0.8, 10.0.0.9", "10.0.0.8"),  # only proxies: the farthest
        ("10.0.0.5", "garbage, 198.51.100.7", "198.51.100.7"),
        ("10.0.0.5", "198.51.100.7, garbage", "10.0.0.5"),  # a bad hop ends the walk
        ("10.0.0.5", "[2001:db8::1]:443", "2001:db8::1"),
        ("10.0.0.5", "198.51.100.7:5123", "198.51.100.7"),
        ("::ffff:10.0.0.5", "198.51.100.7", "198.51.100.7"),  # IPv4-mapped peer
    ],
)
def test_the_client_address_behind_trusted_proxies(peer, forwarded_for, client, settings):
    from apps.core.proxies import client_ip

    settings.TRUSTED_PROXIES = ["10.0.0.0/24"]
    assert client_ip(peer, forwarded_for) == client


@pytest.mark.parametrize("family", ["v1", "api"])
def test_behind_a_trusted_proxy_each_client_has_its_own_failure_budget(family, settings, owner):
    settings.AUTH_FAILURE_LIMIT = 2
    settings.TRUSTED_PROXIES = ["10.99.0.0/16"]
    proxy = "10.99.0.1"
    one, two = _address(), _address()
    guesser = APIClient(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=one)
    guesser.credentials(HTTP_AUTHORIZATION="Bearer pf_live_guess")
    assert [guesser.get(f"/{family}/brands").status_code for _ in range(3)] == [401, 401, 429]
    assert APIClient(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=two).get(f"/{family}/brands").status_code == 401
