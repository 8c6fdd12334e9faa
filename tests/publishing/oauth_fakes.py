"""A local fake OAuth 2.0 provider speaking X's and TikTok's token-endpoint wire formats.

One ``ThreadingHTTPServer`` on 127.0.0.1 (port 0) per fake. The test plays the user at
the consent screen with ``consent(auth_url)``: the fake checks the authorization request
the way the provider would (client id, redirect URI, scopes, PKCE challenge) and returns
the code the provider would put on the callback. The token endpoint then checks what the
real one checks:

- X (``POST /2/oauth2/token``): HTTP Basic client authentication, the code bound to its
  redirect URI, and PKCE: ``BASE64URL(SHA256(code_verifier)) == code_challenge``. Refresh
  tokens rotate. Errors are X's ``{"error": "invalid_request", "error_description": ...}``.
- TikTok (``POST /v2/oauth/token/``): ``client_key``/``client_secret`` in the form, refresh
  tokens that ROTATE (the old one dies), errors ``{"error": "invalid_grant", ...}``.

Both also serve the account read the platform client makes after the exchange
(``/2/users/me``, ``/v2/user/info/``), accepting only a live access token.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CLIENT_ID = "fake-client-id"
CLIENT_SECRET = "fake-client-secret"


@dataclass
class Grant:
    code: str
    redirect_uri: str
    scope: str
    challenge: str = ""
    method: str = ""
    used: bool = False


@dataclass
class FakeProvider:
    platform: str
    account: dict[str, Any]
    grants: dict[str, Grant] = field(default_factory=dict)
    access_tokens: set[str] = field(default_factory=set)
    refresh_tokens: set[str] = field(default_factory=set)
    #: every form the token endpoint received (to assert on what was sent)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    refresh_omits_new_token: bool = False
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

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                status, body = fake.handle_get(parts.path, self.headers.get("Authorization", ""))
                self._reply(status, body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                status, body = fake.handle_token(urlsplit(self.path).path, form, self.headers.get("Authorization", ""))
                self._reply(status, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    # -- plumbing ----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def overrides(self) -> dict[str, str]:
        paths = {"x": ("/i/oauth2/authorize", "/2/oauth2/token"), "tiktok": ("/v2/auth/authorize/", "/v2/oauth/token/")}
        authorize, token = paths[self.platform]
        return {"authorize": self.base_url + authorize, "token": self.base_url + token, "api": self.base_url}

    def _new(self, kind: str) -> str:
        return f"{self.platform}-{kind}-{next(self._seq)}-{hashlib.sha1(kind.encode()).hexdigest()[:6]}"

    def revoke_all(self) -> None:
        """The user removed the app: every token dies."""
        self.access_tokens.clear()
        self.refresh_tokens.clear()

    # -- the consent screen ------------------------------------------------------------
    def consent(self, auth_url: str) -> dict[str, str]:
        """Check the authorization request like the provider and return the callback query."""
        query = {k: v[0] for k, v in parse_qs(urlsplit(auth_url).query).items()}
        client = query.get("client_key") if self.platform == "tiktok" else query.get("client_id")
        assert client == CLIENT_ID, query
        assert query["response_type"] == "code"
        assert query.get("redirect_uri", "").endswith(f"/oauth/{self.platform}/callback")
        if self.platform == "x":
            # X requires PKCE.
            assert query.get("code_challenge_method") == "S256", query
            assert query.get("code_challenge"), query
        code = self._new("code")
        self.grants[code] = Grant(
            code=code, redirect_uri=query["redirect_uri"], scope=query.get("scope", ""),
            challenge=query.get("code_challenge", ""), method=query.get("code_challenge_method", ""),
        )
        return {"code": code, "state": query["state"]}

    # -- token endpoint ----------------------------------------------------------------
    def handle_token(self, path: str, form: dict[str, str], authorization: str) -> tuple[int, Any]:
        self.token_requests.append(dict(form))
        if self.platform == "x":
            if path != "/2/oauth2/token":
                return 404, {"title": "Not Found"}
            expected = "Basic " + base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
            if authorization != expected:
                return 401, {"error": "unauthorized_client", "error_description": "Missing valid authorization header"}
            return self._x_token(form)
        if path != "/v2/oauth/token/":
            return 404, {"error": {"code": "not_found", "message": "", "log_id": "x"}}
        if form.get("client_key") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return 401, {"error": "invalid_client", "error_description": "Client key or secret is incorrect.", "log_id": "1"}
        return self._tiktok_token(form)

    def _issue(self, scope: str, *, with_refresh: bool = True) -> dict[str, Any]:
        access = self._new("access")
        self.access_tokens.add(access)
        body: dict[str, Any] = {"access_token": access, "scope": scope}
        if with_refresh:
            refresh = self._new("refresh")
            self.refresh_tokens.add(refresh)
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
                return 400, {"error": "invalid_request", "error_description": "Value passed for the code_verifier was invalid."}
            grant.used = True
            return 200, {"token_type": "bearer", "expires_in": 7200, **self._issue(grant.scope)}
        if form.get("grant_type") == "refresh_token":
            old = form.get("refresh_token", "")
            if old not in self.refresh_tokens:
                return 400, invalid
            self.refresh_tokens.discard(old)  # X refresh tokens are single use
            return 200, {"token_type": "bearer", "expires_in": 7200, **self._issue("tweet.read users.read offline.access")}
        return 400, {"error": "unsupported_grant_type", "error_description": "grant_type not supported"}

    def _tiktok_token(self, form: dict[str, str]) -> tuple[int, Any]:
        extra = {"open_id": self.account["open_id"], "token_type": "Bearer", "expires_in": 86400, "refresh_expires_in": 31536000}
        if form.get("grant_type") == "authorization_code":
            grant = self.grants.get(form.get("code", ""))
            if grant is None or grant.used or form.get("redirect_uri") != grant.redirect_uri:
                return 400, {"error": "invalid_grant", "error_description": "Authorization code is expired.", "log_id": "2"}
            grant.used = True
            return 200, {**extra, **self._issue(grant.scope)}
        if form.get("grant_type") == "refresh_token":
            old = form.get("refresh_token", "")
            if old not in self.refresh_tokens:
                return 400, {"error": "invalid_grant", "error_description": "Refresh token is invalid or expired.", "log_id": "3"}
            self.refresh_tokens.discard(old)  # rotation: the old refresh token stops working
            body = self._issue("user.info.basic,video.publish", with_refresh=not self.refresh_omits_new_token)
            return 200, {**extra, **body}
        return 400, {"error": "unsupported_grant_type", "error_description": "", "log_id": "4"}

    # -- account reads -----------------------------------------------------------------
    def handle_get(self, path: str, authorization: str) -> tuple[int, Any]:
        token = authorization.removeprefix("Bearer ").strip()
        if self.platform == "x" and path == "/2/users/me":
            if token not in self.access_tokens:
                return 401, {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}
            return 200, {"data": self.account}
        if self.platform == "tiktok" and path == "/v2/user/info/":
            if token not in self.access_tokens:
                return 401, {"error": {"code": "access_token_invalid", "message": "The access token is invalid.", "log_id": "5"}}
            return 200, {"data": {"user": self.account}, "error": {"code": "ok", "message": "", "log_id": "6"}}
        return 404, {"error": "not found"}


X_ACCOUNT = {
    "id": "2244994945", "name": "Acme Dev", "username": "acmedev",
    "profile_image_url": "https://pbs.twimg.com/profile_images/1/acme_normal.jpg",
    "public_metrics": {"followers_count": 4321},
}
TIKTOK_ACCOUNT = {
    "open_id": "723f24d7-e717-40f8-a2b6-cb8464cd23b4", "union_id": "u-1", "username": "acme.tok",
    "display_name": "Acme on TikTok", "avatar_url": "https://p16.tiktokcdn.com/acme.jpeg", "follower_count": 987,
}
