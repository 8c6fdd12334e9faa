"""A local fake OAuth 2.0 provider speaking each platform's documented OAuth wire format.

One ``ThreadingHTTPServer`` on 127.0.0.1 (port 0) per fake; one host stands in for all of a
platform's hosts (their paths do not collide). The test plays the user at the consent screen
with ``consent(auth_url)``: the fake checks the authorization request the way the provider
would (endpoint, client id, the registered redirect URI, state, scopes against what the app
is approved for, PKCE where the platform uses it) and returns the query the provider would put
on the callback. The token endpoints then check what the real ones check (client
authentication, the code bound to its client and redirect URI, single use) and answer with
the platform's own success and error bodies:

- X (``POST /2/oauth2/token``): HTTP Basic client authentication, PKCE S256 required,
  rotating refresh tokens, errors ``{"error": "invalid_request", ...}``.
- TikTok (``POST /v2/oauth/token/``): ``client_key``/``client_secret`` in the form, rotating
  refresh tokens, errors ``{"error": "invalid_grant", ...}``.
- Instagram API with Instagram Login: ``POST /oauth/access_token`` (api.instagram.com) answers
  ``{"data": [{"access_token", "user_id", "permissions"}]}`` (errors
  ``{"error_type": "OAuthException", "code": 400, "error_message"}``); ``GET /access_token``
  (graph.instagram.com) ``grant_type=ig_exchange_token`` gives the 60-day token;
  ``GET /refresh_access_token`` ``grant_type=ig_refresh_token`` refreshes it. No refresh token.
- Threads: the same three steps at graph.threads.net (``th_exchange_token``,
  ``th_refresh_token``), code exchange answering ``{"access_token", "user_id"}``.
- Facebook: ``/v25.0/oauth/access_token`` with the code, then ``grant_type=fb_exchange_token``
  for the 60-day user token; ``/me/accounts`` lists the Pages with their Page tokens.
- YouTube (Google): ``POST /token`` with the client secret in the form; a refresh token only
  with ``access_type=offline``; refresh answers WITHOUT a refresh token; PKCE verified when
  the authorization request carried a challenge; errors ``{"error": "invalid_grant", ...}``.
- LinkedIn: ``POST /oauth/v2/accessToken`` (form body); refresh tokens only for apps approved
  for programmatic refresh (``refresh_tokens_enabled``), and then the SAME refresh token comes
  back with a shrinking ``refresh_token_expires_in``.
- Pinterest v5: ``POST /v5/oauth/token`` with HTTP Basic client authentication; continuous
  (rotating) refresh tokens; errors ``{"code": 283, "message": "The authorization grant is
  invalid"}``.

Every fake also serves the account reads the platform client (and the backend) make after
the exchange, accepting only a live token that carries the permission the endpoint needs:
Graph ``/{id}?fields=`` (Instagram, Threads, Facebook Page), ``/me/accounts``,
``/{id}/threads_insights``, ``/youtube/v3/channels?mine=true``, ``/v2/userinfo`` and
``/rest/memberFollowersCount``, ``/v5/user_account``.

``revoke_all()`` plays the user removing the app: every token dies.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CLIENT_ID = "fake-client-id"
CLIENT_SECRET = "fake-client-secret"

GRAPH = "/v25.0"
THREADS_GRAPH = "/v1.0"
LONG_LIVED_SECONDS = 5183944  # what Meta answers for a 60-day token


@dataclass
class FakeRequest:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: dict[str, str]  # lower-case names

    @property
    def params(self) -> dict[str, str]:
        return {**self.query, **self.form}

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")

    @property
    def bearer(self) -> str:
        value = self.header("authorization")
        return value[7:].strip() if value[:7].lower() == "bearer " else ""

    @property
    def basic(self) -> tuple[str, str] | None:
        value = self.header("authorization")
        if value[:6].lower() != "basic ":
            return None
        try:
            user, _, password = base64.b64decode(value[6:].strip()).decode().partition(":")
        except ValueError:
            return None
        return user, password


@dataclass(frozen=True)
class App:
    """What the platform's app dashboard holds for the fake client, and the platform's paths."""

    authorize: str
    token: str
    scope_separator: str = " "
    #: permissions the app is approved for (None: not checked)
    approved: frozenset[str] | None = None
    #: permissions the consent screen refuses to go without
    required: frozenset[str] = frozenset()
    client_param: str = "client_id"
    response_type_required: bool = True
    pkce: str = "none"  # "required" | "optional" | "none"
    exchange: str = ""
    refresh: str = ""
    api_prefix: str = ""


APPS: dict[str, App] = {
    "x": App("/i/oauth2/authorize", "/2/oauth2/token", pkce="required"),
    "tiktok": App("/v2/auth/authorize/", "/v2/oauth/token/", ",", client_param="client_key"),
    "instagram": App(
        "/oauth/authorize",
        "/oauth/access_token",
        ",",
        approved=frozenset(
            {
                "instagram_business_basic",
                "instagram_business_content_publish",
                "instagram_business_manage_comments",
                "instagram_business_manage_insights",
                "instagram_business_manage_messages",
            }
        ),
        required=frozenset({"instagram_business_basic"}),
        exchange="/access_token",
        refresh="/refresh_access_token",
        api_prefix=GRAPH,
    ),
    "threads": App(
        "/oauth/authorize",
        "/oauth/access_token",
        ",",
        approved=frozenset(
            {
                "threads_basic",
                "threads_content_publish",
                "threads_manage_insights",
                "threads_manage_replies",
                "threads_read_replies",
            }
        ),
        required=frozenset({"threads_basic"}),
        exchange="/access_token",
        refresh="/refresh_access_token",
        api_prefix=THREADS_GRAPH,
    ),
    "facebook": App(
        f"{GRAPH}/dialog/oauth",
        f"{GRAPH}/oauth/access_token",
        ",",
        approved=frozenset(
            {
                "public_profile",
                "email",
                "pages_show_list",
                "pages_manage_posts",
                "pages_read_engagement",
                "business_management",
                "pages_manage_engagement",
                "read_insights",
                "publish_video",
            }
        ),
        response_type_required=False,
        api_prefix=GRAPH,
    ),
    "youtube": App(
        "/o/oauth2/v2/auth",
        "/token",
        " ",
        approved=frozenset(
            {
                "openid",
                "email",
                "profile",
                "https://www.googleapis.com/auth/youtube",
                "https://www.googleapis.com/auth/youtube.upload",
                "https://www.googleapis.com/auth/youtube.readonly",
                "https://www.googleapis.com/auth/youtube.force-ssl",
                "https://www.googleapis.com/auth/yt-analytics.readonly",
            }
        ),
        pkce="optional",
    ),
    "linkedin": App(
        "/oauth/v2/authorization",
        "/oauth/v2/accessToken",
        " ",
        # "Sign In with LinkedIn using OpenID Connect" + "Share on LinkedIn"; no Community
        # Management API, so no r_member_profileAnalytics unless a test approves it.
        approved=frozenset({"openid", "profile", "email", "w_member_social"}),
    ),
    # an app with the Community Management API product: organization pages
    "linkedin_pages": App(
        "/oauth/v2/authorization",
        "/oauth/v2/accessToken",
        " ",
        approved=frozenset(
            {
                "openid",
                "profile",
                "email",
                "w_member_social",
                "w_organization_social",
                "r_organization_social",
                "rw_organization_admin",
            }
        ),
    ),
    "pinterest": App(
        "/oauth/",
        "/v5/oauth/token",
        ",",
        approved=frozenset(
            {
                "boards:read",
                "boards:write",
                "pins:read",
                "pins:write",
                "user_accounts:read",
                "ads:read",
            }
        ),
    ),
}


@dataclass
class Grant:
    code: str
    redirect_uri: str
    scope: str
    challenge: str = ""
    method: str = ""
    used: bool = False
    client_id: str = CLIENT_ID
    offline: bool = True


@dataclass
class Issued:
    """One token the fake handed out."""

    kind: str  # access | short | long | user | page | refresh
    scopes: frozenset[str]
    refresh_ttl: int = 0
    issued_at: float = 0.0


def _scopes(value: str) -> frozenset[str]:
    return frozenset(s for s in re.split(r"[,\s]+", value or "") if s)


def graph_error(
    status: int, message: str, code: int, subcode: int | None = None, type_: str = "OAuthException"
) -> tuple[int, Any]:
    error: dict[str, Any] = {"message": message, "type": type_, "code": code, "fbtrace_id": "AbCdEfGh123"}
    if subcode:
        error["error_subcode"] = subcode
    return status, {"error": error}


GRAPH_INVALID_TOKEN = graph_error(
    400, "Error validating access token: The user has not authorized application 1234567890.", 190, 458
)


@dataclass
class FakeProvider:
    platform: str
    account: dict[str, Any]
    grants: dict[str, Grant] = field(default_factory=dict)
    access_tokens: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)
    #: every form the token endpoints received (query and body merged: Meta takes either)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    #: every request, in order (method, path, query, form, headers)
    requests: list[FakeRequest] = field(default_factory=list)
    #: the refresh answer leaves out the new refresh token
    refresh_omits_new_token: bool = False
    #: LinkedIn: the app is approved for programmatic refresh tokens
    refresh_tokens_enabled: bool = True
    #: Google: the app's OAuth consent screen is in Testing, so its refresh tokens die 7 days
    #: after they were issued (https://developers.google.com/identity/protocols/oauth2#expiration)
    consent_screen_testing: bool = False
    #: the redirect URI registered for the app (None: anything ending in /oauth/<platform>/callback)
    redirect_uri: str | None = None
    issued: dict[str, Issued] = field(default_factory=dict)
    #: the permissions the last authorization request asked for
    asked_scopes: frozenset[str] = frozenset()
    #: access token -> (dies at, in time.time() seconds; scopes) for every token an answer carried
    lifetimes: dict[str, tuple[float | None, frozenset[str] | None]] = field(default_factory=dict)
    #: refresh token -> the scope of its grant (a refresh keeps what the user granted)
    refresh_scopes: dict[str, str] = field(default_factory=dict)
    #: another entry of APPS for the app's dashboard (``linkedin_pages``: Community Management API)
    app_key: str = ""
    _seq: Any = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _request(self) -> FakeRequest:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode() if length else ""
                return FakeRequest(
                    method=self.command,
                    path=parts.path,
                    query={k: v[0] for k, v in parse_qs(parts.query).items()},
                    form={k: v[0] for k, v in parse_qs(raw).items()},
                    headers={k.lower(): v for k, v in self.headers.items()},
                )

            def do_GET(self) -> None:
                self._reply(*fake.handle(self._request()))

            def do_POST(self) -> None:
                self._reply(*fake.handle(self._request()))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    # -- plumbing ----------------------------------------------------------------------
    @property
    def app(self) -> App:
        return APPS[self.app_key or self.platform]

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def overrides(self) -> dict[str, str]:
        """``OAUTH_ENDPOINT_OVERRIDES[<platform>]`` pointing the backend and client here."""
        app = self.app
        urls = {
            "authorize": self.base_url + app.authorize,
            "token": self.base_url + app.token,
            "api": self.base_url + app.api_prefix,
        }
        if app.exchange:
            urls["exchange"] = self.base_url + app.exchange
        if app.refresh:
            urls["refresh"] = self.base_url + app.refresh
        return urls

    def _new(self, kind: str) -> str:
        return f"{self.platform}-{kind}-{next(self._seq)}-{hashlib.sha1(kind.encode()).hexdigest()[:6]}"

    def revoke_all(self) -> None:
        """The user removed the app: every token dies."""
        self.access_tokens.clear()
        self.refresh_tokens.clear()
        self.issued.clear()

    def _mint(self, kind: str, scopes: frozenset[str], *, refresh_ttl: int = 0) -> str:
        token = self._new(kind)
        self.issued[token] = Issued(kind=kind, scopes=scopes, refresh_ttl=refresh_ttl, issued_at=time.time())
        (self.refresh_tokens if kind == "refresh" else self.access_tokens).add(token)
        return token

    def _live(self, token: str, *kinds: str) -> Issued | None:
        info = self.issued.get(token)
        if info is None or (kinds and info.kind not in kinds):
            return None
        if token not in self.access_tokens and token not in self.refresh_tokens:
            return None
        testing = self.platform == "youtube" and self.consent_screen_testing and info.kind == "refresh"
        if testing and time.time() - info.issued_at >= 7 * 86400:
            return None  # Google answers invalid_grant "Token has been expired or revoked."
        return info

    def kind_of(self, token: str) -> str:
        info = self.issued.get(token)
        return info.kind if info else ""

    # -- the consent screen ------------------------------------------------------------
    def consent(self, auth_url: str, *, grant: frozenset[str] | None = None) -> dict[str, str]:
        """Check the authorization request like the provider and return the callback query.

        ``grant`` narrows what the user grants (Meta and Google let the user untick permissions).
        """
        app = self.app
        parts = urlsplit(auth_url)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == self.base_url + app.authorize, auth_url
        assert query.get(app.client_param) == CLIENT_ID, query
        if app.client_param != "client_id":
            assert "client_id" not in query, query
        if app.response_type_required or "response_type" in query:
            assert query.get("response_type") == "code", query
        redirect = query.get("redirect_uri", "")
        if self.redirect_uri is not None:
            assert redirect == self.redirect_uri, (redirect, self.redirect_uri)
        assert redirect.endswith(f"/oauth/{self.platform}/callback"), redirect
        assert query.get("state"), query  # every backend here sends one; the callback needs it back
        requested = _scopes(query.get("scope", ""))
        if self.platform == "pinterest":
            assert " " not in query.get("scope", ""), f"Pinterest scopes are comma-separated: {query}"
        if app.approved is not None:
            unapproved = requested - app.approved
            if unapproved:
                if self.platform == "linkedin":  # LinkedIn redirects with the error
                    return {
                        "error": "unauthorized_scope_error",
                        "error_description": f'Scope "{sorted(unapproved)[0]}" is not authorized for your application',
                        "state": query["state"],
                    }
                raise AssertionError(
                    f"{self.platform} shows an error page: invalid scopes {sorted(unapproved)}"
                )
            missing = app.required - requested
            assert not missing, f"{self.platform} refuses a login without {sorted(missing)}"
        if app.pkce == "required":
            assert query.get("code_challenge_method") == "S256", query
            assert query.get("code_challenge"), query
        if app.pkce == "none" and self.platform != "tiktok":
            assert "code_challenge" not in query, f"{self.platform} web login does not take PKCE: {query}"
        if self.platform == "youtube":
            assert query.get("access_type") == "offline" and query.get("prompt") == "consent", query
        granted = requested & grant if grant is not None else requested
        self.asked_scopes = frozenset(requested)
        code = self._new("code")
        self.grants[code] = Grant(
            code=code,
            redirect_uri=redirect,
            scope=query.get("scope", "") if grant is None else app.scope_separator.join(sorted(granted)),
            challenge=query.get("code_challenge", ""),
            method=query.get("code_challenge_method", ""),
            client_id=query.get(app.client_param, ""),
            offline=query.get("access_type") == "offline",
        )
        callback = {"code": code, "state": query["state"]}
        if self.platform == "facebook" and query.get("return_scopes") == "true":
            callback["granted_scopes"] = ",".join(sorted(granted))
            callback["denied_scopes"] = ",".join(sorted(requested - granted))
        return callback

    def _take_grant(self, form: dict[str, str]) -> Grant | None:
        """The unused grant the form's code names, bound to the same client and redirect URI."""
        grant = self.grants.get(form.get("code", ""))
        if grant is None or grant.used or form.get("redirect_uri") != grant.redirect_uri:
            return None
        if grant.client_id != CLIENT_ID:
            return None
        grant.used = True
        return grant

    # -- dispatch --------------------------------------------------------------------------
    def handle(self, req: FakeRequest) -> tuple[int, Any]:
        status, body = self._handle(req)
        if status == 200 and isinstance(body, dict) and body.get("access_token"):
            token = str(body["access_token"])
            expires = body.get("expires_in")
            scope = body.get("scope")
            info = self.issued.get(token)
            scopes = _scopes(scope) if scope else (info.scopes if info else None)
            self.lifetimes[token] = (time.time() + float(expires) if expires else None, scopes)
        return status, body

    def access_info(self, token: str) -> tuple[bool, frozenset[str] | None] | None:
        """What a resource server would know of an access token: None (never issued or revoked),
        else (still alive on the platform's real lifetime, its scopes or None for all)."""
        if token not in self.access_tokens:
            return None
        dies, scopes = self.lifetimes.get(token, (None, None))
        return (dies is None or time.time() < dies), scopes

    def _handle(self, req: FakeRequest) -> tuple[int, Any]:
        self.requests.append(req)
        if self.platform in ("x", "tiktok"):
            if req.method == "POST":
                return self.handle_token(req.path, req.form, req.header("authorization"))
            return self.handle_get(req.path, req.header("authorization"))
        return getattr(self, f"_{self.platform}")(req)

    # -- X and TikTok ------------------------------------------------------------------
    def handle_token(self, path: str, form: dict[str, str], authorization: str) -> tuple[int, Any]:
        self.token_requests.append(dict(form))
        if self.platform == "x":
            if path != "/2/oauth2/token":
                return 404, {"title": "Not Found"}
            expected = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
            if authorization != expected:
                return 401, {
                    "error": "unauthorized_client",
                    "error_description": "Missing valid authorization header",
                }
            return self._x_token(form)
        if path != "/v2/oauth/token/":
            return 404, {"error": {"code": "not_found", "message": "", "log_id": "x"}}
        if form.get("client_key") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {
                "error": "invalid_client",
                "error_description": "Client key or secret is incorrect.",
                "log_id": "1",
            }
        return self._tiktok_token(form)

    def _issue(self, scope: str, *, with_refresh: bool = True) -> dict[str, Any]:
        access = self._new("access")
        self.access_tokens.add(access)
        body: dict[str, Any] = {"access_token": access, "scope": scope}
        if with_refresh:
            refresh = self._new("refresh")
            self.refresh_tokens.add(refresh)
            self.refresh_scopes[refresh] = scope
            body["refresh_token"] = refresh
        return body

    def _x_token(self, form: dict[str, str]) -> tuple[int, Any]:
        invalid = {"error": "invalid_request", "error_description": "Value passed for the token was invalid."}
        if form.get("grant_type") == "authorization_code":
            grant = self.grants.get(form.get("code", ""))
            if grant is None or grant.used or form.get("redirect_uri") != grant.redirect_uri:
                return 400, invalid
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
            if not verifier or digest != grant.challenge:
                return 400, {
                    "error": "invalid_request",
                    "error_description": "Value passed for the code_verifier was invalid.",
                }
            grant.used = True
            return 200, {"token_type": "bearer", "expires_in": 7200, **self._issue(grant.scope)}
        if form.get("grant_type") == "refresh_token":
            old = form.get("refresh_token", "")
            if old not in self.refresh_tokens:
                return 400, invalid
            self.refresh_tokens.discard(old)  # X refresh tokens are single use
            # the new tokens carry what the user granted (before, a fixed narrower scope: a
            # refreshed X profile could no longer post, which the 90-day run found)
            return 200, {
                "token_type": "bearer",
                "expires_in": 7200,
                **self._issue(self.refresh_scopes.get(old) or "tweet.read users.read offline.access"),
            }
        return 400, {"error": "unsupported_grant_type", "error_description": "grant_type not supported"}

    def _tiktok_token(self, form: dict[str, str]) -> tuple[int, Any]:
        extra = {
            "open_id": self.account["open_id"],
            "token_type": "Bearer",
            "expires_in": 86400,
            "refresh_expires_in": 31536000,
        }
        if form.get("grant_type") == "authorization_code":
            grant = self.grants.get(form.get("code", ""))
            if grant is None or grant.used or form.get("redirect_uri") != grant.redirect_uri:
                return 400, {
                    "error": "invalid_grant",
                    "error_description": "Authorization code is expired.",
                    "log_id": "2",
                }
            grant.used = True
            return 200, {**extra, **self._issue(grant.scope)}
        if form.get("grant_type") == "refresh_token":
            old = form.get("refresh_token", "")
            if old not in self.refresh_tokens:
                return 400, {
                    "error": "invalid_grant",
                    "error_description": "Refresh token is invalid or expired.",
                    "log_id": "3",
                }
            self.refresh_tokens.discard(old)  # rotation: the old refresh token stops working
            scope = self.refresh_scopes.get(old, "user.info.basic,video.publish")  # the grant's own scope
            body = self._issue(scope, with_refresh=not self.refresh_omits_new_token)
            return 200, {**extra, **body}
        return 400, {"error": "unsupported_grant_type", "error_description": "", "log_id": "4"}

    def handle_get(self, path: str, authorization: str) -> tuple[int, Any]:
        token = authorization.removeprefix("Bearer ").strip()
        if self.platform == "x" and path == "/2/users/me":
            if token not in self.access_tokens:
                return 401, {
                    "title": "Unauthorized",
                    "type": "about:blank",
                    "status": 401,
                    "detail": "Unauthorized",
                }
            return 200, {"data": self.account}
        if self.platform == "tiktok" and path == "/v2/user/info/":
            if token not in self.access_tokens:
                return 401, {
                    "error": {
                        "code": "access_token_invalid",
                        "message": "The access token is invalid.",
                        "log_id": "5",
                    }
                }
            return 200, {
                "data": {"user": self.account},
                "error": {"code": "ok", "message": "", "log_id": "6"},
            }
        return 404, {"error": "not found"}

    # -- Meta: Graph object reads shared by Instagram, Threads and Facebook ----------------
    @staticmethod
    def graph_fields(req: FakeRequest, obj: dict[str, Any]) -> dict[str, Any]:
        wanted = [f for f in re.split(r",(?![^{(]*[})])", req.params.get("fields", "")) if f]
        out = {"id": obj["id"]}
        for spec in wanted:
            key = re.split(r"[.{]", spec, maxsplit=1)[0]
            if key in obj:
                out[key] = obj[key]
        return out

    def _graph_token(self, req: FakeRequest) -> str:
        # The Graph API takes the token as the access_token parameter or a Bearer header.
        return req.params.get("access_token") or req.bearer

    def _meta_exchange(self, req: FakeRequest, grant_type: str) -> tuple[int, Any]:
        """``GET /access_token?grant_type=ig_exchange_token|th_exchange_token``."""
        return self._meta_long_lived(req, grant_type, from_kind="short", with_secret=True)

    def _meta_refresh(self, req: FakeRequest, grant_type: str) -> tuple[int, Any]:
        """``GET /refresh_access_token?grant_type=ig_refresh_token|th_refresh_token``: the
        long-lived token refreshes itself (no client secret, no refresh token)."""
        return self._meta_long_lived(req, grant_type, from_kind="long", with_secret=False)

    def _meta_long_lived(
        self, req: FakeRequest, grant_type: str, *, from_kind: str, with_secret: bool
    ) -> tuple[int, Any]:
        self.token_requests.append(req.params)
        params = req.params
        if req.method != "GET":
            return graph_error(400, "Unsupported post request.", 100, 33, "GraphMethodException")
        if params.get("grant_type") != grant_type:
            return graph_error(400, "Unsupported grant type", 100)
        if with_secret and params.get("client_secret") != CLIENT_SECRET:
            return graph_error(400, "Error validating client secret.", 1)
        current = self._live(params.get("access_token", ""), from_kind)
        if current is None:
            return GRAPH_INVALID_TOKEN
        token = self._mint("long", current.scopes)
        return 200, {"access_token": token, "token_type": "bearer", "expires_in": LONG_LIVED_SECONDS}

    # -- Instagram API with Instagram Login -----------------------------------------------
    def _instagram(self, req: FakeRequest) -> tuple[int, Any]:
        if req.path == "/oauth/access_token":
            return self._instagram_code(req)
        if req.path == "/access_token":
            return self._meta_exchange(req, "ig_exchange_token")
        if req.path == "/refresh_access_token":
            return self._meta_refresh(req, "ig_refresh_token")
        match = re.fullmatch(rf"{GRAPH}/(\w+)", req.path)
        if match and req.method == "GET":
            info = self._live(self._graph_token(req), "short", "long")
            if info is None:
                return GRAPH_INVALID_TOKEN
            a = self.account
            if match.group(1) not in ("me", a["id"], a["user_id"]):
                return graph_error(
                    400,
                    f"Unsupported get request. Object with ID '{match.group(1)}' does not exist.",
                    100,
                    33,
                    "IGApiException",
                )
            return 200, self.graph_fields(req, a)
        return graph_error(404, "Unknown path components", 2500)

    def _instagram_code(self, req: FakeRequest) -> tuple[int, Any]:
        form = req.form
        self.token_requests.append(dict(form))

        def rejected(message: str) -> tuple[int, Any]:
            return 400, {"error_type": "OAuthException", "code": 400, "error_message": message}

        if req.method != "POST":
            return rejected("Invalid request: request method must be POST")
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return rejected("Invalid Client Secret")
        if form.get("grant_type") != "authorization_code":
            return rejected("Invalid grant_type")
        grant = self._take_grant(form)
        if grant is None:
            return rejected("Matching code was not found or was already used")
        scopes = _scopes(grant.scope)
        token = self._mint("short", scopes)
        # Business Login's documented response: wrapped in "data", permissions as a string.
        return 200, {
            "data": [
                {
                    "access_token": token,
                    "user_id": self.account["id"],
                    "permissions": ",".join(sorted(scopes)),
                }
            ]
        }

    # -- Threads --------------------------------------------------------------------------
    def _threads(self, req: FakeRequest) -> tuple[int, Any]:
        if req.path == "/oauth/access_token":
            return self._threads_code(req)
        if req.path == "/access_token":
            return self._meta_exchange(req, "th_exchange_token")
        if req.path == "/refresh_access_token":
            return self._meta_refresh(req, "th_refresh_token")
        insights = re.fullmatch(rf"{THREADS_GRAPH}/(\w+)/threads_insights", req.path)
        obj = re.fullmatch(rf"{THREADS_GRAPH}/(\w+)", req.path)
        if (insights or obj) and req.method == "GET":
            return self._threads_object(req, insights, obj)
        return graph_error(404, "Unknown path components", 2500)

    def _threads_object(self, req: FakeRequest, insights, obj) -> tuple[int, Any]:
        """GET a Threads user (``me`` or its id) or its insights."""
        info = self._live(self._graph_token(req), "short", "long")
        if info is None:
            return GRAPH_INVALID_TOKEN
        target = (insights or obj).group(1)
        a = self.account
        if target not in ("me", a["id"]):
            return graph_error(
                400,
                f"Unsupported get request. Object with ID '{target}' does not exist.",
                100,
                33,
                "THApiException",
            )
        if obj:
            return 200, self.graph_fields(req, {k: v for k, v in a.items() if k != "followers_count"})
        if "threads_manage_insights" not in info.scopes:
            return graph_error(
                403,
                "(#10) Application does not have permission for this action",
                10,
                type_="THApiException",
            )
        metrics = req.params.get("metric", "").split(",")
        data = (
            [
                {
                    "name": "followers_count",
                    "period": "day",
                    "title": "followers_count",
                    "description": "The number of followers on Threads.",
                    "total_value": {"value": a["followers_count"]},
                    "id": f"{a['id']}/insights/followers_count/day",
                }
            ]
            if "followers_count" in metrics
            else []
        )
        return 200, {"data": data}

    def _threads_code(self, req: FakeRequest) -> tuple[int, Any]:
        form = req.form
        self.token_requests.append(dict(form))
        if req.method != "POST":
            return graph_error(400, "Unsupported get request.", 100, 33, "GraphMethodException")
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return graph_error(400, "Error validating client secret.", 1)
        if form.get("grant_type") != "authorization_code":
            return graph_error(400, "Unsupported grant type", 100)
        grant = self._take_grant(form)
        if grant is None:
            return graph_error(
                400,
                "Error validating verification code. Please make sure your redirect_uri is "
                "identical to the one you used in the OAuth dialog request",
                100,
                36008,
            )
        token = self._mint("short", _scopes(grant.scope))
        return 200, {"access_token": token, "user_id": int(self.account["id"])}

    # -- Facebook (Pages) -------------------------------------------------------------------
    def _facebook(self, req: FakeRequest) -> tuple[int, Any]:
        if req.path == f"{GRAPH}/oauth/access_token":
            return self._facebook_token(req)
        if req.path == f"{GRAPH}/me/accounts" and req.method == "GET":
            return self._facebook_pages(req)
        if req.path == f"{GRAPH}/me/permissions" and req.method == "GET":
            return self._facebook_permissions(req)
        match = re.fullmatch(rf"{GRAPH}/(\w+)", req.path)
        if match and req.method == "GET":
            return self._facebook_object(req, match)
        return graph_error(404, "Unknown path components", 2500)

    def _facebook_pages(self, req: FakeRequest) -> tuple[int, Any]:
        """GET /me/accounts: the user's Pages, each with a Page token."""
        info = self._live(self._graph_token(req), "user")
        if info is None:
            return GRAPH_INVALID_TOKEN
        if "pages_show_list" not in info.scopes:
            return graph_error(403, "(#10) Application does not have permission for this action", 10)
        pages = []
        for page in self.account["pages"]:
            token = self._mint("page", info.scopes)  # from a long-lived user token: never expires
            pages.append(
                {
                    "access_token": token,
                    "category": page["category"],
                    "category_list": [{"id": "2200", "name": page["category"]}],
                    "name": page["name"],
                    "id": page["id"],
                    "tasks": ["ANALYZE", "ADVERTISE", "MODERATE", "CREATE_CONTENT", "MANAGE"],
                }
            )
        return 200, {
            "data": [self.graph_fields(req, p) for p in pages] if req.params.get("fields") else pages,
            "paging": {"cursors": {"before": "QVFIUmFk", "after": "QVFIUmZA"}},
        }

    def _facebook_permissions(self, req: FakeRequest) -> tuple[int, Any]:
        """GET /me/permissions: each scope asked for, granted or declined."""
        # https://developers.facebook.com/docs/graph-api/reference/user/permissions/
        info = self._live(self._graph_token(req), "user")
        if info is None:
            return GRAPH_INVALID_TOKEN
        asked = self.asked_scopes or info.scopes
        return 200, {
            "data": [
                {"permission": p, "status": "granted" if p in info.scopes else "declined"}
                for p in sorted(asked | info.scopes)
            ]
        }

    def _facebook_object(self, req: FakeRequest, match) -> tuple[int, Any]:
        """GET the user (with a user token) or a Page (with its Page token)."""
        token = self._graph_token(req)
        info = self._live(token, "page", "user", "long")
        if info is None:
            return GRAPH_INVALID_TOKEN
        if match.group(1) == "me" and info.kind == "user":
            return 200, self.graph_fields(req, self.account["user"])
        for page in self.account["pages"]:
            if match.group(1) in (page["id"], "me") and info.kind == "page":
                shown = {
                    **page,
                    "picture": {
                        "data": {
                            "url": page["picture_url"],
                            "height": 50,
                            "width": 50,
                            "is_silhouette": False,
                        }
                    },
                }
                return 200, self.graph_fields(req, shown)
        return graph_error(
            400,
            f"Unsupported get request. Object with ID '{match.group(1)}' does not exist, "
            "cannot be loaded due to missing permissions, or does not support this operation.",
            100,
            33,
            "GraphMethodException",
        )

    def _facebook_token(self, req: FakeRequest) -> tuple[int, Any]:
        # Documented as GET with query parameters; the Graph API takes the same as a POST form.
        params = req.params
        self.token_requests.append(params)
        if params.get("client_id") != CLIENT_ID:
            return graph_error(400, "Error validating application. Invalid application ID.", 101)
        if params.get("client_secret") != CLIENT_SECRET:
            return graph_error(400, "Error validating client secret.", 1)
        if params.get("grant_type") == "fb_exchange_token":
            short = self._live(params.get("fb_exchange_token", ""), "short", "user")
            if short is None:
                return GRAPH_INVALID_TOKEN
            token = self._mint("user", short.scopes)
            return 200, {"access_token": token, "token_type": "bearer", "expires_in": LONG_LIVED_SECONDS}
        if "code" not in params:
            return graph_error(400, "Missing authorization code", 1)
        grant = self._take_grant(params)
        if grant is None:
            return graph_error(400, "This authorization code has been used.", 100, 36009)
        token = self._mint("short", _scopes(grant.scope))
        return 200, {"access_token": token, "token_type": "bearer", "expires_in": 5183}

    # -- YouTube (Google OAuth 2.0) -------------------------------------------------------------
    def _youtube(self, req: FakeRequest) -> tuple[int, Any]:
        if req.path == "/token":
            return self._google_token(req)
        if req.path == "/youtube/v3/channels" and req.method == "GET":
            info = self._live(req.bearer, "access")
            if info is None:
                message = (
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie "
                    "or other valid authentication credential."
                )
                return 401, {
                    "error": {
                        "code": 401,
                        "message": message,
                        "errors": [
                            {
                                "message": message,
                                "domain": "global",
                                "reason": "authError",
                                "location": "Authorization",
                                "locationType": "header",
                            }
                        ],
                        "status": "UNAUTHENTICATED",
                    }
                }
            readable = {
                "https://www.googleapis.com/auth/youtube",
                "https://www.googleapis.com/auth/youtube.readonly",
                "https://www.googleapis.com/auth/youtube.force-ssl",
            }
            if not info.scopes & readable:
                message = "Request had insufficient authentication scopes."
                return 403, {
                    "error": {
                        "code": 403,
                        "message": message,
                        "errors": [
                            {"message": message, "domain": "global", "reason": "insufficientPermissions"}
                        ],
                        "status": "PERMISSION_DENIED",
                    }
                }
            if req.query.get("mine") != "true":
                message = "No filter selected. Expected one of: forHandle, forUsername, id, idParam, managedByMe, mine"
                return 400, {
                    "error": {
                        "code": 400,
                        "message": message,
                        "errors": [
                            {
                                "message": message,
                                "domain": "youtube.parameter",
                                "reason": "missingRequiredParameter",
                            }
                        ],
                    }
                }
            parts = set(req.query.get("part", "").split(","))
            channel = {"kind": "youtube#channel", "etag": "etag-1", "id": self.account["id"]}
            channel.update({p: self.account[p] for p in parts if p in self.account})
            return 200, {
                "kind": "youtube#channelListResponse",
                "etag": "etag-0",
                "pageInfo": {"totalResults": 1, "resultsPerPage": 5},
                "items": [channel],
            }
        return 404, {"error": {"code": 404, "message": "Not Found", "status": "NOT_FOUND"}}

    def _google_token(self, req: FakeRequest) -> tuple[int, Any]:
        form = req.form
        self.token_requests.append(dict(form))
        if req.method != "POST":
            return 405, {"error": "invalid_request", "error_description": "Method not allowed"}
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client", "error_description": "Unauthorized"}
        expires = {"expires_in": 3599, "token_type": "Bearer"}
        if form.get("grant_type") == "authorization_code":
            return self._google_code(form, expires)
        if form.get("grant_type") == "refresh_token":
            info = self._live(form.get("refresh_token", ""), "refresh")
            if info is None:
                return 400, {
                    "error": "invalid_grant",
                    "error_description": "Token has been expired or revoked.",
                }
            # Google keeps the refresh token: the answer carries none.
            return 200, {
                "access_token": self._mint("access", info.scopes),
                **expires,
                "scope": " ".join(sorted(info.scopes)),
            }
        return 400, {
            "error": "unsupported_grant_type",
            "error_description": "Invalid grant_type: " + form.get("grant_type", ""),
        }

    def _google_code(self, form, expires) -> tuple[int, Any]:
        """The authorization-code grant (redirect URI and PKCE checked)."""
        grant = self.grants.get(form.get("code", ""))
        if grant is not None and not grant.used and form.get("redirect_uri") != grant.redirect_uri:
            return 400, {"error": "redirect_uri_mismatch", "error_description": "Bad Request"}
        if grant is not None and grant.challenge:
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
            if digest != grant.challenge:
                return 400, {"error": "invalid_grant", "error_description": "Invalid code verifier."}
        grant = self._take_grant(form)
        if grant is None:
            return 400, {"error": "invalid_grant", "error_description": "Bad Request"}
        scopes = _scopes(grant.scope)
        body = {
            "access_token": self._mint("access", scopes),
            **expires,
            "scope": " ".join(sorted(scopes)),
        }
        if grant.offline:
            body["refresh_token"] = self._mint("refresh", scopes)
        return 200, body

    # -- LinkedIn -------------------------------------------------------------------------------
    def _linkedin(self, req: FakeRequest) -> tuple[int, Any]:
        if req.path == "/oauth/v2/accessToken":
            return self._linkedin_token(req)
        info = self._live(req.bearer, "access")
        if req.method == "GET" and req.path in ("/v2/userinfo", "/rest/memberFollowersCount"):
            return self._linkedin_member(req, info)
        if req.method == "GET" and req.path.startswith(
            ("/rest/organizationAcls", "/rest/organizations/", "/rest/networkSizes/")
        ):
            return self._linkedin_pages(req, info)
        return 404, {
            "status": 404,
            "code": "RESOURCE_NOT_FOUND",
            "message": f"No virtual resource found: {req.path}",
        }

    def _linkedin_member(self, req: FakeRequest, info) -> tuple[int, Any]:
        """GET the member's OpenID claims or follower count."""
        if info is None:
            return 401, {
                "status": 401,
                "serviceErrorCode": 65600,
                "code": "INVALID_ACCESS_TOKEN",
                "message": "Invalid access token",
            }
        a = self.account
        if req.path == "/v2/userinfo":
            if "openid" not in info.scopes:
                return 403, {
                    "status": 403,
                    "serviceErrorCode": 100,
                    "code": "ACCESS_DENIED",
                    "message": "Not enough permissions to access: userinfo.GET.NO_VERSION",
                }
            claims: dict[str, Any] = {"sub": a["sub"]}
            if "profile" in info.scopes:
                claims.update({k: a[k] for k in ("name", "given_name", "family_name", "picture", "locale")})
            if "email" in info.scopes:
                claims.update({"email": a["email"], "email_verified": True})
            return 200, claims
        if not req.header("linkedin-version"):
            return 400, {
                "status": 400,
                "code": "VERSION_MISSING",
                "message": "A version must be present. Please specify a version by adding the "
                "LinkedIn-Version header.",
            }
        if req.query.get("q") != "me":
            return 400, {"status": 400, "code": "ILLEGAL_ARGUMENT", "message": "Invalid finder"}
        if "r_member_profileAnalytics" not in info.scopes:
            return 403, {
                "status": 403,
                "serviceErrorCode": 100,
                "code": "ACCESS_DENIED",
                "message": "Not enough permissions to access: memberFollowersCount.GET.20261000",
            }
        return 200, {
            "elements": [{"memberFollowersCount": a["followers"]}],
            "paging": {"count": 10, "start": 0, "links": []},
        }

    def _linkedin_pages(self, req: FakeRequest, info) -> tuple[int, Any]:  # noqa: PLR0911 - one answer per refusal
        """The member's page roles (organizationAcls roleAssignee FINDER, rw_organization_admin),
        a page (organizations/{id}) and its follower count (networkSizes)."""
        if info is None:
            return 401, {
                "status": 401,
                "serviceErrorCode": 65600,
                "code": "INVALID_ACCESS_TOKEN",
                "message": "Invalid access token",
            }
        if not req.header("linkedin-version") or req.header("x-restli-protocol-version") != "2.0.0":
            return 426, {
                "status": 426,
                "code": "NONEXISTENT_VERSION",
                "message": "Requested version is not active",
            }
        denied = (
            403,
            {
                "status": 403,
                "serviceErrorCode": 100,
                "code": "ACCESS_DENIED",
                "message": f"Not enough permissions to access: {req.path.split('/')[2]}.GET.20261000",
            },
        )
        pages = self.account.get("organizations") or []
        if req.path == "/rest/organizationAcls":
            if not {"rw_organization_admin", "r_organization_admin"} & info.scopes:
                return denied
            if req.query.get("q") != "roleAssignee":
                return 400, {"status": 400, "code": "ILLEGAL_ARGUMENT", "message": "Invalid finder"}
            rows = [
                {
                    "roleAssignee": f"urn:li:person:{self.account['sub']}",
                    "role": p.get("role", "ADMINISTRATOR"),
                    "state": p.get("state", "APPROVED"),
                    "organization": f"urn:li:organization:{p['id']}",
                }
                for p in pages
            ]
            rows = [
                r
                for r in rows
                if r["role"] == req.query.get("role", r["role"])
                and r["state"] == req.query.get("state", r["state"])
            ]
            start, count = int(req.query.get("start", 0)), int(req.query.get("count", 10))
            return 200, {
                "elements": rows[start : start + count],
                "paging": {"start": start, "count": count, "total": len(rows)},
            }
        org_id = req.path.rsplit("/", 1)[1].rsplit("%3A", 1)[-1].rsplit(":", 1)[-1]
        page = next((p for p in pages if p["id"] == org_id), None)
        if page is None:
            return 404, {"status": 404, "code": "NOT_FOUND", "message": f"Organization {org_id} not found"}
        if req.path.startswith("/rest/organizations/"):
            return 200, {"id": int(org_id), "localizedName": page["name"], "vanityName": page["vanityName"]}
        if not {"rw_organization_admin", "r_organization_admin", "r_organization_social"} & info.scopes:
            return denied
        return 200, {"firstDegreeSize": page["followers"]}

    def _linkedin_token(self, req: FakeRequest) -> tuple[int, Any]:
        form = req.form  # documented: parameters in the x-www-form-urlencoded body
        self.token_requests.append(dict(form))
        if req.method != "POST":
            return 405, {"error": "invalid_request", "error_description": "Method not allowed"}
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client", "error_description": "Client authentication failed"}
        if form.get("grant_type") == "authorization_code":
            grant = self._take_grant(form)
            if grant is None:
                return 400, {
                    "error": "invalid_request",
                    "error_description": (
                        "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization "
                        "code. Or authorization code expired. Or external member binding exists"
                    ),
                }
            scopes = _scopes(grant.scope)
            body: dict[str, Any] = {
                "access_token": self._mint("access", scopes),
                "expires_in": 5183999,
                "scope": ",".join(sorted(scopes)),
                "token_type": "Bearer",
            }
            if "openid" in scopes:
                body["id_token"] = "eyJ6aXAiOiJERUYiLCJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJl"
            if self.refresh_tokens_enabled:
                body["refresh_token"] = self._mint("refresh", scopes, refresh_ttl=31535999)
                body["refresh_token_expires_in"] = 31535999
            return 200, body
        if form.get("grant_type") == "refresh_token":
            old = form.get("refresh_token", "")
            info = self._live(old, "refresh")
            if info is None:
                return 400, {
                    "error": "invalid_grant",
                    "error_description": (
                        "The provided authorization grant or refresh token is invalid, expired or revoked."
                    ),
                }
            # The refresh token keeps its original lifetime: the same one comes back, older.
            info.refresh_ttl -= 86400
            body = {
                "access_token": self._mint("access", info.scopes),
                "expires_in": 5183999,
                "scope": ",".join(sorted(info.scopes)),
            }
            if not self.refresh_omits_new_token:
                body.update({"refresh_token": old, "refresh_token_expires_in": info.refresh_ttl})
            return 200, body
        return 400, {"error": "unsupported_grant_type", "error_description": "Grant type is not supported"}

    # -- Pinterest v5 ---------------------------------------------------------------------------
    def _pinterest(self, req: FakeRequest) -> tuple[int, Any]:
        if req.path == "/v5/oauth/token":
            return self._pinterest_token(req)
        if req.path == "/v5/user_account" and req.method == "GET":
            info = self._live(req.bearer, "access")
            if info is None:
                return 401, {"code": 2, "message": "Authentication failed."}
            if "user_accounts:read" not in info.scopes:
                return 401, {"code": 3, "message": "Authorization failed."}
            return 200, dict(self.account)
        return 404, {"code": 404, "message": "Not found."}

    def _pinterest_token(self, req: FakeRequest) -> tuple[int, Any]:
        form = req.form
        self.token_requests.append(dict(form))
        if req.method != "POST":
            return 405, {"code": 405, "message": "Method not allowed"}
        if req.basic != (CLIENT_ID, CLIENT_SECRET):
            return 401, {"code": 2, "message": "Authentication failed."}
        invalid = (401, {"code": 283, "message": "The authorization grant is invalid"})
        expiry = {"token_type": "bearer", "expires_in": 2592000, "refresh_token_expires_in": 5184000}
        if form.get("grant_type") == "authorization_code":
            grant = self._take_grant(form)
            if grant is None:
                return invalid
            scopes = _scopes(grant.scope)
            return 200, {
                "access_token": self._mint("access", scopes),
                "refresh_token": self._mint("refresh", scopes),
                "response_type": "authorization_code",
                **expiry,
                "scope": ",".join(sorted(scopes)),
            }
        if form.get("grant_type") == "refresh_token":
            old = form.get("refresh_token", "")
            info = self._live(old, "refresh")
            if info is None:
                return invalid
            # Continuous refresh: a new refresh token every time; the old one is spent.
            body = {
                "access_token": self._mint("access", info.scopes),
                "response_type": "refresh_token",
                **expiry,
                "scope": ",".join(sorted(info.scopes)),
            }
            if not self.refresh_omits_new_token:
                self.refresh_tokens.discard(old)
                body["refresh_token"] = self._mint("refresh", info.scopes)
            return 200, body
        return 400, {"code": 1, "message": "Invalid grant_type"}


