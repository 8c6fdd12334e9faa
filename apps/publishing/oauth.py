"""Connecting social profiles over OAuth 2.0, and keeping their tokens fresh.

``oauth_begin`` records a single-use ``OAuthState`` (organization, user, credential,
redirect URI, PKCE verifier, brand, API family; 10 minutes) and returns the provider's
authorization URL, or the sandbox consent page when the platform has no app credentials.
``oauth_complete`` runs at ``/oauth/<platform>/callback``: it claims the state with a
conditional UPDATE, exchanges the code (``oauth_backends``), reads the account with the
platform client, creates or reconnects the ``SocialProfile`` with its tokens encrypted, and
answers with the client's redirect URI carrying ``profileId`` or ``error``.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import re
import secrets
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from social_core.exceptions import (
    AuthCanceled,
    AuthConfigurationError,
    AuthCredentialError,
    SocialAuthBaseException,
)

from apps.brands.services import brand_ensure_default
from apps.core import ids
from apps.core.errors import InvalidSubject, RuleViolation, UnknownReference
from apps.events.services import event_record
from apps.profiles.models import SocialProfile, normalize_platform
from apps.publishing.platforms.base import AccountInfo, PlatformError

from . import crypto, sandbox
from .models import OAuthState
from .oauth_backends import (
    APP_PASSWORD_PLATFORMS,
    OAUTH_PLATFORMS,
    PageChoiceRequired,
    TokenSet,
    backend_for,
    connect_mode,
    credential_settings,
    is_real,
    scopes_for,
)

logger = logging.getLogger(__name__)

STATE_TTL = datetime.timedelta(minutes=10)
#: Instagram and Threads refresh their 60-day token itself, once it is >= 24 h old
SELF_REFRESHING = ("instagram", "threads")
LONG_LIVED_TTL = datetime.timedelta(days=60)


class UnknownState(Exception):
    """The callback's state matches no connect attempt: there is no redirect URI to answer."""


class CallbackRefused(Exception):
    """The callback is refused without redirecting: the browser gets a 4xx (a page, or the
    family's JSON error when it asks for JSON), never the client's redirect URI."""

    def __init__(self, status: int, code: str, message: str, family: str = "v1"):
        super().__init__(message)
        self.status, self.code, self.message, self.family = status, code, message, family


class TokenRefreshFailed(Exception):
    """A refresh that may succeed later (provider down, rate limited)."""


# --- begin ----------------------------------------------------------------------------------


def supported_platforms() -> list[dict]:
    """Every platform with how it connects here: ``real``, ``sandbox`` (development, or listed
    in SANDBOX_PLATFORMS) or ``unavailable`` with the settings that would make it real."""
    rows = []
    for p in OAUTH_PLATFORMS:
        mode = connect_mode(p)
        rows.append(
            {
                "platform": p,
                "mode": mode,
                "requires": not_configured_settings(p) if mode == "unavailable" else [],
            }
        )
    return rows


def not_configured_settings(platform: str) -> list[str]:
    """The settings an operator must set for the platform to connect for real."""
    return credential_settings(platform)


def check_offered(platform: str) -> None:
    """Outside development a platform without app credentials is not offered (unless the
    operator lists it in SANDBOX_PLATFORMS): a 4xx naming what to set, never a silent sandbox."""
    mode = connect_mode(platform)
    if mode == "app_password":
        raise RuleViolation(
            f"{platform} connects with the account's handle and an app password, not a redirect: "
            f"POST /v1/profiles/{platform}/connect or /api/oauth/{platform}/app-password.",
            problems={"platform": ["Connect with a handle and an app password."]},
        )
    if mode != "unavailable":
        return
    names = " and ".join(not_configured_settings(platform))
    raise RuleViolation(
        f"{platform} is not configured on this server: the operator must set {names} "
        f"(or list {platform} in SANDBOX_PLATFORMS to offer the test sandbox, whose posts go nowhere).",
        problems={"platform": [f"Set {names}."]},
    )


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_loopback(host: str) -> bool:
    host = (host or "").lower().rstrip(".")
    return host in LOOPBACK_HOSTS or host.endswith(".localhost") or host.startswith("127.")


def _development() -> bool:
    return bool(settings.DEBUG or getattr(settings, "DEVELOPMENT", False))


_DNS_NAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.?")


