"""OAuth 2.0 handshakes per platform, on social-core's backend classes.

social-core does the wire work (authorization URL parameters, PKCE S256 challenges, the
token request with its client authentication, error classification, refresh requests).
It is built around a browser session and a user pipeline; Postforge keeps the state in
its own ``OAuthState`` row instead, so every backend here mixes in ``ServiceBackend``,
which feeds the state and the PKCE verifier from that row and stops after the token
exchange (the account itself is read with the platform client, ``apps.publishing.platforms``).

Endpoints are the real ones (``platforms.yaml``, each platform's ``oauth`` block) unless
``settings.OAUTH_ENDPOINT_OVERRIDES[<platform>]`` names others:
``{"authorize": url, "token": url, "refresh": url, "exchange": url, "api": base_url}``
(tests point them at a local fake provider). A platform is *real* when
``<PLATFORM>_CLIENT_ID`` and ``<PLATFORM>_CLIENT_SECRET`` are set; otherwise its connect
flow runs against the service's own sandbox consent page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from django.conf import settings
from requests.auth import HTTPBasicAuth
from social_core.backends.facebook import FacebookOAuth2
from social_core.backends.google import GoogleOAuth2
from social_core.backends.instagram import InstagramOAuth2
from social_core.backends.linkedin import LinkedinOAuth2
from social_core.backends.oauth import BaseOAuth2, BaseOAuth2PKCE
from social_core.backends.pinterest import PinterestOAuth2
from social_core.backends.twitter_oauth2 import TwitterOAuth2
from social_core.exceptions import AuthCredentialError, AuthProviderError, AuthResponseError
from social_core.strategy import BaseStrategy

from apps.platforms.features import feature_scopes, scope_set

if TYPE_CHECKING:
    from apps.publishing.platforms.base import AccountInfo, PlatformClient

#: platforms whose connect flow is built, in display order
OAUTH_PLATFORMS = (
    "instagram",
    "facebook",
    "tiktok",
    "youtube",
    "linkedin",
    "x",
    "threads",
    "pinterest",
    "bluesky",
)
#: platforms without an OAuth flow here (Bluesky's needs PAR + DPoP, which social-core cannot do):
#: their redirect flow is the sandbox's, in development
SANDBOX_ONLY = frozenset({"bluesky"})
#: platforms that connect for real with the account's own app password (apps.publishing.bluesky)
APP_PASSWORD_PLATFORMS = frozenset({"bluesky"})


def _overrides(platform: str) -> dict[str, str]:
    return dict((getattr(settings, "OAUTH_ENDPOINT_OVERRIDES", None) or {}).get(platform) or {})


def credentials(platform: str, *, account_type: str = "") -> tuple[str, str]:
    """The app's client id and secret; a LinkedIn organization connect uses the second app
    (LINKEDIN_PAGES_CLIENT_ID/SECRET: the Community Management API's) when both are set."""
    prefix = platform.upper()
    if platform == "linkedin" and account_type == "organization":
        pages = (
            getattr(settings, "LINKEDIN_PAGES_CLIENT_ID", "") or "",
            getattr(settings, "LINKEDIN_PAGES_CLIENT_SECRET", "") or "",
        )
        if all(pages):
            return pages
    return (
        getattr(settings, f"{prefix}_CLIENT_ID", "") or "",
        getattr(settings, f"{prefix}_CLIENT_SECRET", "") or "",
    )


def is_real(platform: str) -> bool:
    """True when the platform has app credentials (and a real flow exists for it)."""
    if platform in SANDBOX_ONLY:
        return False
    client_id, secret = credentials(platform)
    return bool(client_id and secret)


def credential_settings(platform: str) -> list[str]:
    """The settings (environment variables) that make a platform real."""
    return [f"{platform.upper()}_CLIENT_ID", f"{platform.upper()}_CLIENT_SECRET"]


def sandbox_allowed(platform: str) -> bool:
    """The local sandbox stands in for a platform only in development, or when the operator
    lists the platform in SANDBOX_PLATFORMS (a demo or staging deployment)."""
    if bool(getattr(settings, "DEVELOPMENT", False) or settings.DEBUG):
        return True
    return platform in set(getattr(settings, "SANDBOX_PLATFORMS", ()) or ())


def connect_mode(platform: str) -> str:
    """``real`` (app credentials set), ``sandbox`` (allowed here), ``app_password`` (Bluesky
    outside development: connect with a handle and an app password) or ``unavailable``."""
    if is_real(platform):
        return "real"
    if sandbox_allowed(platform):
        return "sandbox"
    return "app_password" if platform in APP_PASSWORD_PLATFORMS else "unavailable"


def callback_url(platform: str) -> str:
    base = (getattr(settings, "OAUTH_CALLBACK_BASE_URL", "") or settings.PUBLIC_BASE_URL).rstrip("/")
    return f"{base}/oauth/{platform}/callback"


def api_base_url(platform: str) -> str | None:
    """The platform API base for the platform client (None: the client's default; Pinterest:
    PINTEREST_API_URL, the sandbox host for Trial-access apps)."""
    configured = getattr(settings, "PINTEREST_API_URL", "") if platform == "pinterest" else ""
    return _overrides(platform).get("api") or configured or None


def platform_client(
    platform: str, *, access_token: str, account_id: str = "", user_token: str = ""
) -> PlatformClient:
    """The platform's client; ``user_token``: Facebook's User access token (Page video uploads)."""
    from apps.publishing.platforms.registry import get_client_class

    extra: dict[str, Any] = {}
    if platform == "facebook":
        extra = {"user_token": user_token, "video_base_url": _overrides(platform).get("video_api") or None}
    return get_client_class(platform)(
        access_token=access_token, account_id=account_id, base_url=api_base_url(platform), **extra
    )


# --- strategy: settings from Django settings, no session, no user storage ---------------


class ServiceStrategy(BaseStrategy):
    """The minimum social-core needs to build URLs and exchange tokens."""

    def __init__(self, values: dict[str, Any], data: dict[str, Any] | None = None) -> None:
        super().__init__(storage=None)
        self._values = values
        self._data = dict(data or {})
        self._session: dict[str, Any] = {}

    def setting(self, name: str, default=None, backend=None):
        # One backend per strategy: its values only, never the global SOCIAL_AUTH_* settings.
        return self._values.get(name, default)

    def get_setting(self, name: str):
        return self._values[name]

    def get_request_data(self, merge: bool = True) -> dict[str, Any]:
        return self._data

    def build_absolute_uri(self, path: str | None = None) -> str:
        return path or ""

    def request_host(self) -> str:
        return ""

    def session_get(self, name: str, default=None):
        return self._session.get(name, default)

    def session_set(self, name: str, value):
        self._session[name] = value

    def session_pop(self, name: str):
        return self._session.pop(name, None)

    def redirect(self, url: str):
        raise NotImplementedError

    def html(self, content: str):
        raise NotImplementedError


@dataclass
class TokenSet:
    access_token: str
    refresh_token: str = ""
    expires_in: int | None = None
    scope: str = ""
    #: the account the token belongs to, when the platform says so (open_id, user_id, page id)
    account_id: str = ""
    raw_keys: list[str] = field(default_factory=list)
    #: Facebook: the Pages the account manages ({"id", "name"}), the connected one among them
    pages: list[dict[str, str]] = field(default_factory=list)
    #: the person who granted access, when the account is not theirs (Facebook: the user's
    #: app-scoped id, which Meta's deauthorize and data-deletion callbacks name)
    user_id: str = ""
    #: Facebook: the long-lived User access token (the Resumable Upload API starts a Page video's
    #: upload session with it) and its lifetime in seconds
    user_token: str = ""
    user_token_expires_in: int | None = None

    def __repr__(self) -> str:  # never print tokens
        return f"TokenSet(expires_in={self.expires_in}, scope={self.scope!r}, account_id={self.account_id!r})"


class ServiceBackend:
    """Drives a social-core backend from an ``OAuthState`` row instead of a session."""

    platform: ClassVar[str] = ""
    #: PKCE (S256) on the authorization request and the code exchange: on every platform whose
    #: web login supports it (platforms.yaml `pkce`: X requires it, Google supports it; the
    #: others do not document it for web apps, and TikTok's is for mobile and desktop apps)
    uses_pkce: ClassVar[bool] = False
    #: Facebook: the Page the user chose at connect (set per handshake by ``oauth._exchange``);
    #: LinkedIn: the organization page's id
    wanted_page: str = ""
    #: LinkedIn: "organization" to connect an organization page the member administers
    account_type: str = ""
    #: True when the platform refreshes the long-lived access token itself (no refresh token)
    refreshes_access_token: ClassVar[bool] = False
    #: True when the stored token never needs a refresh (Facebook Page tokens)
    token_never_expires: ClassVar[bool] = False
    _fixed_state: str | None = None
    _fixed_verifier: str = ""

    def get_scope(self) -> list[str]:
        """The backend's base permissions plus each feature's (``platforms.yaml`` features)."""
        return scopes_for(self.platform)

    # -- hooks replacing the session --------------------------------------------------
    def get_or_create_state(self):
        return self._fixed_state

    def validate_state(self):
        return self._fixed_state

    def create_code_verifier(self, state=None):
        return self._fixed_verifier

    def get_code_verifier(self, state=None):
        return self._fixed_verifier

    def authorization_url(self) -> str:
        return _overrides(self.platform).get("authorize") or super().authorization_url()  # type: ignore[misc]

    def access_token_url(self) -> str:
        return _overrides(self.platform).get("token") or super().access_token_url()  # type: ignore[misc]

    def refresh_token_url(self):
        return _overrides(self.platform).get("refresh") or super().refresh_token_url()

    # -- the three operations ---------------------------------------------------------
    def begin_url(self, *, state: str, code_verifier: str = "") -> str:
        self._fixed_state, self._fixed_verifier = state, code_verifier
        return self.auth_url()  # type: ignore[attr-defined]

    def exchange_code(self, *, code: str, state: str, code_verifier: str = "") -> TokenSet:
        self._fixed_state, self._fixed_verifier = state, code_verifier
        self.data = {"code": code, "state": state}
        params = self.auth_complete_params(state)  # type: ignore[attr-defined]
        method = self.ACCESS_TOKEN_METHOD  # type: ignore[attr-defined]
        body = {"params": params} if method == "GET" else {"data": params}
        response = self.request_access_token(  # type: ignore[attr-defined]
            self.access_token_url(),
            method=method,
            headers=self.auth_headers(),  # type: ignore[attr-defined]
            auth=self.auth_complete_credentials(),  # type: ignore[attr-defined]
            **body,
        )
        response = self.unwrap(response)
        self.get_access_token(response)  # type: ignore[attr-defined]  # raises when missing
        return self.after_exchange(self.token_set(response))

    def refresh(self, *, access_token: str, refresh_token: str) -> TokenSet:
        response = self.refresh_token(refresh_token)  # type: ignore[attr-defined]
        return self.token_set(self.unwrap(response))

    # -- per-platform adjustments -----------------------------------------------------
    def unwrap(self, response: dict[str, Any]) -> dict[str, Any]:
        return response

    def token_set(self, response: dict[str, Any]) -> TokenSet:
        expires = response.get("expires_in")
        scope = response.get("scope") or ""
        if isinstance(scope, list):
            scope = ",".join(scope)
        return TokenSet(
            access_token=str(response.get("access_token") or ""),
            refresh_token=str(response.get("refresh_token") or ""),
            expires_in=int(str(expires)) if str(expires or "").isdigit() else None,
            scope=str(scope),
            account_id=str(response.get("open_id") or response.get("user_id") or ""),
            raw_keys=sorted(response),
        )

    def after_exchange(self, tokens: TokenSet) -> TokenSet:
        return tokens

    def account_id_for(self, tokens: TokenSet) -> str:
        """The account id the platform client needs (default: what the token response said)."""
        return tokens.account_id

    def read_account(self, tokens: TokenSet) -> AccountInfo:
        """The connected account, read with the platform client (raises ``PlatformError``)."""
        client = platform_client(
            self.platform, access_token=tokens.access_token, account_id=self.account_id_for(tokens)
        )
        return client.fetch_account()

    def refresh_token_auth(self):
        if self.use_basic_auth():
            key, secret = self.get_key_and_secret()
            return HTTPBasicAuth(key, secret)
        return None

    def refresh_token_params(self, token: str, *args, **kwargs) -> dict[str, str]:
        params = super().refresh_token_params(token, *args, **kwargs)  # type: ignore[misc]
        if self.use_basic_auth():  # type: ignore[attr-defined]
            params.pop("client_secret", None)
        return params


def _credential_code(stage: str) -> str:
    return "reauthentication_required" if stage == "refresh" else "credential_rejected"


class GraphErrors:
    """Meta's error bodies (Instagram, Threads, Facebook).

    The Graph API reports a dead, expired or revoked token as ``{"error": {"type":
    "OAuthException", "code": 190, ...}}`` (102: session key invalid), with no OAuth
    ``error`` code for social-core to classify: without this, a revoked grant looked like
    a transient HTTP error and its refresh was deferred forever. Instagram's code exchange
    answers errors flat: ``{"error_type": "OAuthException", "code": 400, "error_message"}``.
    """

    TOKEN_ERROR_CODES: ClassVar[frozenset[int]] = frozenset({102, 190})

    def get_provider_error(self, data, *, stage="callback", status_code=None, retry_after=None):
        fields = {"stage": stage, "status_code": status_code, "retry_after": retry_after}
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict) and error.get("code") in self.TOKEN_ERROR_CODES:
            return AuthCredentialError(
                self,
                error.get("message") or "",
                code=_credential_code(stage),
                source="provider_response",
                provider_code=error["code"],
                context={"error_subcode": error.get("error_subcode")},
                **fields,
            )
        if isinstance(data, dict) and error is None and data.get("error_type") and data.get("error_message"):
            return AuthProviderError(
                self,
                str(data["error_message"]),
                code="http_error",
                provider_code=str(data["error_type"]),
                **fields,
            )
        return super().get_provider_error(data, **fields)