X_ACCOUNT = {
    "id": "2244994945",
    "name": "Acme Dev",
    "username": "acmedev",
    "profile_image_url": "https://pbs.twimg.com/profile_images/1/acme_normal.jpg",
    "public_metrics": {"followers_count": 4321},
}
TIKTOK_ACCOUNT = {
    "open_id": "723f24d7-e717-40f8-a2b6-cb8464cd23b4",
    "union_id": "u-1",
    "username": "acme.tok",
    "display_name": "Acme on TikTok",
    "avatar_url": "https://p16.tiktokcdn.com/acme.jpeg",
    "follower_count": 987,
}
INSTAGRAM_ACCOUNT = {
    # "id": the app-scoped user ID the code exchange returns; "user_id": the professional
    # account ID (IG_ID) the publishing endpoints take.
    "id": "7654321098765432",
    "user_id": "17841405793187218",
    "username": "acme.gram",
    "name": "Acme on Instagram",
    "account_type": "BUSINESS",
    "profile_picture_url": "https://scontent.cdninstagram.com/v/t51/acme.jpg",
    "followers_count": 5120,
    "follows_count": 80,
    "media_count": 42,
}
THREADS_ACCOUNT = {
    "id": "25812345678901234",
    "username": "acme.threads",
    "name": "Acme on Threads",
    "threads_profile_picture_url": "https://scontent.cdninstagram.com/v/t51/acme-threads.jpg",
    "threads_biography": "Bread, daily.",
    "followers_count": 2750,
}
FACEBOOK_ACCOUNT = {
    "user": {"id": "10223344556677889", "name": "Ada Acme"},
    "pages": [
        {
            "id": "112233445566778",
            "name": "Acme Bakery",
            "username": "acmebakery",
            "category": "Bakery",
            "picture_url": "https://scontent.xx.fbcdn.net/v/acme-bakery.jpg",
            "followers_count": 8800,
        }
    ],
}
YOUTUBE_ACCOUNT = {
    "id": "UCuAXFkgsw1L7xaCfnd5JJOw",
    "snippet": {
        "title": "Acme Studio",
        "description": "",
        "customUrl": "@acmestudio",
        "thumbnails": {"default": {"url": "https://yt3.ggpht.com/acme=s88-c-k", "width": 88, "height": 88}},
    },
    "statistics": {
        "viewCount": "120000",
        "subscriberCount": "15300",
        "hiddenSubscriberCount": False,
        "videoCount": "12",
    },
    "contentDetails": {"relatedPlaylists": {"likes": "", "uploads": "UUuAXFkgsw1L7xaCfnd5JJOw"}},
}
LINKEDIN_ACCOUNT = {
    "sub": "782bbtaQ",
    "name": "Ada Lovelace",
    "given_name": "Ada",
    "family_name": "Lovelace",
    "picture": "https://media.licdn.com/dms/image/ada.jpg",
    "locale": {"country": "US", "language": "en"},
    "email": "ada@acme.example",
    "followers": 640,
    # the organization pages the member holds a role on (organizationAcls)
    "organizations": [
        {"id": "2414183", "name": "Acme Corp", "vanityName": "acme-corp", "followers": 12500},
    ],
}
PINTEREST_ACCOUNT = {
    "account_type": "BUSINESS",
    "id": "549755885175",
    "username": "acmepins",
    "business_name": "Acme Pins",
    "profile_image": "https://i.pinimg.com/600x600_R/acme.jpg",
    "website_url": "https://acme.example",
    "about": "Pins from Acme.",
    "board_count": 4,
    "pin_count": 120,
    "follower_count": 3100,
    "following_count": 12,
    "monthly_views": 45000,
}
ACCOUNTS = {
    "x": X_ACCOUNT,
    "tiktok": TIKTOK_ACCOUNT,
    "instagram": INSTAGRAM_ACCOUNT,
    "threads": THREADS_ACCOUNT,
    "facebook": FACEBOOK_ACCOUNT,
    "youtube": YOUTUBE_ACCOUNT,
    "linkedin": LINKEDIN_ACCOUNT,
    "pinterest": PINTEREST_ACCOUNT,
}