def _ascii_host(host: str) -> str:
    """The host as browsers send it (an IP literal, or a DNS name with IDN labels in punycode),
    or "" when it is neither (spaces, NUL, lone surrogates...)."""
    host = host.lower()
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        name = host.encode("idna").decode("ascii")
    except UnicodeError:
        return ""
    return name if len(name) <= 253 and _DNS_NAME.fullmatch(name) else ""


def origin_of(uri: str) -> str:
    """``scheme://host[:port]`` of an absolute http(s) URL, lower-case, default port dropped
    ("" when the URL has none)."""
    try:
        parts = urlsplit(uri or "")
        port = parts.port
    except ValueError:
        return ""
    scheme, host = (parts.scheme or "").lower(), _ascii_host(parts.hostname or "")
    if scheme not in _DEFAULT_PORTS or not host:
        return ""
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}" + (f":{port}" if port and port != _DEFAULT_PORTS[scheme] else "")


def allowed_redirect_origins(organization) -> set[str]:
    """The deployment's OAUTH_ALLOWED_REDIRECT_ORIGINS, the organization's own origins and the
    service's PUBLIC_BASE_URL."""
    from .models import OAuthRedirectOrigin

    configured = getattr(settings, "OAUTH_ALLOWED_REDIRECT_ORIGINS", ()) or ()
    if isinstance(configured, str):
        configured = configured.split(",")
    found = {origin_of(o.strip()) for o in configured} | {origin_of(settings.PUBLIC_BASE_URL)}
    if organization is not None:
        found |= set(
            OAuthRedirectOrigin.objects.for_organization(organization).values_list("origin", flat=True)
        )
    found.discard("")
    return found


def _redirect_refusal(uri: str, organization) -> str | None:
    """Why the client's redirect URI is not acceptable (None: it is)."""
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if parts.username is not None or parts.password is not None:
        return "redirectUri cannot carry credentials (user:password@)."
    if parts.fragment or uri.endswith("#"):
        return "redirectUri cannot have a fragment (#...)."
    loopback = _is_loopback(host)
    if parts.scheme != "https" and not (loopback and _development()):
        return "redirectUri must use https (http only for localhost in development)."
    if loopback and _development():
        return None  # a developer's own machine, any port
    origin = origin_of(uri)
    if origin not in allowed_redirect_origins(organization):
        return (
            f"The origin {origin} is not an allowed redirect origin: add it to the organization's "
            "redirect origins (/oauth/redirect-origins) or to OAUTH_ALLOWED_REDIRECT_ORIGINS."
        )
    return None


def validate_redirect_uri(uri: str, *, organization=None) -> str:
    """An absolute https URL on an allowed origin (http only for loopback in development)."""
    parts = urlsplit(uri or "") if isinstance(uri, str) else None
    try:
        valid = (
            parts is not None
            and parts.scheme in ("http", "https")
            and bool(parts.hostname)
            and (parts.port or 1)
        )
        valid = valid and bool(origin_of(uri))  # a host browsers can reach: no spaces, NUL, bad labels
    except ValueError:  # a port that is not a number
        valid = False
    if not valid:
        raise InvalidSubject(
            "redirectUri must be an absolute http(s) URL.", "redirect_uri", "Must be an absolute http(s) URL."
        )
    if len(uri) > 2000:
        raise InvalidSubject("redirectUri is too long.", "redirect_uri", "At most 2000 characters.")
    reason = _redirect_refusal(uri, organization)
    if reason:
        raise InvalidSubject(reason, "redirect_uri", reason)
    return uri


def normalize_redirect_origin(value: str) -> str:
    """An origin an organization registers: ``https://host[:port]`` with nothing after it
    (http only for loopback hosts)."""
    raw = (value or "").strip()
    origin = origin_of(raw)
    parts = urlsplit(raw)
    if (
        not origin
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
    ):
        raise InvalidSubject(
            "origin must be scheme://host[:port] with no path.",
            "origin",
            "Use scheme://host[:port], e.g. https://app.example.com.",
        )
    if not origin.startswith("https://") and not _is_loopback(parts.hostname or ""):
        raise InvalidSubject("origin must use https (http only for localhost).", "origin", "Must use https.")
    return origin