# --- platforms with a social-core backend ---------------------------------------------


class XBackend(ServiceBackend, TwitterOAuth2):
    """X OAuth 2.0: PKCE S256, HTTP Basic client authentication, rotating refresh tokens."""

    platform = "x"
    uses_pkce = True
    AUTHORIZATION_URL = "https://x.com/i/oauth2/authorize"
    ACCESS_TOKEN_URL = "https://api.x.com/2/oauth2/token"
    DEFAULT_SCOPE = ["tweet.read", "tweet.write", "users.read", "media.write", "offline.access"]
    PKCE_DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    PKCE_DEFAULT_CODE_VERIFIER_LENGTH = 64


class PageChoiceRequired(AuthResponseError):
    """Facebook: the account manages several Pages and the connect named none (``pageId``);
    LinkedIn: the member administers several organization pages and the connect named none."""


class FacebookBackend(ServiceBackend, GraphErrors, FacebookOAuth2):
    """Facebook Login for Pages: the user token is exchanged for a long-lived one, then the
    token (which does not expire) of the Page the user chose at connect (``pageId``), or of the
    only Page the account manages, is kept (several and none named: ``PageChoiceRequired``,
    naming them); the profile lists every managed Page."""

    platform = "facebook"
    token_never_expires = True
    AUTHORIZATION_URL = "https://www.facebook.com/v25.0/dialog/oauth"
    ACCESS_TOKEN_URL = "https://graph.facebook.com/v25.0/oauth/access_token"
    DEFAULT_SCOPE = ["pages_show_list", "pages_manage_posts", "pages_read_engagement", "business_management"]

    def after_exchange(self, tokens: TokenSet) -> TokenSet:
        long_lived = self.token_set(self.refresh_token(tokens.access_token))
        base = api_base_url(self.platform) or "https://graph.facebook.com/v25.0"
        pages = (
            self.get_json(
                f"{base.rstrip('/')}/me/accounts",
                params={"fields": "id,name,access_token", "access_token": long_lived.access_token},
                stage="token_exchange",
            ).get("data")
            or []
        )
        if not pages:
            raise AuthResponseError(
                self, "No Facebook Page is managed by this account.", stage="token_exchange"
            )
        wanted = getattr(self, "wanted_page", "")
        if not wanted and len(pages) > 1:  # several Pages and none named: ask, never guess
            raise PageChoiceRequired(
                self,
                "This account manages several Facebook Pages: connect again with pageId set to one of "
                + ", ".join(f"{p.get('name')} ({p.get('id')})" for p in pages)
                + ".",
                stage="token_exchange",
            )
        page = next((p for p in pages if str(p.get("id")) == wanted), None) if wanted else pages[0]
        if page is None:
            raise AuthResponseError(
                self,
                f"The Facebook Page {wanted} is not among the Pages this account manages "
                f"(it manages {', '.join(str(p.get('id')) for p in pages)}).",
                stage="token_exchange",
            )
        me = self.get_json(
            f"{base.rstrip('/')}/me",
            params={"fields": "id", "access_token": long_lived.access_token},
            stage="token_exchange",
        )
        return TokenSet(
            user_id=str(me.get("id") or ""),
            user_token=long_lived.access_token,
            user_token_expires_in=long_lived.expires_in,
            access_token=str(page.get("access_token") or ""),
            scope=self.granted_permissions(base, long_lived.access_token) or tokens.scope,
            account_id=str(page.get("id") or ""),
            raw_keys=tokens.raw_keys,
            pages=[{"id": str(p.get("id") or ""), "name": str(p.get("name") or "")} for p in pages],
        )

    def granted_permissions(self, base: str, user_token: str) -> str:
        """What the user granted, from ``GET /me/permissions`` (Facebook's code exchange does not
        say, and the login dialog lets the user untick permissions): the ``granted`` ones."""
        rows = (
            self.get_json(
                f"{base.rstrip('/')}/me/permissions",
                params={"access_token": user_token},
                stage="token_exchange",
            ).get("data")
            or []
        )
        return ",".join(
            str(r.get("permission"))
            for r in rows
            if isinstance(r, dict) and r.get("status") == "granted" and r.get("permission")
        )


