"""Issue 28: Bluesky may not reach inside. Every call on a user's behalf (the PDS a DID document
names, did:web documents, the link card's page and og:image, the video service) goes through the
checked way out (apps/core/outbound.py).

The PLC directory is a fake PDS on 127.0.0.2, the only network exempt here
(OUTBOUND_ALLOWED_CIDRS = 127.0.0.2/32); an "internal service" listens on 127.0.0.1 and
counts what reaches it. Every other address comes from a faked resolver, and
``socket.create_connection`` records each attempt and connects only to 127.0.0.2: no test
sends traffic beyond this machine.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from apps.core import outbound
from apps.profiles.models import SocialProfile
from apps.publishing.platforms.base import MediaItem, PlatformError, PostRequest
from apps.publishing.platforms.bluesky import BlueskyClient
from tests.publishing.bluesky_fake import FakePDS

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "abcd-efgh-ijkl-mnop"
DNS = {
    "pds.internal.example": ["10.1.2.3"],
    "mapped.example": ["::ffff:10.0.0.1"],
    "linklocal.example": ["fe80::1"],
    "metadata.example": ["169.254.169.254"],
    "rebind.example": ["93.184.216.34", "127.0.0.1"],
    "pds.public.example": ["93.184.216.34"],
    "intranet.example": ["10.9.8.7"],
    "example.com": ["93.184.216.34"],
}


class Internal:
    """An internal service on 127.0.0.1 that would gladly answer anything (and counts hits)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        internal = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                internal.hits.append(self.path)
                data = json.dumps(
                    {"displayName": "INTERNAL SECRET", "accessJwt": "x", "refreshJwt": "y", "did": "d"}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _serve

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def internal() -> Iterator[Internal]:
    service = Internal()
    yield service
    service.close()


@pytest.fixture
def net(monkeypatch, settings) -> list[tuple[str, int]]:
    """The faked resolver and the recorded connections (only 127.0.0.2 is really connected)."""
    settings.OUTBOUND_ALLOWED_CIDRS = ["127.0.0.2/32"]
    attempts: list[tuple[str, int]] = []
    real = outbound.socket.create_connection

    def resolve(host: str, port: int) -> list[str]:
        if host not in DNS:
            raise OSError("no such host")
        return DNS[host]

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        attempts.append((address[0], address[1]))
        if address[0] != "127.0.0.2":
            raise ConnectionRefusedError(111, "refused by the test (nothing leaves this machine)")
        return real(address, *args, **kwargs)

    monkeypatch.setattr(outbound, "resolve", resolve)
    monkeypatch.setattr("socket.create_connection", create_connection)
    return attempts


@pytest.fixture
def plc(settings, net) -> Iterator[FakePDS]:
    fake = FakePDS(host="127.0.0.2")
    fake.add_account("acme.bsky.social", PASSWORD, display_name="Acme Coffee")
    settings.BLUESKY_SERVICE_URL = fake.url
    settings.BLUESKY_PLC_DIRECTORY_URL = fake.url + "/plc"
    yield fake
    fake.close()


def _did(plc: FakePDS) -> str:
    return next(a.did for a in plc.accounts.values() if a.handle == "acme.bsky.social")


def _connect(owner: Any, handle: str) -> tuple[Any, Any]:
    a = owner.client().post(
        "/v1/profiles/bluesky/connect", {"handle": handle, "appPassword": PASSWORD}, format="json"
    )
    b = owner.token_client().post(
        "/api/oauth/bluesky/app-password", {"handle": handle, "appPassword": PASSWORD}, format="json"
    )
    return a, b


INSIDE = [
    "http://127.0.0.1:{port}",
    "http://[::1]:{port}",
    "http://[::ffff:127.0.0.1]:{port}",
    "http://0.0.0.0:{port}",
    "http://2130706433:{port}",
    "http://0x7f000001:{port}",
    "http://127.1:{port}",
    "https://10.0.0.5",
    "https://169.254.169.254",
    "https://[fe80::1]",
    "https://pds.internal.example",
    "https://mapped.example",
    "https://linklocal.example",
    "https://metadata.example",
    "https://rebind.example",
    "http://pds.public.example",  # public, but not https
    "https://pds.public.example:8080",  # public, but an odd port
]


@pytest.mark.parametrize("endpoint", INSIDE)
def test_a_did_whose_pds_points_inside_is_refused_in_both_families_and_nothing_is_contacted(
    owner, plc, net, internal, endpoint
):
    plc.endpoints[_did(plc)] = endpoint.format(port=internal.port)
    a, b = _connect(owner, _did(plc))
    assert a.status_code == 400, a.content
    error = a.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "may not be reached" in error["message"], error
    assert "handle" in error["details"] and "INTERNAL SECRET" not in a.content.decode()
    assert b.status_code == 400 and "may not be reached" in b.json()["error"], b.content
    # the DID document was read from the directory; nothing else was connected to
    assert {host for host, _ in net} == {"127.0.0.2"}
    assert internal.hits == []
    assert ("POST", "/xrpc/com.atproto.server.createSession") not in plc.requests
    assert not SocialProfile.objects.filter(platform="bluesky").exists()


@pytest.mark.parametrize(
    "did", ["did:web:intranet.example", "did:web:127.0.0.1%3A{port}", "did:web:169.254.169.254"]
)
def test_a_did_web_document_inside_is_never_fetched(owner, plc, net, internal, did):
    a, b = _connect(owner, did.format(port=internal.port))
    assert a.status_code == 400 and a.json()["error"]["code"] == "VALIDATION_ERROR", a.content
    assert b.status_code == 400, b.content
    assert net == [] and internal.hits == []


def test_a_public_pds_is_connected_to_at_its_checked_address(owner, plc, net):
    """The allowed path: the name resolves to a public address, and that very address (not a
    second lookup) is what the connection goes to; the test refuses it, so a 502."""
    plc.endpoints[_did(plc)] = "https://pds.public.example"
    a = owner.client().post(
        "/v1/profiles/bluesky/connect", {"handle": _did(plc), "appPassword": PASSWORD}, format="json"
    )
    assert a.status_code == 502 and a.json()["error"]["code"] == "PLATFORM_ERROR", a.content
    assert ("93.184.216.34", 443) in net
    assert {host for host, _ in net} == {"127.0.0.2", "93.184.216.34"}


def test_a_pds_answering_create_session_with_a_redirect_connects_nothing(owner, plc, net, internal):
    plc.session_redirect = (302, f"http://127.0.0.1:{internal.port}/xrpc/com.atproto.server.createSession")
    a, b = _connect(owner, "acme.bsky.social")
    assert a.status_code == 400, a.content
    assert "answered createSession with a redirect" in a.json()["error"]["message"]
    assert b.status_code == 400 and "redirect" in b.json()["error"]
    assert internal.hits == [] and not SocialProfile.objects.filter(platform="bluesky").exists()


# ---- at publish: the link card and the video service ---------------------------------------------


@pytest.fixture
def client(plc) -> BlueskyClient:
    session = plc.session(_did(plc))
    return BlueskyClient(access_token=session["accessJwt"], account_id=_did(plc), base_url=plc.url)


def _request(text: str, **kw: Any) -> PostRequest:
    return PostRequest(
        caption=text,
        reference="3f1c0e9e-8a59-4d1e-9a40-1b2c3d4e5f60",
        options={"_created_at": "2026-11-27T22:00:00+00:00"},
        **kw,
    )


@pytest.mark.parametrize(
    "link",
    [
        "http://127.0.0.1:{port}/admin",
        "http://intranet.example/wiki",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:127.0.0.1]:{port}/admin",
    ],
)
def test_a_link_card_pointing_inside_sends_nothing_internal_to_the_pds(client, plc, net, internal, link):
    link = link.format(port=internal.port)
    result = client.publish(_request(f"See {link} today"))
    value = plc.records[next(iter(plc.records))]["value"]
    assert result.external_id and "embed" not in value  # posted, as a link facet, without a card
    assert internal.hits == [] and {host for host, _ in net} == {"127.0.0.2"}
    assert "INTERNAL SECRET" not in json.dumps(value)