def redirect_origin_add(*, organization, origin: str):
    """Register an origin for the organization (adding one already there returns it)."""
    from .models import OAuthRedirectOrigin

    origin = normalize_redirect_origin(origin)
    row, _ = OAuthRedirectOrigin.objects.get_or_create(organization=organization, origin=origin)
    return row


def redirect_origin_remove(*, row) -> None:
    """Forget an origin: connect attempts already begun towards it are refused at the callback."""
    row.delete()


def resolve_platform(value: str) -> str:
    platform = normalize_platform(value or "")
    if platform is None or platform not in OAUTH_PLATFORMS:
        raise InvalidSubject(
            f"Unknown platform '{str(value)[:40]}'.",
            "platform",
            f"Must be one of: {', '.join(OAUTH_PLATFORMS)}.",
        )
    return platform


def oauth_begin(
    *,
    organization,
    actor_user,
    credential_id: str,
    platform: str,
    redirect_uri: str,
    brand=None,
    family: str = "v1",
    credential_expires_at: float | None = None,
    page_id: str = "",
    account_type: str = "",
) -> tuple[str, str]:
    """Record a connect attempt and return ``(auth_url, state)``.

    ``credential_expires_at`` is a JWT's ``exp``: the callback refuses the attempt after it,
    as it refuses one whose API key was revoked meanwhile. ``page_id`` (Facebook, LinkedIn
    organization) names the Page to connect; without it the only Page is connected (several:
    ``page_required``), and the profile lists them all. ``account_type="organization"``
    (LinkedIn; implied by ``page_id``) connects an organization page instead of the member."""
    from .linkedin_pages import connect_target

    platform = resolve_platform(platform)
    page_id, account_type = connect_target(platform, page_id or "", account_type or "")
    check_offered(platform)
    validate_redirect_uri(redirect_uri, organization=organization)
    if brand is not None and brand.organization_id != organization.pk:
        raise UnknownReference("brand")
    real = is_real(platform)
    backend = backend_for(platform, account_type=account_type) if real else None
    if backend is not None:
        backend.account_type = account_type  # LinkedIn: an organization page asks for its scopes
    state = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(64)[:86] if backend is not None and backend.uses_pkce else ""
    user = actor_user if isinstance(actor_user, get_user_model()) else None
    OAuthState.objects.create(
        organization=organization,
        user=user,
        credential_id=credential_id or "",
        credential_expires_at=(
            datetime.datetime.fromtimestamp(credential_expires_at, tz=datetime.UTC)
            if credential_expires_at
            else None
        ),
        platform=platform,
        state=state,
        redirect_uri=redirect_uri,
        code_verifier=verifier,
        brand=brand,
        family="api" if family == "api" else "v1",
        sandbox=not real,
        page_id=page_id,
        account_type=account_type,
        expires_at=timezone.now() + STATE_TTL,
    )
    if backend is None:
        return sandbox.authorize_url(platform, state), state
    return backend.begin_url(state=state, code_verifier=verifier), state


def state_for_consent(*, platform: str, state: str) -> OAuthState | None:
    """The pending sandbox attempt a consent page may show (None: nothing to consent to)."""
    row = (
        OAuthState.objects.select_related("organization").filter(state=state or "", platform=platform).first()
    )
    if row is None or not row.sandbox or row.used_at is not None or row.expires_at <= timezone.now():
        return None
    return row


# --- complete -------------------------------------------------------------------------------


def _with_params(url: str, params: dict) -> str:
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True) + [
        (k, v) for k, v in params.items() if v is not None
    ]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _error_redirect(row: OAuthState, error: str, description: str) -> tuple[None, str]:
    return None, _with_params(
        row.redirect_uri, {"error": error, "error_description": description[:300], "state": row.state}
    )


def _credential_problem(row: OAuthState, now) -> tuple[str, str] | None:
    """Whether the credential that began the attempt may still finish it: the same key (not
    revoked, of the state's organization, still allowed to connect profiles) or the same
    token (not expired, its user still an admin there). ``(code, message)`` when not."""
    kind, _, rest = (row.credential_id or "").partition(":")
    if kind == "key":
        return _key_problem(row, rest)
    if kind == "jwt":
        return _token_problem(row, rest, now)
    return "credential_invalid", "This connect attempt was not started by an API credential."