class InstagramBackend(ServiceBackend, GraphErrors, InstagramOAuth2):
    """Instagram API with Instagram Login: code -> short token -> 60-day token, refreshed itself."""

    platform = "instagram"
    refreshes_access_token = True
    REDIRECT_STATE = False
    STATE_PARAMETER = True
    AUTHORIZATION_URL = "https://www.instagram.com/oauth/authorize"
    ACCESS_TOKEN_URL = "https://api.instagram.com/oauth/access_token"
    EXCHANGE_URL = "https://graph.instagram.com/access_token"
    REFRESH_TOKEN_URL = "https://graph.instagram.com/refresh_access_token"
    REFRESH_TOKEN_METHOD = "GET"
    SCOPE_SEPARATOR = ","
    DEFAULT_SCOPE = ["instagram_business_basic", "instagram_business_content_publish"]
    exchange_grant = "ig_exchange_token"
    refresh_grant = "ig_refresh_token"

    def unwrap(self, response: dict[str, Any]) -> dict[str, Any]:
        # Business Login documents {"data": [{"access_token", "user_id", "permissions"}]}.
        data = response.get("data")
        if isinstance(data, list) and data and isinstance(data[0], dict):
            response = {**data[0], **{k: v for k, v in response.items() if k != "data"}}
        if response.get("permissions") and not response.get("scope"):
            response = {**response, "scope": response["permissions"]}  # what the user granted
        return response

    def after_exchange(self, tokens: TokenSet) -> TokenSet:
        _key, secret = self.get_key_and_secret()
        url = _overrides(self.platform).get("exchange") or self.EXCHANGE_URL
        response = self.get_json(
            url,
            params={
                "grant_type": self.exchange_grant,
                "client_secret": secret,
                "access_token": tokens.access_token,
            },
            stage="token_exchange",
        )
        self._process_error(response, stage="token_exchange")
        long_lived = self.token_set(response)
        long_lived.account_id = tokens.account_id
        long_lived.scope = long_lived.scope or tokens.scope
        return long_lived

    def refresh(self, *, access_token: str, refresh_token: str) -> TokenSet:
        # No refresh token: the long-lived access token refreshes itself.
        return self.token_set(self.refresh_token(access_token))

    def refresh_token_params(self, token: str, *args, **kwargs) -> dict[str, str]:
        return {"grant_type": self.refresh_grant, "access_token": token}


