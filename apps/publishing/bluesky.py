"""Connecting a Bluesky account with its handle and an app password, and keeping its session.

The handle is resolved to a DID (``com.atproto.identity.resolveHandle`` at
BLUESKY_SERVICE_URL), the DID document to the account's PDS (did:plc at
BLUESKY_PLC_DIRECTORY_URL, did:web at the host's /.well-known/did.json), and the session is
created there (``com.atproto.server.createSession``). The profile keeps the session's two JWTs
and the app password, encrypted like every token (an app password can be revoked at Bluesky
and cannot change the account's settings). The access JWT lives about two hours: it is
renewed with ``refreshSession``; when the refresh JWT has expired too, a new session is made
from the app password; when Bluesky refuses the app password (revoked), the profile is marked
expired with that reason.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.utils import timezone

from apps.core.errors import InvalidSubject, PlatformFailure
from apps.profiles.models import SocialProfile

from . import crypto
from .oauth_backends import TokenSet
from .platforms.base import PlatformError
from .platforms.bluesky import BlueskyClient, jwt_expiry


def client_of(profile: SocialProfile) -> BlueskyClient:
    """The account's client on its own PDS, with the current access JWT."""
    return BlueskyClient(
        access_token=crypto.decrypt(profile.access_token_enc),
        account_id=profile.external_id,
        base_url=str((profile.platform_data or {}).get("pds") or settings.BLUESKY_SERVICE_URL),
    )


def _tokens(session: dict) -> TokenSet:
    access = str(session.get("accessJwt") or "")
    expires = jwt_expiry(access)
    seconds = int((expires - timezone.now()).total_seconds()) if expires else None
    return TokenSet(
        access_token=access,
        refresh_token=str(session.get("refreshJwt") or ""),
        expires_in=max(seconds, 1) if seconds is not None else None,
        scope="atproto app_password",
        account_id=str(session.get("did") or ""),
    )


def bluesky_connect(*, organization, handle: str, app_password: str, brand=None) -> SocialProfile:
    """Connect (or reconnect) the account of ``handle`` with its app password."""
    from .oauth import profile_connect

    handle = (handle or "").strip().lstrip("@").lower()
    if not handle or not app_password:
        raise InvalidSubject("Give the Bluesky handle and an app password.", "handle", "Required.")
    directory = BlueskyClient(access_token="", base_url=settings.BLUESKY_SERVICE_URL)
    try:
        did = handle if handle.startswith("did:") else directory.resolve_handle(handle)
        pds = directory.resolve_pds(did, plc_directory=settings.BLUESKY_PLC_DIRECTORY_URL)
    except PlatformError as exc:
        if exc.code in ("unsafe_pds", "unsafe_url"):  # a DID pointing inside: nothing contacted
            raise InvalidSubject(
                f"@{handle} may not be connected: {exc.message}", "handle", exc.message
            ) from None
        if exc.retryable:  # Bluesky not reached (network, 5xx, 429): not the handle's fault, a 502
            raise PlatformFailure(f"Bluesky could not be reached to find @{handle}: {exc.message}") from None
        raise InvalidSubject(
            f"Bluesky could not find @{handle}: {exc.message}", "handle", exc.message
        ) from None
    client = BlueskyClient(access_token="", account_id=did, base_url=pds)
    try:
        session = client.create_session(did, app_password)
    except PlatformError as exc:
        if exc.code == "unexpected_redirect":  # a PDS that moves elsewhere: never followed
            raise InvalidSubject(
                f"The PDS of @{handle} ({pds}) answered createSession with a redirect "
                f"(HTTP {exc.status_code}); nothing was connected.",
                "handle",
                "The account's PDS must answer createSession itself.",
            ) from None
        if exc.retryable:  # a raw PlatformError would reach the family handler as a 500
            raise PlatformFailure(f"Bluesky could not be reached to sign in: {exc.message}") from None
        raise InvalidSubject(
            f"Bluesky refused the handle and app password: {exc.message}",
            "app_password",
            "Create an app password at bsky.app (Settings > Privacy and security > App passwords).",
        ) from None
    tokens = _tokens(session)
    if not tokens.access_token or not tokens.refresh_token:
        raise InvalidSubject(
            f"The PDS of @{handle} ({pds}) answered createSession without a session.",
            "handle",
            "The account's PDS gave no accessJwt and refreshJwt; nothing was connected.",
        )
    client.access_token, client.account_id = tokens.access_token, tokens.account_id or did
    account = client.fetch_account()
    profile = profile_connect(
        organization=organization, platform="bluesky", account=account, tokens=tokens, brand=brand
    )
    profile.secret_enc = crypto.encrypt(app_password)
    profile.platform_data = {**(profile.platform_data or {}), "pds": pds}
    profile.save(update_fields=["secret_enc", "platform_data", "updated_at"])
    return profile


def session_renew(profile: SocialProfile, *, now: datetime.datetime) -> SocialProfile:
    """A fresh session for the profile (caller holds its row lock): refreshSession, else a new
    session from the app password; a refused app password marks the profile expired."""
    from .oauth import TokenRefreshFailed, _store_tokens, profile_mark_token

    client = client_of(profile)
    try:
        session = client.refresh_session(crypto.decrypt(profile.refresh_token_enc))
    except PlatformError as exc:
        if exc.retryable:
            raise TokenRefreshFailed(f"bluesky: {exc.code} ({exc.status_code})") from None
        try:  # the refresh JWT expired or was revoked: log in again with the app password
            session = client.create_session(profile.external_id, crypto.decrypt(profile.secret_enc))
        except PlatformError as login:
            if login.retryable:
                raise TokenRefreshFailed(f"bluesky: {login.code} ({login.status_code})") from None
            return profile_mark_token(
                profile,
                "expired",
                f"Bluesky refused the app password ({login.code}: {login.message}); it was probably "
                "revoked: reconnect the profile with a new app password.",
            )
    _store_tokens(profile, _tokens(session), now=now)
    if not profile.token_scopes:
        profile.token_scopes = "atproto app_password"
    profile.save()
    return profile