def _key_problem(row: OAuthState, key_hex: str) -> tuple[str, str] | None:
    """The API key that began the attempt: still there, of the state's organization, not
    revoked and still allowed to connect profiles."""
    from apps.accounts.models import ROLE_RANK, ApiKey, Role

    key_id = ids.parse(key_hex)
    key = ApiKey.objects.filter(pk=key_id).first() if key_id else None
    if key is None or key.organization_id != row.organization_id:
        return (
            "credential_invalid",
            "The API key that started this connection no longer exists; start again.",
        )
    if key.revoked_at is not None:
        return (
            "credential_revoked",
            "The API key that started this connection was revoked; start again with a valid key.",
        )
    if ROLE_RANK[Role(key.role)] < ROLE_RANK[Role.ADMIN] or (key.scopes and "profiles" not in key.scopes):
        return (
            "credential_not_allowed",
            "The API key that started this connection may no longer connect profiles.",
        )
    return None


def _token_problem(row: OAuthState, token_rest: str, now) -> tuple[str, str] | None:
    """The token that began the attempt: of the state's organization, not expired, its user
    still an admin there."""
    from apps.accounts.models import ROLE_RANK, Membership, Role

    org_hex = token_rest.partition(":")[0]
    if org_hex != row.organization_id.hex:
        return (
            "credential_invalid",
            "The token that started this connection belongs to another organization.",
        )
    if row.credential_expires_at is not None and row.credential_expires_at <= now:
        return (
            "credential_expired",
            "The token that started this connection expired; start again with a fresh one.",
        )
    if row.user_id is not None:
        membership = Membership.objects.filter(
            organization_id=row.organization_id, user_id=row.user_id
        ).first()
        if membership is None or ROLE_RANK[Role(membership.role)] < ROLE_RANK[Role.ADMIN]:
            return (
                "credential_not_allowed",
                "The user who started this connection may no longer connect profiles.",
            )
    return None


class _NotGranted(Exception):
    """The provider's answer ends the attempt: the browser goes back with ``error``."""

    def __init__(self, error: str, description: str):
        super().__init__(error)
        self.error = error
        self.description = description


def _granted(row: OAuthState, code: str) -> tuple[TokenSet, AccountInfo]:
    """The tokens for the code and the account they reach, or ``_NotGranted`` saying why not."""
    try:
        tokens, account = _exchange(row, code)
    except sandbox.SandboxCodeInvalid as exc:
        raise _NotGranted("invalid_grant", str(exc)) from None
    except AuthCanceled:
        raise _NotGranted("access_denied", "The authorization was not granted.") from None
    except PageChoiceRequired as exc:  # Facebook: several Pages, none named: the user chooses
        raise _NotGranted("page_required", exc.detail or str(exc)) from None
    except SocialAuthBaseException as exc:
        logger.warning(
            "OAuth token exchange failed for %s: %s (%s)", row.platform, exc.code, exc.provider_code
        )
        raise _NotGranted("token_exchange_failed", exc.detail or str(exc)) from None
    except PlatformError as exc:
        logger.warning("Reading the %s account failed: %s", row.platform, exc.code)
        raise _NotGranted("account_unavailable", exc.message) from None
    if not account.external_id:
        raise _NotGranted("account_unavailable", "The platform did not identify the account.")
    return tokens, account