class YouTubeBackend(ServiceBackend, GoogleOAuth2, BaseOAuth2PKCE):
    """Google OAuth 2.0 with the YouTube scopes and offline access (a refresh token), and
    PKCE (S256): Google supports it for confidential web-server clients too."""

    platform = "youtube"
    uses_pkce = True
    PKCE_DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    AUTHORIZATION_URL = "https://accounts.google.com/o/oauth2/v2/auth"
    ACCESS_TOKEN_URL = "https://oauth2.googleapis.com/token"
    REVOKE_TOKEN_URL = "https://oauth2.googleapis.com/revoke"
    DEFAULT_SCOPE = [
        "https://www.googleapis.com/auth/youtube.upload",
        "https://www.googleapis.com/auth/youtube.readonly",
        "https://www.googleapis.com/auth/youtube.force-ssl",
    ]
    extra_arguments = {"access_type": "offline", "prompt": "consent", "include_granted_scopes": "true"}

    def auth_extra_arguments(self) -> dict[str, str]:
        return {**self.extra_arguments, **super().auth_extra_arguments()}


class LinkedInBackend(ServiceBackend, LinkedinOAuth2):
    """LinkedIn member posting: OpenID userinfo gives the person URN (and, with ``email``,
    the sign-in email that stands in for a handle).

    With ``account_type = "organization"`` the connect asks for the Community Management API's
    organization permissions and keeps an organization page the member administers
    (``organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED``): the one named
    (``pageId``), the only one, or, with several and none named, ``PageChoiceRequired``
    naming them, as for Facebook Pages. The profile's account is ``urn:li:organization:<id>``."""

    platform = "linkedin"
    DEFAULT_SCOPE = ["openid", "profile", "email", "w_member_social"]
    #: the member's follower count needs this Community Management API permission
    FOLLOWERS_SCOPE = "r_member_profileAnalytics"
    #: an organization page: post as it, read it back, list the member's pages and read the
    #: page's share statistics (ADMINISTRATOR role)
    ORGANIZATION_SCOPE = [
        "openid",
        "profile",
        "w_organization_social",
        "r_organization_social",
        "rw_organization_admin",
    ]

    def get_scope(self) -> list[str]:
        if self.account_type == "organization":
            from apps.platforms.features import LINKEDIN_ORGANIZATION

            wanted = list(self.ORGANIZATION_SCOPE)
            for feature in feature_scopes(LINKEDIN_ORGANIZATION).values():
                wanted += [str(s) for s in feature.get("scopes") or [] if str(s) not in wanted]
            return wanted
        return super().get_scope()

    def after_exchange(self, tokens: TokenSet) -> TokenSet:
        if self.account_type != "organization":
            return tokens
        from .linkedin_pages import administered_pages, choose_page

        client = platform_client(self.platform, access_token=tokens.access_token)
        member, pages = administered_pages(client)
        page = choose_page(self, pages, self.wanted_page)
        tokens.account_id = f"urn:li:organization:{page['id']}"
        tokens.user_id = member
        tokens.pages = pages
        return tokens

    def request_access_token(  # noqa: PLR0917 - overrides social-core's method: the signature is theirs
        self,
        url,
        method="POST",
        headers=None,
        data=None,
        json=None,
        auth=None,
        params=None,
        *,
        stage="token_exchange",
    ):
        # LinkedIn documents the parameters in the form body. social-core's LinkedinOAuth2 also
        # copies them into the query string, which puts the client secret (and the code) in a URL.
        return BaseOAuth2.request_access_token(
            self,
            url,
            method=method,
            headers=headers,
            data=data,
            json=json,
            auth=auth,
            params=params,
            stage=stage,
        )

    def read_account(self, tokens: TokenSet) -> AccountInfo:
        from apps.publishing.platforms.base import AccountInfo

        if tokens.account_id.startswith("urn:li:organization:"):  # the page: name, vanity name, followers
            return super().read_account(tokens)
        client = platform_client(self.platform, access_token=tokens.access_token)
        info = client.get_json("GET", "/v2/userinfo")
        sub = str(info.get("sub") or "")
        client.account_id = f"urn:li:person:{sub}" if sub else ""
        if sub and self.FOLLOWERS_SCOPE in scope_set(tokens.scope):
            return client.fetch_account()
        # Without r_member_profileAnalytics, /rest/memberFollowersCount answers 403 ACCESS_DENIED:
        # connect the member without a follower count instead of failing the connection.
        return AccountInfo(
            external_id=client.account_id,
            username=str(info.get("email") or ""),
            display_name=str(info.get("name") or ""),
            picture_url=str(info.get("picture") or ""),
            followers=0,
        )


