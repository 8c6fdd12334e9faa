"""The sandbox OAuth provider: the embedded default for platforms without app credentials.

The consent page (``/oauth/sandbox/<platform>/authorize``) is served by Postforge itself.
Authorize issues a signed, 10-minute code bound to the state, the platform and the chosen
username; the callback exchanges it here, locally, for tokens and a sandbox account whose
id is derived from the username (so reconnecting the same username reconnects the same
profile). The account's picture is a PNG generated on demand.
"""

from __future__ import annotations

import hashlib
import io
import re
import secrets

from django.conf import settings
from django.core import signing

from apps.publishing.platforms.base import AccountInfo

from .oauth_backends import TokenSet, scopes_for

CODE_SALT = "postforge.oauth.sandbox.code"
CODE_MAX_AGE = 600
ACCESS_TTL_SECONDS = 2 * 3600
LONG_LIVED_TTL_SECONDS = 60 * 24 * 3600
USERNAME = re.compile(r"^[A-Za-z0-9_.]{1,30}$")
SANDBOX_SCOPES = {"bluesky": ["atproto", "transition:generic"]}


class SandboxCodeInvalid(Exception):
    pass


def base_url() -> str:
    return (getattr(settings, "OAUTH_CALLBACK_BASE_URL", "") or settings.PUBLIC_BASE_URL).rstrip("/")


def authorize_url(platform: str, state: str) -> str:
    from urllib.parse import urlencode

    return f"{base_url()}/oauth/sandbox/{platform}/authorize?{urlencode({'state': state})}"


def scopes(platform: str) -> list[str]:
    return SANDBOX_SCOPES.get(platform) or scopes_for(platform)


def default_username(organization, platform: str) -> str:
    stem = re.sub(r"[^a-z0-9_]", "", (getattr(organization, "slug", "") or "demo").lower().replace("-", "_"))
    return f"{stem or 'demo'}_{platform}"[:30]


def issue_code(*, platform: str, state: str, username: str) -> str:
    return signing.dumps({"p": platform, "s": state, "u": username}, salt=CODE_SALT, compress=True)


def _refreshes_itself(platform: str) -> bool:
    return platform in ("instagram", "threads")


def exchange(*, platform: str, state: str, code: str) -> tuple[TokenSet, AccountInfo]:
    """Exchange a sandbox code the way a provider would; refuses foreign or stale codes."""
    try:
        payload = signing.loads(code, salt=CODE_SALT, max_age=CODE_MAX_AGE)
    except signing.BadSignature as exc:  # includes SignatureExpired
        raise SandboxCodeInvalid("The authorization code is invalid or expired.") from exc
    if payload.get("p") != platform or payload.get("s") != state:
        raise SandboxCodeInvalid("The authorization code was issued for another request.")
    return new_tokens(platform), account(platform, payload["u"])


def new_tokens(platform: str) -> TokenSet:
    if _refreshes_itself(platform):
        return TokenSet(
            access_token=f"sbx_at_{secrets.token_urlsafe(24)}",
            expires_in=LONG_LIVED_TTL_SECONDS,
            scope=",".join(scopes(platform)),
        )
    return TokenSet(
        access_token=f"sbx_at_{secrets.token_urlsafe(24)}",
        refresh_token=f"sbx_rt_{secrets.token_urlsafe(24)}",
        expires_in=ACCESS_TTL_SECONDS,
        scope=" ".join(scopes(platform)),
    )


def external_id(platform: str, username: str) -> str:
    return "sbx_" + hashlib.sha256(f"{platform}:{username.lower()}".encode()).hexdigest()[:24]


def account(platform: str, username: str) -> AccountInfo:
    ext = external_id(platform, username)
    digest = int(hashlib.sha256(ext.encode()).hexdigest(), 16)
    return AccountInfo(
        external_id=ext,
        username=username,
        display_name=username.replace("_", " ").replace(".", " ").title(),
        picture_url=f"{base_url()}/oauth/sandbox/avatar/{ext}.png",
        followers=100 + digest % 9900,
    )


def avatar_png(key: str, size: int = 128) -> bytes:
    """A round, coloured avatar with an initial, derived from ``key``."""
    from PIL import Image, ImageDraw, ImageFont

    digest = hashlib.sha256(key.encode()).digest()
    colour = (64 + digest[0] % 160, 64 + digest[1] % 160, 64 + digest[2] % 160)
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse((0, 0, size - 1, size - 1), fill=colour)
    letter = "ABCDEFGHJKLMNPQRSTUVWXYZ"[digest[3] % 24]
    try:
        font = ImageFont.load_default(size=size // 2)
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    draw.text((size / 2, size / 2), letter, fill=(255, 255, 255, 255), font=font, anchor="mm")
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()