def oauth_complete(
    *, platform: str, state: str, code: str, error: str | None = None, error_description: str = ""
) -> tuple[SocialProfile | None, str]:
    """Finish a connect attempt; returns ``(profile or None, URL to redirect the browser to)``.

    Raises ``UnknownState`` when the state matches nothing (no redirect URI is known), and
    ``CallbackRefused`` (a 4xx, no redirect) when the callback looks replayed or tampered
    with, the redirect URI is no longer allowed, or the credential that began the attempt
    is no longer valid for its organization.
    """
    row = (
        OAuthState.objects.select_related("organization", "brand").filter(state=state or "").first()
        if state
        else None
    )
    if row is None:
        raise UnknownState("Unknown or missing state.")
    family = row.family
    if row.platform != platform:
        raise CallbackRefused(
            400, "invalid_state", "This connection link was issued for another platform.", family
        )
    now = timezone.now()
    if row.used_at is not None:
        raise CallbackRefused(
            409, "state_already_used", "This connect attempt was already completed; start a new one.", family
        )
    if _redirect_refusal(row.redirect_uri, row.organization):
        raise CallbackRefused(
            400,
            "redirect_not_allowed",
            "The application's return address is no longer allowed for this organization; start again.",
            family,
        )
    if row.expires_at <= now:
        return _error_redirect(row, "expired_state", "This connect attempt expired; start a new one.")
    # Single use: only the request whose UPDATE changed the row proceeds.
    if not OAuthState.objects.filter(pk=row.pk, used_at__isnull=True, expires_at__gt=now).update(used_at=now):
        raise CallbackRefused(
            409, "state_already_used", "This connect attempt was already completed; start a new one.", family
        )
    problem = _credential_problem(row, now)
    if problem:
        logger.warning("OAuth callback for %s refused: %s (%s)", platform, problem[0], row.pk)
        raise CallbackRefused(403, problem[0], problem[1], family)
    if error:
        return _error_redirect(row, error[:64], error_description or "The authorization was not granted.")
    if not code:
        return _error_redirect(row, "invalid_request", "The provider returned no authorization code.")

    try:
        tokens, account = _granted(row, code)
    except _NotGranted as refusal:
        return _error_redirect(row, refusal.error, refusal.description)

    profile = profile_connect(
        organization=row.organization,
        platform=platform,
        account=account,
        tokens=tokens,
        brand=row.brand,
        sandbox=row.sandbox,
    )
    OAuthState.objects.filter(pk=row.pk).update(profile=profile)
    profile_id = ids.render(profile.pk, "profile") if row.family == "v1" else str(profile.pk)
    return profile, _with_params(
        row.redirect_uri, {"profileId": profile_id, "state": row.state, "notice": connect_notice(profile)}
    )


def connect_notice(profile: SocialProfile) -> str | None:
    """What the user should know right after connecting (a ``notice`` on the redirect): each
    app-review gate that holds their posts back (apps.platforms.gates)."""
    from apps.platforms.gates import connect_notice as gate_notice

    if profile.sandbox:
        return None
    return gate_notice(profile.platform)


def _exchange(row: OAuthState, code: str) -> tuple[TokenSet, AccountInfo]:
    """Tokens for the code, then the account they give access to (network; no transaction)."""
    if row.sandbox:
        return sandbox.exchange(platform=row.platform, state=row.state, code=code)
    backend = backend_for(row.platform, account_type=row.account_type)
    backend.wanted_page, backend.account_type = row.page_id, row.account_type
    tokens = backend.exchange_code(code=code, state=row.state, code_verifier=row.code_verifier)
    return tokens, backend.read_account(tokens)


@transaction.atomic
def profile_connect(
    *, organization, platform: str, account: AccountInfo, tokens: TokenSet, brand=None, sandbox: bool = False
) -> SocialProfile:
    """Create the profile, or reconnect the one with the same account (no duplicate)."""
    now = timezone.now()
    fields = {
        "username": account.username or account.external_id,
        "display_name": account.display_name or "",
        "picture_url": (account.picture_url or "")[:1000],
        "follower_count": max(int(account.followers or 0), 0),
        "connected": True,
        "connected_at": now,
        "sandbox": sandbox,
    }
    lookup = {"organization": organization, "platform": platform, "external_id": account.external_id}
    profile = SocialProfile.objects.select_for_update().filter(**lookup).first()
    created = False
    if profile is None or not profile.connected:
        from apps.accounts.plans import plan_check, plan_has_limit

        if plan_has_limit(organization, "profiles"):  # the plan's number of connected profiles
            used = SocialProfile.objects.filter(organization=organization, connected=True).count()
            plan_check(organization, "profiles", used=used)
    if profile is None:
        try:
            with transaction.atomic():
                profile = SocialProfile.objects.create(
                    **lookup, **fields, brand=brand or brand_ensure_default(organization=organization)
                )
                created = True
        except IntegrityError:  # a concurrent callback created it first: reconnect that one
            profile = SocialProfile.objects.select_for_update().get(**lookup)
    if not created:
        for name, value in fields.items():
            setattr(profile, name, value)
        if brand is not None:
            profile.brand = brand
    _store_tokens(profile, tokens, now=now, default_scopes=scopes_for(platform))
    # who granted access: Meta's deauthorize and data-deletion callbacks name them
    profile.platform_user_id = (tokens.user_id or tokens.account_id or "")[:200]
    if tokens.user_token:  # Facebook: the User token a Page video's upload session starts with
        profile.secret_enc = crypto.encrypt(tokens.user_token)
        expires = (
            (now + datetime.timedelta(seconds=tokens.user_token_expires_in)).isoformat()
            if tokens.user_token_expires_in
            else ""
        )
        profile.platform_data = {**(profile.platform_data or {}), "userTokenExpiresAt": expires}
    if tokens.pages:  # every Page the account manages (LinkedIn: administers), to connect another
        key = "facebookPages" if platform == "facebook" else f"{platform}Pages"
        profile.settings = {**(profile.settings or {}), key: tokens.pages}
    profile.save()
    event_record(
        organization=organization,
        type="profile.connected",
        data={
            "profileId": str(profile.pk),
            "platform": platform,
            "username": profile.username,
            "sandbox": sandbox,
            "reconnected": not created,
        },
    )
    return profile


