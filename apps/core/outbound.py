"""The one checked way out (SSRF): every request the service makes on a user's behalf.

Webhooks, the Bluesky PDS a DID document names, DID documents themselves, link cards (the
caption's first link and its og:image), Bluesky's video service and media pulled from URLs all
leave through here. A URL's host is resolved once; every address it resolves to must be public,
and the connection goes to that checked address (with the URL's host name in ``Host`` and in
TLS: SNI and the certificate check). Refused: loopback, private, link-local (cloud metadata
169.254.169.254 among them), CGNAT 100.64/10 (Alibaba's metadata 100.100.100.200), multicast,
reserved and unspecified (0.0.0.0) addresses, IPv6 unique-local, and IPv6 forms that embed an
IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, 6to4 2002::/16, Teredo, NAT64) whose embedded
address is not public. Hosts spelled as non-canonical numbers (``0x7f000001``, ``2130706433``,
``127.1``, octal) are refused outright, as are ``localhost`` names, credentials in the URL and
ports other than 80/443.

Networks the operator names are exempt (any port, http too): ``OUTBOUND_ALLOWED_CIDRS`` for
everything here, ``WEBHOOK_ALLOWED_CIDRS`` for webhooks (development against a receiver on the
same machine, and the tests' local fakes on 127.0.0.0/8, which tests/settings.py names; it is
empty in production).

``checked_session()`` is a ``requests`` session whose every connection, each redirect hop
included, goes through these rules (environment proxies are ignored: a proxy would resolve the
name itself); ``fetch()`` reads a response under a size and a wall-clock cap.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from apps.core.errors import ValidationFailed

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]+|\d+)(\.(0x[0-9a-f]+|\d+)){0,3}$", re.IGNORECASE)
_METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("100.100.100.200"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("168.63.129.16"),
}
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
#: the ports a non-exempt host may be reached on
PORTS = (80, 443)


class UnsafeURL(ValidationFailed):
    """The URL may not be requested (a 400 in both families where a request names it)."""


def networks(cidrs: Iterable[str]) -> list[Network]:
    return [ipaddress.ip_network(c.strip(), strict=False) for c in cidrs if c and c.strip()]


def _exempt(ip: IPAddress, allowed: Sequence[Network]) -> bool:
    return any(ip.version == net.version and ip in net for net in allowed)


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


#: what refuses an address that is neither metadata nor an IPv6 form of an IPv4 one, in order
_REFUSALS: tuple[tuple[Callable[[Any], bool], str], ...] = (
    (lambda ip: ip.version == 6 and ip in _UNIQUE_LOCAL, "an IPv6 unique-local address"),
    (lambda ip: ip.is_loopback, "a loopback address"),
    (lambda ip: ip.is_link_local, "a link-local address"),
    (lambda ip: ip.version == 4 and ip in _CGNAT, "a carrier-grade NAT address"),
    (lambda ip: ip.is_multicast, "a multicast address"),
    (lambda ip: ip.is_unspecified or ip.is_reserved, "a reserved address"),
    (lambda ip: ip.is_private or not ip.is_global, "a private address"),
)


def address_refusal(ip: IPAddress, allowed: Sequence[Network] = ()) -> str | None:
    """Why this address may not be connected to, or None when it may."""
    if _exempt(ip, allowed):
        return None
    if ip in _METADATA:
        return "a cloud metadata address"
    inner = _embedded_v4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    if inner is not None:  # an IPv6 form of an IPv4 address is judged by that address
        reason = address_refusal(inner, allowed)
        return f"an IPv6 form of {inner} ({reason})" if reason else None
    return next((reason for refused, reason in _REFUSALS if refused(ip)), None)


def resolve(host: str, port: int) -> list[str]:
    """The addresses a host name resolves to (tests replace this to play DNS)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class Rules:
    """Which URLs one kind of outbound request may reach."""

    #: schemes allowed to any public address (http is always allowed to an exempt network)
    schemes: tuple[str, ...] = ("https",)
    #: networks exempt from the address rules, as CIDR strings
    allowed: tuple[str, ...] = ()
    field: str = "url"
    #: http may reach an exempt network even when ``schemes`` is https only
    http_to_exempt: bool = True

    def exempt_networks(self) -> list[Network]:
        return networks(self.allowed)


