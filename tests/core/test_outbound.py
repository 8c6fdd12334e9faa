"""The checked way out (apps/core/outbound.py): a name is resolved once and the connection goes
to the checked address, with the name in TLS (SNI and the certificate check) and in ``Host``;
each redirect hop is checked; bodies are capped in size and time.

Local servers stand behind names (a faked resolver points them at 127.0.0.1, which the test
settings exempt); refused addresses come from the faked resolver too and are never connected.
"""

from __future__ import annotations

import datetime
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from apps.core import outbound


def _certificates(tmp: Path, name: str) -> tuple[Path, Path, Path]:
    """A CA and a certificate for ``name`` it signed: (ca.pem, cert.pem, key.pem)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Postforge test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = tmp / "ca.pem", tmp / "cert.pem", tmp / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


class Server:
    """A local HTTP(S) server: ``routes`` maps a path to (status, headers, body or a callable
    that writes the body itself); it records each request's path and Host."""

    def __init__(self, context: ssl.SSLContext | None = None) -> None:
        self.seen: list[tuple[str, str]] = []
        self.routes: dict[str, tuple[int, dict[str, str], Any]] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.seen.append((self.path, self.headers.get("Host", "")))
                status, headers, body = server.routes.get(self.path, (404, {}, b""))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if callable(body):
                    self.send_header("Connection", "close")
                    self.end_headers()
                    body(self.wfile)
                    return
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if context is not None:
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def dns(monkeypatch) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    monkeypatch.setattr(outbound, "resolve", lambda host, port: table.get(host, []))
    return table


@pytest.fixture
def plain() -> Iterator[Server]:
    server = Server()
    yield server
    server.close()


def test_https_to_a_name_goes_to_the_checked_address_with_the_name_in_tls_and_host(tmp_path, dns, settings):
    ca, cert, key = _certificates(tmp_path, "pds.example")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = Server(context)
    try:
        server.routes["/xrpc/ping"] = (200, {"Content-Type": "text/plain"}, b"pong")
        dns["pds.example"] = ["127.0.0.1"]
        dns["other.example"] = ["127.0.0.1"]
        session = outbound.checked_session()
        answer = session.get(f"https://pds.example:{server.port}/xrpc/ping", verify=str(ca), timeout=5)
        assert answer.status_code == 200 and answer.text == "pong"
        assert server.seen == [("/xrpc/ping", f"pds.example:{server.port}")]
        # the certificate is checked against the name asked for, not the address connected to
        with pytest.raises(requests.exceptions.SSLError):
            session.get(f"https://other.example:{server.port}/xrpc/ping", verify=str(ca), timeout=5)
        # and the same name, once it resolves inside, is refused before any connection
        settings.OUTBOUND_ALLOWED_CIDRS = []
        with pytest.raises(outbound.UnsafeURL):
            session.get(f"https://pds.example:{server.port}/xrpc/ping", verify=str(ca), timeout=5)
        assert len(server.seen) == 1
    finally:
        server.close()


def test_each_redirect_hop_is_checked(plain, dns, settings):
    settings.OUTBOUND_ALLOWED_CIDRS = ["127.0.0.0/8"]
    dns["page.example"] = ["127.0.0.1"]
    dns["inside.example"] = ["10.0.0.8"]
    plain.routes["/a"] = (302, {"Location": f"http://page.example:{plain.port}/b"}, b"")
    plain.routes["/b"] = (200, {}, b"landed")
    plain.routes["/c"] = (302, {"Location": "http://inside.example/secret"}, b"")
    session = outbound.checked_session()
    landed = outbound.fetch(session, f"http://page.example:{plain.port}/a", max_bytes=100)
    assert landed.content == b"landed" and [p for p, _ in plain.seen] == ["/a", "/b"]
    with pytest.raises(outbound.UnsafeURL):
        outbound.fetch(session, f"http://page.example:{plain.port}/c", max_bytes=100)


def test_bodies_are_capped_in_size_and_time(plain, dns):
    dns["page.example"] = ["127.0.0.1"]
    plain.routes["/big"] = (200, {}, b"x" * 300_000)

    def drip(out: Any) -> None:
        for _ in range(40):
            out.write(b"x")
            out.flush()
            time.sleep(0.1)

    def endless(out: Any) -> None:  # no Content-Length: only the reading stops it
        for _ in range(200):
            out.write(b"y" * 65536)

    plain.routes["/drip"] = (200, {}, drip)
    plain.routes["/endless"] = (200, {}, endless)
    session = outbound.checked_session()
    with pytest.raises(outbound.TooLarge):
        outbound.fetch(session, f"http://page.example:{plain.port}/big", max_bytes=100_000)
    with pytest.raises(outbound.TooLarge):
        outbound.fetch(session, f"http://page.example:{plain.port}/endless", max_bytes=100_000)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        outbound.fetch(session, f"http://page.example:{plain.port}/drip", max_bytes=100_000, seconds=1)
    assert time.monotonic() - started < 2.5  # the drip would take 4 s


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "IPv6 form of 127.0.0.1"),
        ("http://0.0.0.0/", "reserved"),
        ("http://2130706433/", "numeric address form"),
        ("http://10.1.2.3/", "private"),
        ("http://169.254.169.254/", "metadata"),
        ("http://[fe80::1]/", "link-local"),
        ("http://224.0.0.1/", "multicast"),
        ("http://mapped.example/", "IPv6 form of 10.0.0.1"),
    ],
)
def test_inside_addresses_are_refused_without_a_connection(url, reason, dns, settings, monkeypatch):
    settings.OUTBOUND_ALLOWED_CIDRS = []
    dns["mapped.example"] = ["::ffff:10.0.0.1"]
    attempts: list[Any] = []
    monkeypatch.setattr("socket.create_connection", lambda *a, **k: attempts.append(a))
    with pytest.raises(outbound.UnsafeURL) as refused:
        outbound.fetch(
            outbound.checked_session(outbound.default_rules(schemes=("http", "https"))), url, max_bytes=10
        )
    assert reason in refused.value.message + str(refused.value.problems) and attempts == []


def test_a_pds_answer_is_read_under_a_cap(plain, monkeypatch):
    """A PDS is whatever a DID names: an endless answer is cut, not loaded whole."""
    from apps.publishing.platforms import bluesky
    from apps.publishing.platforms.base import PlatformError

    def endless(out: Any) -> None:
        for _ in range(200):
            out.write(b"{" * 65536)

    plain.routes["/xrpc/app.bsky.actor.getProfile?actor=did%3Aplc%3Ax"] = (200, {}, endless)
    monkeypatch.setattr(bluesky.BlueskyClient, "answer_cap", (1_000_000, 10.0))
    client = bluesky.BlueskyClient(
        access_token="t", account_id="did:plc:x", base_url=f"http://127.0.0.1:{plain.port}"
    )
    with pytest.raises(PlatformError) as cut:
        client.fetch_account()
    assert cut.value.code == "bad_response" and "over 1000000 bytes" in cut.value.message