def _store_tokens(profile: SocialProfile, tokens: TokenSet, *, now, default_scopes=()) -> None:
    profile.access_token_enc = crypto.encrypt(tokens.access_token)
    if tokens.refresh_token:  # never blank a stored refresh token
        profile.refresh_token_enc = crypto.encrypt(tokens.refresh_token)
    profile.token_expires_at = (
        now + datetime.timedelta(seconds=tokens.expires_in) if tokens.expires_in else None
    )
    profile.token_scopes = (tokens.scope or " ".join(default_scopes))[:1000]
    profile.token_status, profile.token_error = "valid", ""
    if (profile.platform_data or {}).get("tokenWarned"):  # a new token: its own warnings
        profile.platform_data = {k: v for k, v in profile.platform_data.items() if k != "tokenWarned"}


# --- refresh --------------------------------------------------------------------------------


def _refresh_revoked(exc: SocialAuthBaseException, platform: str) -> bool:
    """The provider refused the grant itself: only a new connect helps."""
    if isinstance(exc, AuthCredentialError):
        return True
    # X answers a dead refresh token with invalid_request rather than invalid_grant.
    return (
        platform == "x"
        and isinstance(exc, AuthConfigurationError)
        and exc.provider_code == "invalid_request"
        and (exc.status_code or 400) < 500
    )


def profile_mark_token(profile: SocialProfile, status: str, reason: str) -> SocialProfile:
    """The profile's token is `expired` or `revoked`: recorded once (a conditional update, so
    two workers noticing together emit one `profile.token_expired`)."""
    with transaction.atomic():
        changed = (
            SocialProfile.objects.filter(pk=profile.pk)
            .exclude(token_status=status)
            .update(token_status=status, token_error=reason[:500], updated_at=timezone.now())
        )
        profile.token_status, profile.token_error = status, reason[:500]
        if changed:
            event_record(
                organization=profile.organization_id,
                type="profile.token_expired",
                data={
                    "profileId": str(profile.pk),
                    "platform": profile.platform,
                    "status": status,
                    "reason": reason[:500],
                },
            )
    return profile