class PinterestBackend(ServiceBackend, PinterestOAuth2):
    """Pinterest API v5 (social-core's backend still targets v1): Basic auth, rotating refresh."""

    platform = "pinterest"
    AUTHORIZATION_URL = "https://www.pinterest.com/oauth/"
    ACCESS_TOKEN_URL = "https://api.pinterest.com/v5/oauth/token"
    USE_BASIC_AUTH = True
    SCOPE_SEPARATOR = ","
    DEFAULT_SCOPE = ["boards:read", "boards:write", "pins:read", "pins:write", "user_accounts:read"]
    #: ``{"code": 283, "message": "The authorization grant is invalid"}``: a dead code or refresh token
    INVALID_GRANT = 283

    def get_provider_error(self, data, *, stage="callback", status_code=None, retry_after=None):
        # Pinterest errors are {"code": <int>, "message": ...}, not OAuth's {"error": ...}: without
        # this a revoked refresh token looked like a transient HTTP error, deferred forever.
        fields = {"stage": stage, "status_code": status_code, "retry_after": retry_after}
        if (
            isinstance(data, dict)
            and "error" not in data
            and isinstance(data.get("code"), int)
            and data.get("message")
        ):
            if data["code"] == self.INVALID_GRANT:
                code = "reauthentication_required" if stage == "refresh" else "authorization_code_rejected"
                return AuthCredentialError(
                    self,
                    str(data["message"]),
                    code=code,
                    source="provider_response",
                    provider_code=data["code"],
                    **fields,
                )
            kind = (
                "rate_limited"
                if status_code == 429
                else "unavailable"
                if status_code is not None and status_code >= 500
                else "http_error"
            )
            return AuthProviderError(
                self, str(data["message"]), code=kind, provider_code=data["code"], **fields
            )
        return super().get_provider_error(data, **fields)