def default_rules(*, schemes: tuple[str, ...] = ("https",), field: str = "url") -> Rules:
    """The rules for requests made on a user's behalf (OUTBOUND_ALLOWED_CIDRS exempt)."""
    return Rules(
        schemes=schemes, allowed=tuple(getattr(settings, "OUTBOUND_ALLOWED_CIDRS", ()) or ()), field=field
    )


def _refuse(rules: Rules, message: str, problem: str) -> UnsafeURL:
    return UnsafeURL(message, problems={rules.field: problem})


def parse_url(url: str, rules: Rules) -> tuple[str, str, int]:
    """(scheme, host, port) of an acceptable URL shape, else UnsafeURL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _refuse(rules, f"{rules.field} is not a valid URL.", str(exc)) from None
    scheme = parts.scheme.lower()
    if scheme not in rules.schemes and not (scheme == "http" and rules.http_to_exempt):
        raise _refuse(rules, f"{rules.field} must use https.", "Only https URLs are accepted.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise _refuse(rules, f"{rules.field} has no host.", "A host is required.")
    if parts.username or parts.password:
        raise _refuse(
            rules, f"{rules.field} may not carry credentials.", "Remove user:password@ from the URL."
        )
    if _NUMERIC_HOST.match(host):
        try:
            canonical = ipaddress.IPv4Address(host)
        except ValueError:
            raise _refuse(
                rules,
                f"{rules.field} host is a numeric address form that is not allowed.",
                f"{host} is not a dotted-quad address.",
            ) from None
        host = str(canonical)
    return scheme, host, port or (443 if scheme == "https" else 80)


def resolve_checked(url: str, rules: Rules | None = None) -> tuple[str, str, int, str]:
    """(scheme, host, port, address): the one address to connect to, after every address the
    host resolves to passed the rules. Raises UnsafeURL; nothing is contacted."""
    rules = rules or default_rules()
    scheme, host, port = parse_url(url, rules)
    allowed = rules.exempt_networks()
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        if host.lower() == "localhost" or host.lower().endswith(".localhost"):
            raise _refuse(
                rules, f"{rules.field} may not point at localhost.", "localhost is not allowed."
            ) from None
        try:
            addresses = resolve(host, port)
        except (OSError, UnicodeError):
            addresses = []
    if not addresses:
        raise _refuse(rules, f"{rules.field} host does not resolve.", f"{host} does not resolve.")
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        reason = address_refusal(ip, allowed)
        if reason:
            raise _refuse(
                rules, f"{rules.field} resolves to {reason}.", f"{host} resolves to {ip}, {reason}."
            )
        if _exempt(ip, allowed):
            continue
        if scheme not in rules.schemes:
            raise _refuse(rules, f"{rules.field} must use https.", "Only https URLs are accepted.")
        if port not in PORTS:
            raise _refuse(rules, f"{rules.field} port must be 80 or 443.", f"Port {port} is not allowed.")
    return scheme, host, port, addresses[0].split("%")[0]


def url_check(url: str, rules: Rules | None = None) -> None:
    """The rules without connecting (raises UnsafeURL)."""
    resolve_checked(url, rules)


# ---- the checked requests session -------------------------------------------------------------


def _connect_pinned(conn: HTTPConnection, address: str) -> socket.socket:
    """The socket of ``conn``, to the checked address (``socket.create_connection``), never
    resolving the name again."""
    timeout = conn.timeout if isinstance(conn.timeout, int | float) else None
    try:
        return socket.create_connection((address, conn.port), timeout, conn.source_address)
    except TimeoutError as exc:
        raise ConnectTimeoutError(conn, f"Connection to {address} timed out.") from exc
    except OSError as exc:
        raise NewConnectionError(conn, f"Failed to establish a new connection: {exc}") from exc


class _PinnedHTTPConnection(HTTPConnection):
    def __init__(self, *args: Any, pinned_address: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pinned_address = pinned_address

    def _new_conn(self) -> socket.socket:
        return _connect_pinned(self, self.pinned_address)


class _PinnedHTTPSConnection(HTTPSConnection):
    def __init__(self, *args: Any, pinned_address: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pinned_address = pinned_address

    def _new_conn(self) -> socket.socket:
        return _connect_pinned(self, self.pinned_address)


class _PinnedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _PinnedHTTPConnection


class _PinnedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _PinnedHTTPSConnection


class CheckedAdapter(HTTPAdapter):
    """A transport that checks every request's URL (each redirect hop is a request) and
    connects to the address it checked. Pools are kept per (scheme, host, port, address)."""

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules
        self._pools: dict[tuple[str, str, int, str], HTTPConnectionPool] = {}
        super().__init__(max_retries=0)

    def get_connection_with_tls_context(
        self,
        request: requests.PreparedRequest,
        verify: bool | str | None,
        proxies: Any = None,
        cert: Any = None,
    ) -> HTTPConnectionPool:
        scheme, host, port, address = resolve_checked(str(request.url), self.rules or default_rules())
        key = (scheme, host, port, address)
        pool = self._pools.get(key)
        if pool is None:
            if scheme == "https":
                pool = _PinnedHTTPSPool(
                    host,
                    port,
                    maxsize=2,
                    cert_reqs="CERT_REQUIRED" if verify is not False else "CERT_NONE",
                    ca_certs=verify if isinstance(verify, str) else requests.certs.where(),
                    pinned_address=address,
                )
            else:
                pool = _PinnedHTTPPool(host, port, maxsize=2, pinned_address=address)
            self._pools[key] = pool
        return pool

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
        self._pools.clear()
        super().close()


def checked_session(rules: Rules | None = None, *, max_redirects: int = 5) -> requests.Session:
    """A requests session whose every connection goes through the rules (default: the rules of
    the moment, OUTBOUND_ALLOWED_CIDRS read at each request)."""
    session = requests.Session()
    session.trust_env = False  # no environment proxies: the proxy would resolve the name itself
    session.max_redirects = max_redirects
    adapter = CheckedAdapter(rules)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class TooLarge(Exception):
    """The answer was longer than the cap."""


def fetch(
    session: requests.Session,
    url: str,
    *,
    max_bytes: int,
    seconds: float = 10.0,
    timeout: tuple[float, float] = (3, 5),
    headers: dict[str, str] | None = None,
) -> requests.Response:
    """GET ``url`` (redirects followed, each hop checked) and read at most ``max_bytes`` of its
    body within ``seconds`` (a server silent for the read timeout ends it sooner; one dripping
    a byte at a time ends at the deadline, plus one read at most); the body is ``content``. Raises UnsafeURL,
    requests.RequestException, TooLarge or TimeoutError."""
    response = session.get(url, timeout=timeout, headers=headers or {}, stream=True, allow_redirects=True)
    return read_capped(response, max_bytes=max_bytes, seconds=seconds)


def read_capped(response: requests.Response, *, max_bytes: int, seconds: float) -> requests.Response:
    """Read a streamed response's body (``stream=True``) into ``content``: at most ``max_bytes``
    within ``seconds``, else TooLarge or TimeoutError; the connection is released either way."""
    deadline = time.monotonic() + seconds
    url = response.url
    try:
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise TooLarge(f"{url} is {declared} bytes, over {max_bytes}.")
        body = bytearray()
        while True:  # read1: what has arrived (at most 64 KiB), so a drip meets the deadline
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} took over {seconds:g} s.")
            try:
                chunk = response.raw.read1(64 * 1024, decode_content=True)
            except urllib3.exceptions.HTTPError as exc:  # a read timeout, a cut connection
                raise requests.exceptions.ConnectionError(exc) from exc
            if not chunk:
                break
            body += chunk
            if len(body) > max_bytes:
                raise TooLarge(f"{url} is over {max_bytes} bytes.")
        response._content = bytes(body)
    finally:
        response.close()
    return response