@transaction.atomic
def profile_refresh_token(  # noqa: PLR0911 - one early answer per case the docstring lists
    *, profile: SocialProfile, unless_valid_until=None, unless_access_changed_from: str = ""
) -> SocialProfile:
    """Refresh the profile's token before it expires.

    Instagram and Threads refresh the long-lived access token itself; the other platforms
    use their refresh token, and a rotated refresh token (TikTok, X, Pinterest) replaces
    the stored one. A refused grant marks the token revoked (an expired token with no way
    to refresh it: expired) and emits ``profile.token_expired``. Transient provider
    failures raise ``TokenRefreshFailed`` and change nothing.

    ``unless_valid_until`` (refresh before use) and ``unless_access_changed_from`` (refresh
    after a 401) skip the call when another worker already refreshed the token.
    """
    profile = SocialProfile.objects.select_for_update().get(pk=profile.pk)
    now = timezone.now()
    # Another worker may have refreshed while this one waited for the row: nothing more to do.
    if (
        unless_valid_until is not None
        and profile.token_status == "valid"
        and (profile.token_expires_at is None or profile.token_expires_at > unless_valid_until)
    ):
        return profile
    if (
        unless_access_changed_from
        and profile.token_status == "valid"
        and (crypto.decrypt(profile.access_token_enc) != unless_access_changed_from)
    ):
        return profile
    if profile.sandbox:
        tokens = sandbox.new_tokens(profile.platform)
        _store_tokens(profile, tokens, now=now, default_scopes=sandbox.scopes(profile.platform))
        profile.save()
        return profile
    if profile.platform in APP_PASSWORD_PLATFORMS:
        from .bluesky import session_renew

        return session_renew(profile, now=now)
    if profile.platform not in OAUTH_PLATFORMS or not is_real(profile.platform):
        raise TokenRefreshFailed(f"{profile.platform} has no app credentials configured.")
    # a LinkedIn organization page's token is refreshed by the app that issued it
    organization = profile.platform == "linkedin" and profile.external_id.startswith("urn:li:organization:")
    backend = backend_for(profile.platform, account_type="organization" if organization else "")
    if backend.token_never_expires and profile.token_expires_at is None:
        return profile
    access = crypto.decrypt(profile.access_token_enc)
    refresh = crypto.decrypt(profile.refresh_token_enc)
    can_refresh = bool(access) if backend.refreshes_access_token else bool(refresh)
    expired = profile.token_expires_at is not None and profile.token_expires_at <= now
    if not can_refresh or (backend.refreshes_access_token and expired):
        if expired:
            return profile_mark_token(
                profile, "expired", "The token expired and cannot be refreshed; reconnect the profile."
            )
        return profile
    try:
        tokens = backend.refresh(access_token=access, refresh_token=refresh)
    except SocialAuthBaseException as exc:
        if _refresh_revoked(exc, profile.platform):
            from .services.tokens import refresh_refusal

            return profile_mark_token(profile, *refresh_refusal(profile, exc.detail, now=now))
        raise TokenRefreshFailed(f"{profile.platform}: {exc.code} ({exc.status_code})") from None
    if not tokens.scope:
        tokens.scope = profile.token_scopes
    _store_tokens(profile, tokens, now=now)
    profile.save()
    return profile


def profiles_due_for_refresh(*, now=None):
    """Profiles whose token expires within TOKEN_REFRESH_AHEAD_SECONDS (the beat runs every
    TOKEN_REFRESH_INTERVAL_SECONDS, so a token is tried at least twice before it runs out);
    Instagram/Threads: within 7 days and >= 24 h old. A profile marked `expired` that still
    holds a refresh token is tried too: only a refused refresh ends a grant."""
    from django.db.models import Q

    now = now or timezone.now()
    # A self-refreshing token lives 60 days, so "at least 24 h old" is "expires within 59 days".
    self_refresh_until = min(
        now + datetime.timedelta(days=7), now + LONG_LIVED_TTL - datetime.timedelta(hours=24)
    )
    ahead = now + datetime.timedelta(seconds=settings.TOKEN_REFRESH_AHEAD_SECONDS)
    return (
        SocialProfile.objects.filter(connected=True, token_expires_at__isnull=False)
        .filter(Q(token_status="valid") | (Q(token_status="expired") & ~Q(refresh_token_enc="")))
        .filter(
            Q(platform__in=SELF_REFRESHING, token_expires_at__lte=self_refresh_until)
            | (~Q(platform__in=SELF_REFRESHING) & Q(token_expires_at__lte=ahead))
        )
        .order_by("token_expires_at")
    )


def oauth_states_purge(*, older_than: datetime.timedelta = datetime.timedelta(days=1)) -> int:
    """Forget connect attempts that expired long ago (used ones included)."""
    deleted, _ = OAuthState.objects.filter(expires_at__lt=timezone.now() - older_than).delete()
    return deleted


def tokens_refresh_due(*, limit: int = 500) -> int:
    """Refresh every due token once; each row is claimed with SKIP LOCKED so two beats never
    refresh (and rotate) the same token at once. Returns how many were refreshed."""
    done = 0
    for pk in list(profiles_due_for_refresh().values_list("pk", flat=True)[:limit]):
        with transaction.atomic():
            profile = (
                SocialProfile.objects.select_for_update(skip_locked=True)
                .filter(pk=pk, token_status__in=("valid", "expired"))
                .first()
            )
            if profile is None:
                continue
            try:
                profile = profile_refresh_token(profile=profile)
            except TokenRefreshFailed as exc:
                logger.warning("Token refresh for profile %s deferred: %s", pk, exc)
                continue
            done += profile.token_status == "valid"
    return done