# --- platforms without one: written on the same base class ------------------------------


class TikTokBackend(ServiceBackend, BaseOAuth2):
    """TikTok Login Kit v2: ``client_key`` instead of ``client_id``, comma scopes, open_id as
    the account, and refresh tokens that ROTATE on every refresh."""

    name = "tiktok"
    platform = "tiktok"
    AUTHORIZATION_URL = "https://www.tiktok.com/v2/auth/authorize/"
    ACCESS_TOKEN_URL = "https://open.tiktokapis.com/v2/oauth/token/"
    REVOKE_TOKEN_URL = "https://open.tiktokapis.com/v2/oauth/revoke/"
    REDIRECT_STATE = False
    STATE_PARAMETER = True
    SCOPE_SEPARATOR = ","
    DEFAULT_SCOPE = [
        "user.info.basic",
        "user.info.profile",
        "user.info.stats",
        "video.publish",
        "video.upload",
    ]

    def auth_params(self, state=None):
        params = super().auth_params(state)
        params["client_key"] = params.pop("client_id")
        return params

    def auth_complete_params(self, state=None):
        params = super().auth_complete_params(state)
        params["client_key"] = params.pop("client_id")
        return params

    def refresh_token_params(self, token: str, *args, **kwargs) -> dict[str, str]:
        key, secret = self.get_key_and_secret()
        return {
            "client_key": key,
            "client_secret": secret,
            "grant_type": "refresh_token",
            "refresh_token": token,
        }


