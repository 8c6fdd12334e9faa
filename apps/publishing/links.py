"""Tracked links at publish time: UTM parameters on every link of a post, optionally through a
Postforge short link (`/l/<code>`) that counts clicks per day, referrer platform and country.

The stored caption is what the reviewer approved and stays as written; only the text sent to
the platform carries the tracked links (docs/decisions.md, "Tracked links")."""

from __future__ import annotations

import datetime
import re
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify

from apps.brands.link_tracking import link_tracking_of, utm_template_for

from .models import LinkClickDay, Publication, ShortLink

if TYPE_CHECKING:
    from apps.content.models import Content

#: an http(s) URL in running text; trailing punctuation that ends a sentence is not part of it
URL_RE = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}'\""
CODE_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
CODE_RE = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
CLICKS_SOURCE = "postforge_short_link"

#: Referer hosts (and their subdomains) by platform, for the click's referrer platform
REFERRER_HOSTS: dict[str, str] = {
    "x.com": "x",
    "twitter.com": "x",
    "t.co": "x",
    "facebook.com": "facebook",
    "fb.com": "facebook",
    "fb.me": "facebook",
    "instagram.com": "instagram",
    "linkedin.com": "linkedin",
    "lnkd.in": "linkedin",
    "threads.net": "threads",
    "threads.com": "threads",
    "bsky.app": "bluesky",
    "youtube.com": "youtube",
    "youtu.be": "youtube",
    "tiktok.com": "tiktok",
    "pinterest.com": "pinterest",
    "pin.it": "pinterest",
}


def _split_trailing(url: str) -> tuple[str, str]:
    end = len(url)
    while end and url[end - 1] in _TRAILING:
        # a closing bracket that the URL itself opened stays (Wikipedia-style links)
        if url[end - 1] == ")" and url[:end].count("(") >= url[:end].count(")"):
            break
        end -= 1
    return url[:end], url[end:]


def _campaign_of(content: Content) -> str:
    if content.campaign_id and content.campaign is not None:
        return slugify(content.campaign.name)
    tag = content.tags.order_by("name").first()
    return slugify(tag.name) if tag is not None else ""


def utm_values(*, content: Content, platform: str) -> dict[str, str]:
    """The brand's UTM template for `platform` with its placeholders filled in."""
    template = utm_template_for(content.brand.link_tracking, platform)
    if not template:
        return {}
    values = {
        "platform": platform,
        "brand": content.brand.slug,
        "content_id": str(content.pk),
        "campaign": _campaign_of(content) if any("{campaign}" in v for v in template.values()) else "",
    }
    out = {}
    for key, pattern in template.items():
        filled = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), ""), pattern)
        if filled:
            out[key] = filled
    return out


def url_tag(url: str, params: dict[str, str]) -> str:
    """`url` with `params` set in its query (replacing the same keys), fragment kept."""
    if not params:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    query.extend(params.items())
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def short_url(code: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/l/{code}"


def _is_own(url: str) -> bool:
    return url.startswith(f"{settings.PUBLIC_BASE_URL}/")


def _short_link(publication: Publication, original: str, target: str) -> ShortLink:
    """The publication's short link for `original` (the same one on every retry)."""
    existing = ShortLink.objects.filter(publication=publication, original_url=original).first()
    if existing is not None:
        if existing.target_url != target:
            existing.target_url = target
            existing.save(update_fields=["target_url", "updated_at"])
        return existing
    for _ in range(5):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        try:
            with transaction.atomic():
                return ShortLink.objects.create(
                    organization_id=publication.organization_id,
                    publication=publication,
                    code=code,
                    original_url=original,
                    target_url=target,
                )
        except IntegrityError:  # a code taken, or a concurrent attempt made this link first
            found = ShortLink.objects.filter(publication=publication, original_url=original).first()
            if found is not None:
                return found
    raise RuntimeError("no free short-link code after 5 tries")


def links_track(*, text: str, publication: Publication, force_short: bool = False) -> str:
    """`text` with every link UTM-tagged (and shortened when the brand says so, or `force_short`)."""
    if not text or "://" not in text:
        return text
    content = publication.content
    conf = link_tracking_of(content.brand.link_tracking)
    if not conf["enabled"]:
        return text
    params = utm_values(content=content, platform=publication.profile.platform)

    def replace(match: re.Match[str]) -> str:
        url, tail = _split_trailing(match.group(0))
        if _is_own(url) or not urlsplit(url).hostname:
            return match.group(0)
        tagged = url_tag(url, params)
        if conf["shortLinks"] or force_short:
            return short_url(_short_link(publication, url, tagged).code) + tail
        return tagged + tail

    return URL_RE.sub(replace, text)


# --- clicks ---------------------------------------------------------------------------------


def referrer_platform(referer: str) -> str:
    """The platform a Referer header's host belongs to, "other", or "direct" (none)."""
    if not referer:
        return "direct"
    try:
        host = (urlsplit(referer).hostname or "").lower().rstrip(".")
    except ValueError:
        return "other"
    while host:
        if host in REFERRER_HOSTS:
            return REFERRER_HOSTS[host]
        host = host.partition(".")[2]
    return "other"


def country_of(value: str) -> str:
    value = (value or "").strip().upper()
    # Cloudflare's XX (unknown) and T1 (Tor) name no country
    return value if len(value) == 2 and value.isascii() and value.isalpha() and value != "XX" else ""


def link_click_record(
    *, link: ShortLink, referer: str, country: str, today: datetime.date | None = None
) -> None:
    """One more click on `link` today from this referrer platform and country: one row per
    (link, day, referrer, country), counted with an atomic UPDATE (no IP, no time of day)."""
    key: dict[str, Any] = {
        "link": link,
        "day": today or timezone.localdate(),
        "referrer": referrer_platform(referer),
        "country": country_of(country),
    }
    if LinkClickDay.objects.filter(**key).update(count=F("count") + 1):
        return
    try:
        with transaction.atomic():
            LinkClickDay.objects.create(**key, count=1)
    except IntegrityError:  # another click made the row first
        LinkClickDay.objects.filter(**key).update(count=F("count") + 1)


def links_track_fitting(*, text: str, publication: Publication, post_type: str, media_type: str) -> str:
    """`links_track`, kept within the platform's caption limit (in its unit: X counts every URL
    as 23). A UTM-tagged text that no longer fits goes out through short links, which are
    shorter than the tagged URL on every platform; if even that does not fit, the approved text
    goes out as written (docs/decisions.md)."""
    tracked = links_track(text=text, publication=publication)
    if tracked == text:
        return text
    from apps.platforms.rules import get_format

    try:
        limit = get_format(publication.profile.platform, post_type, media_type).caption
    except (KeyError, ValueError):
        return tracked
    if limit.fits(tracked):
        return tracked
    conf = link_tracking_of(publication.content.brand.link_tracking)
    if not conf["shortLinks"]:
        shortened = links_track(text=text, publication=publication, force_short=True)
        if limit.fits(shortened):
            return shortened
    return text