def test_a_public_page_whose_og_image_points_inside_gets_no_thumbnail(
    client, plc, net, internal, monkeypatch
):
    """The page is allowed (a loopback server behind a name: example.com faked to 127.0.0.2, the
    exempt network), its og:image is the internal service: the card keeps the page's title and
    no internal byte is fetched."""
    monkeypatch.setitem(DNS, "example.com", ["127.0.0.2"])
    plc.pages["/story"] = (
        "text/html",
        f'<html><head><meta property="og:title" content="Story">'
        f'<meta property="og:image" content="http://127.0.0.1:{internal.port}/secret.png"></head></html>'.encode(),
    )
    port = urlsplit(plc.url).port
    client.publish(_request(f"Read http://example.com:{port}/story"))
    value = plc.records[next(iter(plc.records))]["value"]
    assert value["embed"]["external"]["title"] == "Story" and "thumb" not in value["embed"]["external"]
    assert internal.hits == [] and {host for host, _ in net} == {"127.0.0.2"}


def test_a_redirect_to_an_internal_page_is_not_followed_for_the_card(client, plc, net, internal, monkeypatch):
    """Each redirect hop is checked: an allowed page that redirects inside gets no card."""
    monkeypatch.setitem(DNS, "example.com", ["127.0.0.2"])
    plc.pages["/go"] = ("text/html", b"<html></html>")
    plc.redirects["/go"] = f"http://127.0.0.1:{internal.port}/admin"
    port = urlsplit(plc.url).port
    client.publish(_request(f"Go http://example.com:{port}/go"))
    value = plc.records[next(iter(plc.records))]["value"]
    assert "embed" not in value and internal.hits == []


def test_a_public_link_is_fetched_from_its_checked_address(client, plc, net):
    """A public page: the connection goes to the address checked (the test refuses it: no card)."""
    client.publish(_request("Read https://example.com/launch"))
    value = plc.records[next(iter(plc.records))]["value"]
    assert "embed" not in value and ("93.184.216.34", 443) in net


def test_the_video_service_inside_is_refused_before_any_byte(client, plc, net, internal, settings):
    settings.BLUESKY_VIDEO_SERVICE_URL = f"http://127.0.0.1:{internal.port}"
    video = MediaItem("video", "", "video/mp4", 640, 360, seconds=3, loader=lambda: b"\0" * 2048)
    with pytest.raises(PlatformError) as refused:
        client.publish(_request("A clip", media=[video]))
    assert refused.value.code == "unsafe_url" and not refused.value.retryable
    assert internal.hits == [] and plc.records == {}