class ThreadsBackend(ServiceBackend, GraphErrors, BaseOAuth2):
    """Threads: code at graph.threads.net, then a 60-day token that refreshes itself."""

    name = "threads"
    platform = "threads"
    refreshes_access_token = True
    AUTHORIZATION_URL = "https://threads.net/oauth/authorize"
    ACCESS_TOKEN_URL = "https://graph.threads.net/oauth/access_token"
    EXCHANGE_URL = "https://graph.threads.net/access_token"
    REFRESH_TOKEN_URL = "https://graph.threads.net/refresh_access_token"
    REFRESH_TOKEN_METHOD = "GET"
    REDIRECT_STATE = False
    STATE_PARAMETER = True
    SCOPE_SEPARATOR = ","
    # threads_manage_insights: the account read takes followers_count from /threads_insights,
    # which the Threads API refuses without it ("(#10) Application does not have permission").
    DEFAULT_SCOPE = ["threads_basic", "threads_content_publish", "threads_manage_insights"]
    exchange_grant = "th_exchange_token"
    refresh_grant = "th_refresh_token"

    after_exchange = InstagramBackend.after_exchange
    refresh = InstagramBackend.refresh
    refresh_token_params = InstagramBackend.refresh_token_params


BACKENDS: dict[str, type[ServiceBackend]] = {
    "x": XBackend,
    "facebook": FacebookBackend,
    "instagram": InstagramBackend,
    "youtube": YouTubeBackend,
    "linkedin": LinkedInBackend,
    "pinterest": PinterestBackend,
    "tiktok": TikTokBackend,
    "threads": ThreadsBackend,
}


