"""A post's public link, checked against its platform (platforms.yaml `post_urls`), and the
platform's post id read from it when the link carries one.

Used when a person confirms an `unknown` publication with the link of the post they found:
the link must be https on the platform's own site (a sandbox profile's: this server's sandbox
page), so a typo or another platform's link is refused instead of stored."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlsplit

from django.conf import settings

from apps.core.errors import InvalidSubject

MAX_URL = 2000  # Publication.url's length


@dataclass(frozen=True)
class PostLink:
    url: str
    external_id: str  # "" when the link does not carry the platform's post id


@dataclass(frozen=True)
class _Rule:
    hosts: tuple[str, ...]
    ids: tuple[tuple[re.Pattern[str], str], ...]


@lru_cache(maxsize=1)
def _rules() -> dict[str, _Rule]:
    from apps.platforms.rules import load_platforms_yaml

    rules = {}
    for platform, raw in (load_platforms_yaml().get("post_urls") or {}).items():
        entries: list[Any] = raw.get("ids") or []
        rules[platform] = _Rule(
            hosts=tuple(str(h).lower() for h in raw.get("hosts") or ()),
            ids=tuple((re.compile(str(e["pattern"])), str(e.get("format") or "{id}")) for e in entries),
        )
    return rules


def hosts_for(platform: str) -> tuple[str, ...]:
    rule = _rules().get(platform)
    return rule.hosts if rule else ()


def post_link_parse(*, platform: str, url: str, account: str = "", sandbox: bool = False) -> PostLink:
    """The link checked for `platform` and the post id it carries; InvalidSubject (subject
    `url`) when it is not an https link on the platform's site. `account` is the profile's own
    platform id (Facebook's post ids begin with the Page's)."""
    url = (url or "").strip()

    def refuse(reason: str) -> InvalidSubject:
        return InvalidSubject(f"Not a link to a {platform} post: {reason}", "url", reason)

    if not url:
        raise refuse("the post's link is required.")
    if len(url) > MAX_URL:
        raise refuse(f"at most {MAX_URL} characters.")
    if sandbox:
        return _sandbox_link(platform, url, refuse)
    rule = _rules().get(platform)
    if rule is None:
        raise refuse("this platform has no known post links.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise refuse("not a valid URL.") from None
    if parts.scheme.lower() != "https":
        raise refuse("it must start with https://.")
    host = (parts.hostname or "").lower()
    if parts.username or parts.password or port not in (None, 443):
        raise refuse("a post link has no user name, password or port.")
    site = next((h for h in rule.hosts if host == h or host.endswith("." + h)), None)
    if site is None:
        raise refuse(f"the host must be {' or '.join(rule.hosts)} (got {host or 'none'}).")
    tail = f"{site}{unquote(parts.path)}" + (f"?{parts.query}" if parts.query else "")
    for pattern, fmt in rule.ids:
        match = pattern.search(tail)
        if match:
            groups = {"account": account, **{k: v for k, v in match.groupdict().items() if v}}
            if "{account}" in fmt and not groups["account"]:
                continue
            return PostLink(url=url, external_id=fmt.format(**groups))
    return PostLink(url=url, external_id="")


def _sandbox_link(platform: str, url: str, refuse) -> PostLink:
    """This server's sandbox page of the post: {PUBLIC_BASE_URL}/sandbox/{platform}/{user}/{id}."""
    base = f"{settings.PUBLIC_BASE_URL}/sandbox/{platform}/"
    if not url.startswith(base):
        raise refuse(f"a sandbox post's link starts with {base}.")
    segments = url[len(base) :].split("?", maxsplit=1)[0].strip("/").split("/")
    # stored as a path, made absolute when answering (apps.core.links.public_url)
    path = url[len(settings.PUBLIC_BASE_URL) :]
    return PostLink(url=path, external_id=segments[1] if len(segments) == 2 else "")
