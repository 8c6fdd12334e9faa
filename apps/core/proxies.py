"""The client's address behind a reverse proxy (issue 20).

`X-Forwarded-For` is believed only from a peer in TRUSTED_PROXIES (CIDRs): anyone else could
write any address there. From a trusted peer, the header is read from the right (each proxy
appends the address it got the request from) past every trusted hop; the first address that
is not a trusted proxy is the client. A hop that is not an IP address ends the walk at the last
good one. Without TRUSTED_PROXIES the peer (`REMOTE_ADDR`) is the client, as before.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(cidrs: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(c.strip(), strict=False) for c in cidrs if c.strip())


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.partition(":")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        return ip.ipv4_mapped
    return ip


def is_trusted(address: str) -> bool:
    ip = _ip(address)
    if ip is None:
        return False
    return any(ip.version == net.version and ip in net for net in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_ip(peer: str, forwarded_for: str) -> str:
    """The client's address, given the connection's peer and its X-Forwarded-For header."""
    if not peer or not is_trusted(peer):
        return peer
    client = peer
    for hop in reversed(forwarded_for.split(",")):
        ip = _ip(hop)
        if ip is None:
            break
        client = str(ip)
        if not is_trusted(client):
            break
    return client