def backend_for(platform: str, *, redirect_uri: str | None = None, account_type: str = "") -> ServiceBackend:
    """A configured backend instance for one handshake (not shared across threads);
    ``account_type`` "organization": LinkedIn's organization app when one is configured."""
    cls = BACKENDS[platform]
    client_id, secret = credentials(platform, account_type=account_type)
    values: dict[str, Any] = {"KEY": client_id, "SECRET": secret, "REQUESTS_TIMEOUT": 10}
    strategy = ServiceStrategy(values)
    return cls(strategy, redirect_uri=redirect_uri or callback_url(platform))  # type: ignore[call-arg]


def scopes_for(platform: str) -> list[str]:
    """What a connect asks for: the backend's base permissions and every feature's, except
    restricted ones (partner programs) the operator has not listed in OAUTH_RESTRICTED_SCOPES."""
    cls = BACKENDS.get(platform)
    if cls is None:
        return []
    wanted = list(getattr(cls, "DEFAULT_SCOPE", None) or [])
    approved = set(getattr(settings, "OAUTH_RESTRICTED_SCOPES", ()) or ())
    for feature in feature_scopes(platform).values():
        scopes = [str(s) for s in feature.get("scopes") or []]
        if feature.get("restricted") and not set(scopes) <= approved:
            continue
        wanted += [s for s in scopes if s not in wanted]
    return wanted
