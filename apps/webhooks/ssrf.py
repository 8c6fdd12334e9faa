"""Outbound URL rules (SSRF): which webhook URLs we register and which addresses we connect to.

A URL must be https (http only with WEBHOOK_ALLOW_HTTP), on port 80/443, and every address
its host resolves to must be public. Refused: loopback, private, link-local (cloud metadata
169.254.169.254 among them), CGNAT 100.64/10 (Alibaba's metadata 100.100.100.200), multicast,
reserved and unspecified addresses, IPv6 unique-local, and IPv6 forms that embed an IPv4
address (IPv4-mapped ::ffff:a.b.c.d, 6to4 2002::/16, Teredo, NAT64) whose embedded address
is not public. Hosts spelled as non-canonical numbers (``0x7f000001``, ``2130706433``,
``127.1``, octal) are refused outright. WEBHOOK_ALLOWED_CIDRS exempts networks (and any port
on them) for development and tests.

The rules run at registration and again at connect time, on the address actually
connected to (``resolve_checked`` returns it; the sender connects to that IP).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from apps.core.errors import ValidationFailed

_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]+|\d+)(\.(0x[0-9a-f]+|\d+)){0,3}$", re.IGNORECASE)
_METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("100.100.100.200"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("168.63.129.16"),
}
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class UnsafeURL(ValidationFailed):
    """The webhook URL is not allowed."""


def _allowed_networks():
    return [
        ipaddress.ip_network(c.strip(), strict=False) for c in settings.WEBHOOK_ALLOWED_CIDRS if c.strip()
    ]


def _exempt(ip) -> bool:
    return any(ip.version == net.version and ip in net for net in _allowed_networks())


def _embedded_v4(ip: ipaddress.IPv6Address):
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
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


def address_refusal(ip) -> str | None:
    """Why this address may not be connected to, or None when it may."""
    if _exempt(ip):
        return None
    if ip in _METADATA:
        return "a cloud metadata address"
    inner = _embedded_v4(ip) if ip.version == 6 else None
    if inner is not None:  # an IPv6 form of an IPv4 address is judged by that address
        reason = address_refusal(inner)
        return f"an IPv6 form of {inner} ({reason})" if reason else None
    return next((reason for refused, reason in _REFUSALS if refused(ip)), None)


def resolve(host: str, port: int) -> list[str]:
    """The addresses a host name resolves to (tests replace this to play DNS)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an acceptable URL shape, else UnsafeURL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURL("url is not a valid URL.", problems={"url": str(exc)}) from None
    scheme = parts.scheme.lower()
    allowed_schemes = ("https", "http") if settings.WEBHOOK_ALLOW_HTTP else ("https",)
    if scheme not in allowed_schemes:
        raise UnsafeURL("url must use https.", problems={"url": "Only https URLs are accepted."})
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise UnsafeURL("url has no host.", problems={"url": "A host is required."})
    if parts.username or parts.password:
        raise UnsafeURL(
            "url may not carry credentials.", problems={"url": "Remove user:password@ from the URL."}
        )
    if _NUMERIC_HOST.match(host):
        try:
            canonical = ipaddress.IPv4Address(host)
        except ValueError:
            raise UnsafeURL(
                "url host is a numeric address form that is not allowed.",
                problems={"url": f"{host} is not a dotted-quad address."},
            ) from None
        host = str(canonical)
    return scheme, host, port or (443 if scheme == "https" else 80)


def resolve_checked(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, address): the one address to connect to, after every resolved
    address passed the rules. Raises UnsafeURL."""
    scheme, host, port = parse_url(url)
    try:
        literal = ipaddress.ip_address(host)
        addresses = [str(literal)]
    except ValueError:
        if host.lower() == "localhost" or host.lower().endswith(".localhost"):
            raise UnsafeURL(
                "url may not point at localhost.", problems={"url": "localhost is not allowed."}
            ) from None
        try:
            addresses = resolve(host, port)
        except (OSError, UnicodeError):
            addresses = []
    if not addresses:
        raise UnsafeURL("url host does not resolve.", problems={"url": f"{host} does not resolve."})
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        reason = address_refusal(ip)
        if reason:
            raise UnsafeURL(
                f"url resolves to {reason}.", problems={"url": f"{host} resolves to {ip}, {reason}."}
            )
        if port not in (80, 443) and not _exempt(ip):
            raise UnsafeURL("url port must be 80 or 443.", problems={"url": f"Port {port} is not allowed."})
    return scheme, host, port, addresses[0].split("%")[0]


def url_check(url: str) -> None:
    """Registration-time check (raises UnsafeURL, a 400 in both families)."""
    resolve_checked(url)
