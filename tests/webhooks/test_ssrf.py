"""Every SSRF form the issue lists is refused at registration, and a name that resolves
public at registration and private at delivery (DNS rebinding) is refused at connect time."""

from __future__ import annotations

import pytest

from apps.core import outbound
from apps.webhooks import services
from apps.webhooks.models import WebhookAttempt

pytestmark = pytest.mark.django_db

FORMS = [
    "https://127.0.0.1/hook",
    "https://localhost/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://10.0.0.5/hook",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://0x7f000001/hook",
    "https://2130706433/hook",
    "https://127.1/hook",
    "https://0177.0.0.1/hook",
    "https://192.168.1.10/hook",
    "https://172.16.0.1/hook",
    "https://100.64.0.1/hook",
    "https://224.0.0.1/hook",
    "https://[fd00::1]/hook",
    "https://[fe80::1]/hook",
    "https://[2002:7f00:1::]/hook",
    "https://0.0.0.0/hook",
]


@pytest.fixture
def public_dns(monkeypatch):
    table = {
        "hooks.example.com": ["93.184.216.34"],
        "internal.example.com": ["10.1.2.3"],
        "mixed.example.com": ["93.184.216.34", "127.0.0.1"],
    }

    def resolve(host, port):
        if host not in table:
            raise OSError("no such host")
        return table[host]

    monkeypatch.setattr(outbound, "resolve", resolve)
    return table


@pytest.mark.parametrize("url", FORMS)
def test_form_refused_in_both_families(owner, url, settings, public_dns):
    settings.WEBHOOK_ALLOWED_CIDRS = []
    r = owner.client().post("/v1/webhooks", {"url": url, "events": ["*"]}, format="json")
    assert r.status_code == 400, (url, r.content)
    assert r.json()["error"]["code"] == "VALIDATION_ERROR" and "url" in r.json()["error"]["details"]
    r = owner.client().post("/api/webhooks", {"url": url, "events": ["*"]}, format="json")
    assert r.status_code == 400 and "url" in r.json()["details"]


@pytest.mark.parametrize(
    "url",
    [
        "https://internal.example.com/hook",
        "https://mixed.example.com/hook",
        "http://hooks.example.com/hook",
        "https://hooks.example.com:8443/hook",
        "https://nowhere.example.com/hook",
        "ftp://hooks.example.com/x",
        "https://user:pw@hooks.example.com/hook",
    ],
)
def test_names_schemes_and_ports_refused(owner, url, public_dns):
    r = owner.client().post("/v1/webhooks", {"url": url, "events": ["*"]}, format="json")
    assert r.status_code == 400, (url, r.content)


def test_public_name_accepted(owner, public_dns):
    r = owner.client().post(
        "/v1/webhooks", {"url": "https://hooks.example.com/hook", "events": ["*"]}, format="json"
    )
    assert r.status_code == 201


def test_allowed_cidrs_exempt_and_http_flag(owner, settings):
    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]
    assert (
        owner.client()
        .post("/v1/webhooks", {"url": "https://127.0.0.1:8443/h", "events": ["*"]}, format="json")
        .status_code
        == 201
    )
    assert (
        owner.client()
        .post("/v1/webhooks", {"url": "http://127.0.0.1:8443/h", "events": ["*"]}, format="json")
        .status_code
        == 400
    )  # http still needs WEBHOOK_ALLOW_HTTP
    settings.WEBHOOK_ALLOW_HTTP = True
    assert (
        owner.client()
        .post("/v1/webhooks", {"url": "http://127.0.0.1:8443/h", "events": ["*"]}, format="json")
        .status_code
        == 201
    )


def _no_network(monkeypatch) -> list:
    """socket.create_connection records where the sender connects and connects nowhere
    (refused), so no test reaches a public address."""
    connected: list = []

    def create_connection(address, *args, **kwargs):
        connected.append(address)
        raise ConnectionRefusedError(111, "refused by the test")

    monkeypatch.setattr("socket.create_connection", create_connection)
    return connected


def test_dns_rebinding_refused_at_connect_time(owner, public_dns, monkeypatch):
    endpoint = services.webhook_create(
        organization=owner.org, url="https://hooks.example.com/hook", events=["*"]
    )
    delivery = services.webhook_test(endpoint=endpoint)
    public_dns["hooks.example.com"] = ["127.0.0.1"]  # the name now points inside
    connected = _no_network(monkeypatch)
    attempt = services.delivery_attempt(delivery_id=delivery.pk)
    assert connected == []
    assert attempt.status_code is None and "refused" in attempt.error and "loopback" in attempt.error
    assert WebhookAttempt.objects.get().error == attempt.error


def test_connects_to_the_checked_address(owner, public_dns, monkeypatch):
    """The socket goes to the checked address (a local receiver stands in for it), TLS names
    the URL's host (SNI and certificate check), `Host` names it too, and the path is the URL's."""
    import socket
    import ssl

    from .receiver import Receiver

    endpoint = services.webhook_create(
        organization=owner.org, url="https://hooks.example.com/hook?x=1", events=["*"]
    )
    delivery = services.webhook_test(endpoint=endpoint)
    seen: dict = {}
    with Receiver() as receiver:
        receiver.answer(204)
        local = receiver.server.server_address
        real_connect = socket.create_connection

        def create_connection(address, *args, **kwargs):
            seen["address"] = address
            return real_connect(local, *args, **kwargs)

        def wrap_socket(context, sock, server_hostname=None, **kwargs):
            seen["sni"] = server_hostname
            seen["verify"] = (context.verify_mode, context.check_hostname)
            return sock  # the local receiver speaks plain HTTP

        monkeypatch.setattr("socket.create_connection", create_connection)
        monkeypatch.setattr(ssl.SSLContext, "wrap_socket", wrap_socket)
        assert services.delivery_attempt(delivery_id=delivery.pk).status_code == 204
    assert seen == {
        "address": ("93.184.216.34", 443),
        "sni": "hooks.example.com",
        "verify": (ssl.CERT_REQUIRED, True),
    }
    [request] = receiver.requests
    assert (request["path"], request["headers"]["host"]) == ("/hook?x=1", "hooks.example.com")
