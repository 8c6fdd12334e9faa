"""Local fake servers that speak each platform's documented publishing wire format.

One ``ThreadingHTTPServer`` per fake on 127.0.0.1 (port 0). A fake keeps the posts it
received, serves the recent-posts, metrics, account and quota reads from them, and can be
told to misbehave once:

- ``fail_next("rate_limit", retry_after=N)`` / ``"server_error"`` / ``"token_expired"`` /
  ``"bad_request"``: the next call (or the next one whose path contains ``when``) gets
  the platform's own error status, headers and body;
- ``fail_processing(message)``: the next media-processing status reads as failed;
- ``fail_next("drop", when=..., skip=n)``: the matching call is never processed and its
  connection closes (``skip`` lets that many matching calls through first);
- ``drop_after_create(then_drop=0)``: the next call that creates a post creates it and
  then closes the connection without an answer (and drops ``then_drop`` more calls);
- ``stall_after_create()``: the same, but the answer never comes (a read timeout).

Tokens, scopes and limits, as the platform enforces them: ``issue(token, scopes=...,
lifetime=...)`` grants a token (``TOKEN`` holds every scope and never expires); a call with
an expired token gets the platform's expired-token answer, one whose grant lacks the
documented scope of the endpoint (``route_scopes``) the platform's permission error, and
an endpoint with a documented per-token rate (``rate_limits``) answers the platform's
rate-limit error past it. Time is ``clock``: a ``FakeClock`` moves only when a test says.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from apps.publishing.platforms.base import AccountInfo

TOKEN = "test-token"


@dataclass
class FakeRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    json: Any = None
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    route: str = ""
    created: bool = False
    #: the scopes of the token the call carried (None: every scope)
    scopes: frozenset[str] | None = None
    #: the caller's (host, port): which process made the call (harness.Cluster.kill_worker_calling_from)
    client: tuple = ()

    @property
    def params(self) -> dict[str, str]:
        return {**self.query, **self.form}

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def encode(self) -> tuple[bytes, str]:
        if self.body is None:
            return b"", ""
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        return json.dumps(self.body).encode(), "application/json; charset=UTF-8"


DROP = object()
STALL = object()


class FakeClock:
    """Seconds since the epoch that move only when a test calls ``advance``."""

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Grant:
    """One access token the fake issued: its scopes (None: all) and when it dies."""

    scopes: frozenset[str] | None = None
    expires_at: float | None = None


def _parse(method: str, raw_path: str, headers: dict[str, str], body: bytes) -> FakeRequest:
    parts = urlsplit(raw_path)
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    req = FakeRequest(method, parts.path, query, headers, body)
    ctype = headers.get("content-type", "")
    if body and "application/json" in ctype:
        req.json = json.loads(body)
    elif body and "application/x-www-form-urlencoded" in ctype:
        req.form = {k: v[-1] for k, v in parse_qs(body.decode(), keep_blank_values=True).items()}
    elif body and "multipart/form-data" in ctype:
        message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {ctype}\r\n\r\n".encode() + body)
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            if part.get_filename():
                req.files[name] = (part.get_filename(), payload)
            else:
                req.form[name] = payload.decode()
    return req


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without this, delayed ACKs add 40 ms a call.
    disable_nagle_algorithm = True
    server: _Server

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        req = _parse(self.command, self.path, headers, body)
        req.client = tuple(self.client_address[:2])
        reply = self.server.fake.dispatch(req)
        if reply is STALL:
            # Hold the answer until the test is over, so the client's read timeout fires.
            self.server.fake.released.wait(10)
            reply = DROP
        if reply is DROP:
            # The work is done, the answer never comes: the client sees the connection close.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        payload, ctype = reply.encode()
        self.send_response(reply.status)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = _handle

    def log_message(self, format: str, *args: Any) -> None:
        return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakePlatform


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Callable[..., Reply]
    name: str
    auth: bool


class FakePlatform(ABC):
    """The server plumbing, fault injection and stored state shared by every fake."""

    platform = ""
    prefix = ""
    permanent_error_message = ""
    #: route name -> the scopes of which the token needs one (the endpoint's documented scope),
    #: or every one of them with ``needs_every_scope`` (X lists all the scopes an endpoint needs)
    route_scopes: dict[str, tuple[str, ...]] = {}
    needs_every_scope = False
    #: route name -> (calls, seconds) allowed per access token (the platform's documented rate)
    rate_limits: dict[str, tuple[int, float]] = {}

    def __init__(self) -> None:
        self.clock: Callable[[], float] = time.time
        self.grants: dict[str, Grant] = {}
        #: an oauth_fakes.FakeProvider whose issued tokens this platform accepts (None: ``grants``)
        self.token_source: Any = None
        self._calls_by_token: dict[tuple[str, str], list[float]] = {}
        self.routes: list[Route] = []
        self.requests: list[FakeRequest] = []
        self.posts: list[dict[str, Any]] = []
        self.metrics: dict[str, dict[str, int]] = {}
        self.token = TOKEN
        self.account = AccountInfo(
            external_id="",
            username="postforge_test",
            display_name="Postforge Test",
            picture_url="",
            followers=4321,
        )
        self.quota_used = 3
        self.quota_total = 100
        self.processing_polls = 1  # status reads that still say "in progress"
        self._faults: list[tuple[str, dict[str, Any]]] = []
        self._processing_failure: str | None = None
        self._drop_armed = False
        self._stall_armed = False
        self.released = threading.Event()
        self._drops_left = 0
        self._pending_then_drop = 0
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        self.routes_setup()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    # ---- plumbing ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_url(self) -> str:
        return self.url + self.prefix

    def close(self) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()

    def route(self, method: str, pattern: str, handler: Callable[..., Reply], *, auth: bool = True) -> None:
        self.routes.append(Route(method, re.compile(f"^{pattern}$"), handler, handler.__name__, auth))

    def next_id(self, width: int = 17) -> str:
        return str(10 ** (width - 1) + next(self._ids))

    def dispatch(self, req: FakeRequest) -> Reply | object:
        with self._lock:
            self.requests.append(req)
            if self._drops_left:
                self._drops_left -= 1
                return DROP
            for route in self.routes:
                if route.method != req.method:
                    continue
                match = route.pattern.match(req.path)
                if not match:
                    continue
                req.route = route.name
                fault = self._take_fault(req)
                if fault is not None:
                    return fault
                if route.auth:
                    refused = self.check_token(req)
                    if refused is not None:
                        return refused
                reply = route.handler(req, *[unquote(g) for g in match.groups()])
                if req.created and self._drop_armed:
                    self._drop_armed = False
                    return DROP
                if req.created and self._stall_armed:
                    self._stall_armed = False
                    return STALL
                return reply
            return self.error_reply("not_found", message=f"Unknown path {req.method} {req.path}")

    def _take_fault(self, req: FakeRequest) -> Reply | None:
        for index, (kind, options) in enumerate(self._faults):
            when = options.get("when")
            if when is None or when in req.path or when == req.route:
                if options.get("skip", 0) > 0:
                    options["skip"] -= 1
                    continue
                del self._faults[index]
                if kind == "drop":
                    # The request never got processed: the connection just closes.
                    return DROP
                return self.error_reply(kind, **options)
        return None

    # ---- what tests call ---------------------------------------------------------------

    def fail_next(self, kind: str, **options: Any) -> None:
        with self._lock:
            self._faults.append((kind, options))

    def fail_processing(self, message: str) -> None:
        with self._lock:
            self._processing_failure = message

    def take_processing_failure(self) -> str | None:
        message, self._processing_failure = self._processing_failure, None
        return message

    def drop_after_create(self, *, then_drop: int = 0) -> None:
        with self._lock:
            self._drop_armed = True
            self._pending_then_drop = then_drop

    def stall_after_create(self) -> None:
        """The next create call creates the post and then answers nothing until ``close``."""
        with self._lock:
            self._stall_armed = True

    def set_metrics(self, post_id: str, *, views: int, likes: int, comments: int, shares: int) -> None:
        self.metrics[post_id] = {"views": views, "likes": likes, "comments": comments, "shares": shares}

    def calls(self, route: str) -> list[FakeRequest]:
        return [r for r in self.requests if r.route == route]

    def post_named(self, external_id: str) -> dict[str, Any]:
        return next(p for p in self.posts if p["id"] == external_id)

    def created(self, req: FakeRequest, post: dict[str, Any]) -> None:
        """Store a new post; an armed drop answers nothing from here on."""
        post.setdefault("created_at", time.time())
        self.posts.insert(0, post)
        req.created = True
        if self._drop_armed:
            self._drops_left = self._pending_then_drop

    # ---- per platform -------------------------------------------------------------------

    @abstractmethod
    def routes_setup(self) -> None:
        """Declare the platform's routes with ``self.route``."""

    def presented_token(self, req: FakeRequest) -> str:
        header = req.header("authorization")
        return header[len("Bearer ") :] if header.startswith("Bearer ") else ""

    def authorized(self, req: FakeRequest) -> bool:
        token = self.presented_token(req)
        return bool(token) and (token == self.token or token in self.grants)

    def issue(self, token: str, *, scopes: Any = None, lifetime: float | None = None) -> str:
        """Grant ``token`` (as the platform's token endpoint would) with these scopes and lifetime."""
        with self._lock:
            self.grants[token] = Grant(
                frozenset(scopes) if scopes is not None else None,
                self.clock() + lifetime if lifetime else None,
            )
        return token

    def check_token(self, req: FakeRequest) -> Reply | None:
        """The platform's answer to a call whose token is unknown, expired, short of the
        endpoint's scope or over its rate; None when the call may go ahead.

        With ``token_source`` (an ``oauth_fakes.FakeProvider``), the tokens are the ones that
        provider issued, alive for the lifetime its token answer gave."""
        token = self.presented_token(req)
        now = self.clock()
        if self.token_source is not None:
            known = self.token_source.access_info(token)
            if known is None:
                return self.error_reply("token_invalid")
            if not known[0]:
                return self.error_reply("token_expired")
            grant = Grant(known[1], None)
        else:
            if not self.authorized(req):
                return self.error_reply("token_invalid")
            grant = self.grants.get(token) or Grant()
        if grant.expires_at is not None and now >= grant.expires_at:
            return self.error_reply("token_expired")
        req.scopes = grant.scopes
        needed = self.route_scopes.get(req.route)
        if needed and grant.scopes is not None:
            missing = [x for x in needed if x not in grant.scopes]
            if missing if self.needs_every_scope else len(missing) == len(needed):
                return self.error_reply("scope_missing", scope=missing[0])
        limit = self.rate_limits.get(req.route)
        if limit:
            calls, window = limit
            key = (token, req.route)
            recent = [t for t in self._calls_by_token.get(key, []) if t > now - window]
            if len(recent) >= calls:
                self._calls_by_token[key] = recent
                return self.error_reply("rate_limit", retry_after=max(int(recent[0] + window - now) + 1, 1))
            self._calls_by_token[key] = [*recent, now]
        return None

    @abstractmethod
    def error_reply(self, kind: str, **options: Any) -> Reply:
        """The platform's own status, headers and body for an error of this kind."""


def retry_after_headers(options: dict[str, Any]) -> dict[str, str]:
    return {"Retry-After": str(options.get("retry_after", 30))}


# ===================================================================================
# Meta Graph API (Instagram, Facebook, Threads)


class GraphFake(FakePlatform):
    """Graph objects live in ``objects``; ``GET /{id}?fields=`` returns the asked fields.

    Every answer carries Meta's usage header: the share (in percent) of the hourly call
    budget the token has used (https://developers.facebook.com/docs/graph-api/overview/rate-limiting):
    ``X-App-Usage`` ``{"call_count", "total_cputime", "total_time"}``, or for business use
    cases (Instagram, Pages) ``X-Business-Use-Case-Usage`` ``{id: [{type, call_count, ...,
    estimated_time_to_regain_access}]}``. Past the budget the call is refused (code 32/4).
    """

    prefix = "/v25.0"
    permanent_error_message = "(#100) The parameter image_url is required"
    usage_header = "X-App-Usage"
    usage_type = "pages"
    #: calls a token may make in an hour before Meta throttles it
    call_budget = 200

    #: how Meta explains a dead token (code 190), by subcode
    #: (https://developers.facebook.com/docs/graph-api/guides/error-handling#errorcodes)
    DEAD_TOKEN_MESSAGES = {
        458: "Error validating access token: The user has not authorized application 1234567890.",
        460: "Error validating access token: The session has been invalidated because the user "
        "changed their password or Facebook has changed the session for security reasons.",
        463: "Error validating access token: Session has expired on Sunday, 22-Nov-26 10:00:00 PST.",
        467: "Error validating access token: Invalid OAuth access token.",
    }

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.usage_calls: list[float] = []
        #: the subcode a dead token is refused with (the user changed their password: 460, ...)
        self.dead_token_subcode = 463
        super().__init__()

    def usage_percent(self) -> int:
        now = self.clock()
        self.usage_calls = [t for t in self.usage_calls if t > now - 3600]
        return min(100, round(100 * len(self.usage_calls) / self.call_budget))

    def check_token(self, req: FakeRequest) -> Reply | None:
        refused = super().check_token(req)
        if refused is not None:
            return refused
        if self.usage_percent() >= 100:
            return self.error_reply(
                "rate_limit", retry_after=int(self.usage_calls[0] + 3600 - self.clock()) + 1
            )
        self.usage_calls.append(self.clock())
        return None

    def dispatch(self, req: FakeRequest) -> Reply | object:
        reply = super().dispatch(req)
        if isinstance(reply, Reply):
            pct = self.usage_percent()
            if self.usage_header == "X-App-Usage":
                usage: Any = {
                    "call_count": pct,
                    "total_cputime": max(pct - 5, 0),
                    "total_time": max(pct - 3, 0),
                }
            else:
                usage = {
                    self.account.external_id or "1": [
                        {
                            "type": self.usage_type,
                            "call_count": pct,
                            "total_cputime": max(pct - 5, 0),
                            "total_time": max(pct - 3, 0),
                            "estimated_time_to_regain_access": 0,
                        }
                    ]
                }
            reply.headers = {self.usage_header: json.dumps(usage), **reply.headers}
        return reply

    def graph_fields(self, req: FakeRequest, obj: dict[str, Any]) -> dict[str, Any]:
        wanted = [f for f in re.split(r",(?![^{(]*[})])", req.params.get("fields", "")) if f]
        out = {"id": obj["id"]}
        for spec in wanted:
            key = re.split(r"[.{]", spec, maxsplit=1)[0]
            value = self.render_field(obj, key)
            if value is not None:
                out[key] = value
        return out

    def render_field(self, obj: dict[str, Any], key: str) -> Any:
        return obj.get(key)

    def error_reply(self, kind: str, **options: Any) -> Reply:
        def graph(
            status: int, message: str, type_: str, code: int, subcode: int | None = None, **extra: Any
        ) -> Reply:
            error = {"message": message, "type": type_, "code": code, **extra, "fbtrace_id": "AbCdEfGh123"}
            if subcode:
                error["error_subcode"] = subcode
            return Reply(status, {"error": error})

        if kind == "rate_limit":
            minutes = max(int(options.get("retry_after", 60)) // 60, 1)
            usage = {
                self.account.external_id or "1": [
                    {
                        "type": "pages",
                        "call_count": 100,
                        "total_cputime": 40,
                        "total_time": 35,
                        "estimated_time_to_regain_access": minutes,
                    }
                ]
            }
            reply = graph(400, "(#32) Page request limit reached", "OAuthException", 32)
            reply.headers["X-Business-Use-Case-Usage"] = json.dumps(usage)
            return reply
        policy = {  # (#368) temporarily blocked for policies violations, (#506) duplicate post
            "blocked": (
                "It looks like you were misusing this feature by going too fast.",
                368,
                1390008,
                {"error_user_title": "You Can't Use This Feature Right Now"},
            ),
            "duplicate": ("(#506) Duplicate status message", 506, None, {}),
            # (#4) the app's own limit (platform rate limiting), shared by every user and Page
            "app_rate_limit": ("(#4) Application request limit reached", 4, None, {}),
        }
        if kind in policy:
            message, code, subcode, extra = policy[kind]
            reply = graph(400, message, "OAuthException", code, subcode, **extra)
            if code == 4:
                usage = {"call_count": 100, "total_cputime": 37, "total_time": 41}
                reply.headers["X-App-Usage"] = json.dumps(usage)
            return reply
        if kind == "server_error":
            return graph(
                500,
                "An unexpected error has occurred. Please retry your request later.",
                "OAuthException",
                2,
                is_transient=True,
            )
        if kind in {"token_expired", "token_invalid"}:
            subcode = options.get("subcode") or (463 if kind == "token_expired" else self.dead_token_subcode)
            return graph(400, self.DEAD_TOKEN_MESSAGES[subcode], "OAuthException", 190, subcode)
        if kind == "bad_request":
            return graph(400, options.get("message", self.permanent_error_message), "OAuthException", 100)
        if kind == "scope_missing":
            if self.platform == "facebook":  # Pages answer a missing permission with (#200)
                return graph(
                    403,
                    f"(#200) Requires {options.get('scope')} permission to manage the object",
                    "OAuthException",
                    200,
                )
            return graph(
                403,
                f"(#10) Application does not have permission for this action: {options.get('scope')}",
                "OAuthException",
                10,
            )
        return graph(
            404 if kind == "not_found" else 400,
            options.get("message", "Unsupported request"),
            "GraphMethodException",
            100,
            33,
        )

    def insights(
        self, post_id: str, names: list[str], mapping: dict[str, Callable[[dict[str, int]], int]]
    ) -> Reply:
        refused = [i for i, n in enumerate(names) if n in getattr(self, "refused_metrics", ())]
        if refused:  # Graph fails the whole request for one retired metric
            i = refused[0]
            return Reply(
                400,
                {
                    "error": {
                        "message": f"(#100) metric[{i}] must be one of the following values: "
                        + ", ".join(sorted(mapping)),
                        "type": "OAuthException",
                        "code": 100,
                    }
                },
            )
        m = self.metrics.get(post_id, {"views": 0, "likes": 0, "comments": 0, "shares": 0})
        data = [
            {
                "name": n,
                "period": "lifetime",
                "values": [{"value": mapping[n](m)}],
                "title": n.title(),
                "id": f"{post_id}/insights/{n}/lifetime",
            }
            for n in names
            if n in mapping
        ]
        return Reply(200, {"data": data})


class InstagramFake(GraphFake):
    platform = "instagram"

    def __init__(self) -> None:
        super().__init__()
        self.account.external_id = "17841400000000001"
        self.account.picture_url = "https://scontent.cdninstagram.com/v/profile.jpg"

    usage_header = "X-Business-Use-Case-Usage"
    usage_type = "instagram"
    # https://developers.facebook.com/docs/instagram-platform/content-publishing/ and comment moderation
    route_scopes = {
        "create_container": ("instagram_business_content_publish",),
        "media_publish": ("instagram_business_content_publish",),
        "comment": ("instagram_business_manage_comments",),
        "media_insights": ("instagram_business_manage_insights",),
    }

    def routes_setup(self) -> None:
        self.route("POST", r"/v25.0/(\w+)/media", self.create_container)
        self.route("POST", r"/v25.0/(\w+)/media_publish", self.media_publish)
        self.route("POST", r"/v25.0/(\w+)/comments", self.comment)
        self.route("GET", r"/v25.0/(\w+)/media", self.list_media)
        self.route("GET", r"/v25.0/(\w+)/stories", self.list_stories)
        self.route("GET", r"/v25.0/(\w+)/insights", self.media_insights)
        self.route("GET", r"/v25.0/(\w+)/content_publishing_limit", self.publishing_limit)
        self.route("GET", r"/v25.0/(\w+)", self.get_object)

    def _user_ok(self, user: str) -> bool:
        return user in {"me", self.account.external_id}

    def create_container(self, req: FakeRequest, user: str) -> Reply:
        p = req.params
        if not self._user_ok(user):
            return self.error_reply("not_found")
        media_type = p.get("media_type", "IMAGE")
        if media_type == "CAROUSEL":
            if not p.get("children"):
                return self.error_reply("bad_request", message="(#100) The parameter children is required")
        elif media_type in {"REELS", "VIDEO"} or (media_type == "STORIES" and "video_url" in p):
            if not p.get("video_url"):
                return self.error_reply("bad_request", message="(#100) The parameter video_url is required")
        elif not p.get("image_url"):
            return self.error_reply("bad_request")
        cid = self.next_id()
        failure = self.take_processing_failure()
        self.objects[cid] = {
            "id": cid,
            "kind": "container",
            "params": dict(p),
            "polls_left": self.processing_polls,
            "final": "ERROR" if failure else "FINISHED",
            "error": failure,
        }
        return Reply(200, {"id": cid})

    def _container_status(self, c: dict[str, Any]) -> tuple[str, str]:
        if c.get("published"):
            return "PUBLISHED", "Published"
        if c["polls_left"] > 0:
            c["polls_left"] -= 1
            return "IN_PROGRESS", "In Progress"
        if c["final"] == "ERROR":
            return "ERROR", c["error"]
        return "FINISHED", "Finished: Media has been uploaded and it is ready to be published."

    def media_publish(self, req: FakeRequest, user: str) -> Reply:
        c = self.objects.get(req.params.get("creation_id", ""))
        if not c or c.get("kind") != "container":
            return self.error_reply("bad_request", message="Invalid parameter")
        if c.get("published") or c["polls_left"] > 0 or c["final"] != "FINISHED":
            return Reply(
                400,
                {
                    "error": {
                        "message": "Media ID is not available",
                        "type": "OAuthException",
                        "code": 9007,
                        "error_subcode": 2207027,
                        "fbtrace_id": "x",
                    }
                },
            )
        c["published"] = True
        mid = self.next_id()
        params = c["params"]
        story = params.get("media_type") == "STORIES"
        post = {
            "id": mid,
            "kind": "media",
            "caption": params.get("caption", ""),
            "media_type": "VIDEO"
            if story and "video_url" in params
            else {"REELS": "VIDEO", "CAROUSEL": "CAROUSEL_ALBUM"}.get(params.get("media_type", ""), "IMAGE"),
            # https://developers.facebook.com/docs/instagram-platform/reference/instagram-media
            "media_product_type": "STORY"
            if story
            else {"REELS": "REELS"}.get(params.get("media_type", ""), "FEED"),
            "permalink": f"https://www.instagram.com/stories/{self.account.username}/{mid}/"
            if story
            else f"https://www.instagram.com/p/C{mid[-8:]}/",
            "created_ts": self.clock(),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime()),
            "container": params,
            "comments": [],
        }
        self.objects[mid] = post
        self.quota_used += 1
        self.created(req, post)
        return Reply(200, {"id": mid})

    def comment(self, req: FakeRequest, media_id: str) -> Reply:
        post = self.objects.get(media_id)
        if not post or post.get("kind") != "media":
            return self.error_reply("not_found")
        cid = self.next_id()
        post["comments"].append({"id": cid, "text": req.params.get("message", "")})
        return Reply(200, {"id": cid})

    def list_media(self, req: FakeRequest, user: str) -> Reply:
        """The media edge: feed posts and reels; stories are not on it (the stories edge)."""
        limit = int(req.params.get("limit", 25))
        feed = [p for p in self.posts if p.get("media_product_type") != "STORY"]
        rows = [self.graph_fields(req, p) for p in feed[:limit]]
        return Reply(200, {"data": rows, "paging": {"cursors": {"before": "QVFI", "after": "QVFJ"}}})

    def list_stories(self, req: FakeRequest, user: str) -> Reply:
        """``/{ig-user-id}/stories``: the stories of the last 24 hours, newest first."""
        if not self._user_ok(user):
            return self.error_reply("not_found")
        now = self.clock()
        live = [
            p
            for p in self.posts
            if p.get("media_product_type") == "STORY" and p.get("created_ts", now) > now - 86400
        ]
        rows = [self.graph_fields(req, p) for p in live]
        return Reply(200, {"data": rows, "paging": {"cursors": {"before": "QVFI", "after": "QVFJ"}}})

    def media_insights(self, req: FakeRequest, media_id: str) -> Reply:
        if media_id not in self.objects:
            return self.error_reply("not_found")
        names = req.params.get("metric", "").split(",")
        mapping = {k: (lambda m, k=k: m[k]) for k in ("views", "likes", "comments", "shares")}
        return self.insights(media_id, names, mapping)

    def publishing_limit(self, req: FakeRequest, user: str) -> Reply:
        return Reply(
            200,
            {
                "data": [
                    {
                        "quota_usage": self.quota_used,
                        "config": {"quota_total": self.quota_total, "quota_duration": 86400},
                    }
                ]
            },
        )

    def get_object(self, req: FakeRequest, object_id: str) -> Reply:
        if self._user_ok(object_id):
            a = self.account
            user = {
                "id": a.external_id,
                "user_id": a.external_id,
                "username": a.username,
                "name": a.display_name,
                "profile_picture_url": a.picture_url,
                "followers_count": a.followers,
            }
            return Reply(200, self.graph_fields(req, user))
        obj = self.objects.get(object_id)
        if obj is None:
            return self.error_reply("not_found")
        if obj["kind"] == "container":
            status_code, status = self._container_status(obj)
            return Reply(
                200, self.graph_fields(req, {"id": object_id, "status_code": status_code, "status": status})
            )
        return Reply(200, self.graph_fields(req, obj))


class ThreadsFake(GraphFake):
    platform = "threads"
    prefix = "/v1.0"
    permanent_error_message = "Param text must be at most 500 characters long."
    # https://developers.facebook.com/documentation/threads/get-started: threads_content_publish
    # to publish, threads_manage_insights for insights (replies: see ``create_container``)
    route_scopes = {
        "create_container": ("threads_content_publish",),
        "threads_publish": ("threads_content_publish",),
        "media_insights": ("threads_manage_insights",),
        "user_insights": ("threads_manage_insights",),
    }

    def __init__(self) -> None:
        super().__init__()
        self.account.external_id = "25000000000000001"
        self.account.picture_url = "https://scontent.cdninstagram.com/v/threads-profile.jpg"
        self.quota_total = 250

    def presented_token(self, req: FakeRequest) -> str:
        # Threads documents the token as the access_token parameter.
        return req.params.get("access_token", "")

    def routes_setup(self) -> None:
        self.route("POST", r"/v1.0/(\w+)/threads", self.create_container)
        self.route("POST", r"/v1.0/(\w+)/threads_publish", self.threads_publish)
        self.route("GET", r"/v1.0/(\w+)/threads", self.list_threads)
        self.route("GET", r"/v1.0/(\w+)/insights", self.media_insights)
        self.route("GET", r"/v1.0/(\w+)/threads_insights", self.user_insights)
        self.route("GET", r"/v1.0/(\w+)/threads_publishing_limit", self.publishing_limit)
        self.route("GET", r"/v1.0/(\w+)", self.get_object)

    def _user_ok(self, user: str) -> bool:
        return user in {"me", self.account.external_id}

    def create_container(self, req: FakeRequest, user: str) -> Reply:
        p = {k: v for k, v in req.params.items() if k != "access_token"}
        if not self._user_ok(user):
            return self.error_reply("not_found")
        media_type = p.get("media_type")
        if media_type not in {"TEXT", "IMAGE", "VIDEO", "CAROUSEL"}:
            return self.error_reply(
                "bad_request", message="Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}"
            )
        if len(p.get("text", "")) > 500:
            return self.error_reply("bad_request")
        if "reply_to_id" in p and req.scopes is not None and "threads_manage_replies" not in req.scopes:
            return self.error_reply("scope_missing", scope="threads_manage_replies")
        if "reply_to_id" in p and p["reply_to_id"] not in self.objects:
            return self.error_reply("bad_request", message="The reply_to_id is invalid")
        cid = self.next_id()
        failure = self.take_processing_failure() if media_type != "TEXT" else None
        self.objects[cid] = {
            "id": cid,
            "kind": "container",
            "params": p,
            "polls_left": self.processing_polls,
            "final": "ERROR" if failure else "FINISHED",
            "error": failure,
        }
        return Reply(200, {"id": cid})

    def threads_publish(self, req: FakeRequest, user: str) -> Reply:
        c = self.objects.get(req.params.get("creation_id", ""))
        if (
            not c
            or c.get("kind") != "container"
            or c.get("published")
            or c["polls_left"] > 0
            or c["final"] != "FINISHED"
        ):
            return Reply(
                400,
                {
                    "error": {
                        "message": "The media is not ready to be published.",
                        "type": "THApiException",
                        "code": 24,
                        "error_subcode": 4279009,
                        "fbtrace_id": "x",
                    }
                },
            )
        c["published"] = True
        mid = self.next_id()
        p = c["params"]
        post = {
            "id": mid,
            "kind": "media",
            "text": p.get("text", ""),
            "media_type": p.get("media_type"),
            "permalink": f"https://www.threads.net/@{self.account.username}/post/D{mid[-8:]}",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime()),
            "container": p,
            "replies": [],
        }
        self.objects[mid] = post
        if "reply_to_id" in p:
            self.objects[p["reply_to_id"]]["replies"].append(post)
            post["kind"] = "reply"
            return Reply(200, {"id": mid})
        self.quota_used += 1
        self.created(req, post)
        return Reply(200, {"id": mid})

    def list_threads(self, req: FakeRequest, user: str) -> Reply:
        limit = int(req.params.get("limit", 25))
        return Reply(
            200, {"data": [self.graph_fields(req, p) for p in self.posts[:limit]], "paging": {"cursors": {}}}
        )

    def media_insights(self, req: FakeRequest, media_id: str) -> Reply:
        names = req.params.get("metric", "").split(",")
        mapping = {
            "views": lambda m: m["views"],
            "likes": lambda m: m["likes"],
            "replies": lambda m: m["comments"],
            "reposts": lambda m: m["shares"],
            "quotes": lambda m: 0,
            "shares": lambda m: 0,
        }
        return self.insights(media_id, names, mapping)

    def user_insights(self, req: FakeRequest, user: str) -> Reply:
        data = [
            {
                "name": "followers_count",
                "period": "day",
                "title": "followers_count",
                "total_value": {"value": self.account.followers},
                "id": f"{user}/insights/followers_count/day",
            }
        ]
        return Reply(200, {"data": data})

    def publishing_limit(self, req: FakeRequest, user: str) -> Reply:
        return Reply(
            200,
            {
                "data": [
                    {
                        "quota_usage": self.quota_used,
                        "config": {"quota_total": self.quota_total, "quota_duration": 86400},
                        "reply_quota_usage": 0,
                        "reply_config": {"quota_total": 1000, "quota_duration": 86400},
                    }
                ]
            },
        )

    def get_object(self, req: FakeRequest, object_id: str) -> Reply:
        if self._user_ok(object_id):
            a = self.account
            user = {
                "id": a.external_id,
                "username": a.username,
                "name": a.display_name,
                "threads_profile_picture_url": a.picture_url,
            }
            return Reply(200, self.graph_fields(req, user))
        obj = self.objects.get(object_id)
        if obj is None:
            return self.error_reply("not_found")
        if obj["kind"] == "container":
            if obj.get("published"):
                status, error = "PUBLISHED", None
            elif obj["polls_left"] > 0:
                obj["polls_left"] -= 1
                status, error = "IN_PROGRESS", None
            else:
                status, error = obj["final"], obj["error"]
            body = {"id": object_id, "status": status}
            if error:
                body["error_message"] = error
            return Reply(200, self.graph_fields(req, body))
        return Reply(200, self.graph_fields(req, obj))


class FacebookFake(GraphFake):
    platform = "facebook"
    permanent_error_message = "(#200) The user hasn't authorized the application to perform this action"
    usage_header = "X-Business-Use-Case-Usage"
    # https://developers.facebook.com/documentation/pages-api/posts.md: posting needs
    # pages_manage_posts, commenting as the Page pages_manage_engagement, insights read_insights
    route_scopes = {
        "feed": ("pages_manage_posts",),
        "photos": ("pages_manage_posts",),
        "video_reels": ("pages_manage_posts",),
        "page_videos": ("pages_manage_posts",),
        "comment": ("pages_manage_engagement",),
        "post_insights": ("read_insights",),
    }

    def __init__(self) -> None:
        super().__init__()
        self.account.external_id = "104000000000001"
        self.account.picture_url = "https://scontent.xx.fbcdn.net/v/page.png"
        self.upload_sessions: dict[str, dict[str, Any]] = {}
        #: User access tokens (issue_user); every other granted token is a Page token
        self.user_tokens: set[str] = set()

    def issue_user(self, token: str, *, scopes: Any = None) -> str:
        """A User access token: the Resumable Upload API's session is started with one."""
        self.user_tokens.add(token)
        return self.issue(token, scopes=scopes)

    def routes_setup(self) -> None:
        self.route("POST", r"/v25.0/(\w+)/feed", self.feed)
        self.route("POST", r"/v25.0/(\w+)/photos", self.photos)
        self.route("POST", r"/v25.0/(\w+)/video_reels", self.video_reels)
        self.route("POST", r"/video-upload/v25.0/(\w+)", self.rupload, auth=False)
        self.route("POST", r"/v25.0/([\w-]+)/uploads", self.app_uploads)
        self.route("POST", r"/v25.0/upload:(\w+)", self.upload_session, auth=False)
        self.route("POST", r"/v25.0/(\w+)/videos", self.page_videos_on_graph)
        # graph-video.facebook.com, served here under /graph-video (OAUTH_ENDPOINT_OVERRIDES video_api)
        self.route("POST", r"/graph-video/v25.0/(\w+)/videos", self.page_videos)
        self.route("POST", r"/v25.0/(\w+)/comments", self.comment)
        self.route("GET", r"/v25.0/(\w+)/published_posts", self.published_posts)
        self.route("GET", r"/v25.0/(\w+)/insights", self.post_insights)
        self.route("GET", r"/v25.0/(\w+)", self.get_object)

    def _page_ok(self, page: str) -> bool:
        return page in {"me", self.account.external_id}

    def _new_post(self, req: FakeRequest, message: str, **extra: Any) -> dict[str, Any]:
        pid = f"{self.account.external_id}_{self.next_id(16)}"
        post = {
            "id": pid,
            "kind": "post",
            "message": message,
            "permalink_url": f"https://www.facebook.com/{self.account.external_id}/posts/{pid.split('_')[1]}",
            "created_time": time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime()),
            "comments_list": [],
            **extra,
        }
        self.objects[pid] = post
        self.created(req, post)
        return post

    def feed(self, req: FakeRequest, page: str) -> Reply:
        p = req.params
        if not self._page_ok(page):
            return self.error_reply("not_found")
        attached = json.loads(p["attached_media"]) if p.get("attached_media") else []
        for item in attached:
            photo = self.objects.get(item.get("media_fbid"))
            if not photo or photo.get("published"):
                return self.error_reply("bad_request", message="(#100) attached_media is invalid")
        if not p.get("message") and not p.get("link") and not attached:
            return self.error_reply("bad_request", message="(#100) Missing message or attachment")
        post = self._new_post(req, p.get("message", ""), link=p.get("link"), attached_media=attached)
        return Reply(200, {"id": post["id"]})

    def photos(self, req: FakeRequest, page: str) -> Reply:
        p = req.params
        if not p.get("url"):
            return self.error_reply("bad_request", message="(#324) Requires upload file")
        photo_id = self.next_id(16)
        published = p.get("published", "true") == "true"
        self.objects[photo_id] = {"id": photo_id, "kind": "photo", "params": dict(p), "published": published}
        if not published:
            return Reply(200, {"id": photo_id})
        post = self._new_post(req, p.get("caption", ""), photo=dict(p))
        return Reply(200, {"id": photo_id, "post_id": post["id"]})

    def video_reels(self, req: FakeRequest, page: str) -> Reply:
        p = req.params
        phase = p.get("upload_phase")
        if phase == "start":
            vid = self.next_id(16)
            self.objects[vid] = {
                "id": vid,
                "kind": "video",
                "uploaded": False,
                "polls_left": self.processing_polls,
            }
            return Reply(200, {"video_id": vid, "upload_url": f"{self.url}/video-upload/v25.0/{vid}"})
        if phase == "finish":
            video = self.objects.get(p.get("video_id", ""))
            if not video or not video["uploaded"]:
                return self.error_reply("bad_request", message="(#100) Video has not been uploaded")
            failure = self.take_processing_failure()
            video.update(
                finished=True,
                failure=failure,
                description=p.get("description", ""),
                video_state=p.get("video_state"),
            )
            if not failure:
                post = self._new_post(req, p.get("description", ""), video_id=video["id"], reel=dict(p))
                video["post_id"] = post["id"]
                video["permalink_url"] = f"/reel/{video['id']}/"
            return Reply(200, {"success": True})
        return self.error_reply("bad_request", message="(#100) upload_phase must be one of {start, finish}")

    def rupload(self, req: FakeRequest, video_id: str) -> Reply:
        presented = req.header("authorization").removeprefix("OAuth ")
        if presented != self.token and presented not in self.grants:
            return Reply(
                401,
                {
                    "debug_info": {
                        "retriable": False,
                        "type": "AuthException",
                        "message": "Invalid OAuth access token",
                    }
                },
            )
        video = self.objects.get(video_id)
        if not video or not (req.header("file_url") or req.body):
            return Reply(
                400,
                {
                    "debug_info": {
                        "retriable": False,
                        "type": "ProcessingFailedError",
                        "message": "Request has no file",
                    }
                },
            )
        video.update(uploaded=True, file_url=req.header("file_url"))
        return Reply(200, {"success": True})

    # The Resumable Upload API (https://developers.facebook.com/docs/graph-api/resumable-upload-api)
    # and the Page's /videos edge publishing its handle (Video API guide).

    def app_uploads(self, req: FakeRequest, app_id: str) -> Reply:
        p = req.params
        if self.presented_token(req) not in self.user_tokens:  # the guide: a User access token
            return self.error_reply(
                "bad_request",
                message="(#100) An upload session must be started with a User access token, not a Page access token",
            )
        if p.get("file_type") not in {"video/mp4", "image/jpeg", "image/jpg", "image/png", "application/pdf"}:
            return self.error_reply("bad_request", message="(#100) Invalid file_type")
        if not p.get("file_length", "").isdigit() or not int(p["file_length"]):
            return self.error_reply("bad_request", message="(#100) file_length must be a positive integer")
        sid = self.next_id(12)
        self.upload_sessions[sid] = {
            "user_token": self.presented_token(req),
            "app_id": app_id,
            "length": int(p["file_length"]),
            "name": p.get("file_name", ""),
            "received": 0,
            "bytes": bytearray(),
        }
        return Reply(200, {"id": f"upload:{sid}"})

    def upload_session(self, req: FakeRequest, sid: str) -> Reply:
        presented = req.header("authorization").removeprefix("OAuth ")
        if presented != self.token and presented not in self.grants:
            return self.error_reply("token_invalid")
        session = self.upload_sessions.get(sid)
        if session is None:
            return self.error_reply("not_found")
        if presented != session.get("user_token"):  # the token that started the session
            return self.error_reply("token_invalid")
        if req.header("file_offset") != str(session["received"]):
            return self.error_reply(
                "bad_request", message=f"(#100) file_offset must be {session['received']}"
            )
        session["received"] += len(req.body)
        session["bytes"] += req.body
        if session["received"] < session["length"]:
            return Reply(200, {"id": f"upload:{sid}", "file_offset": session["received"]})
        handle = f"2:c2FtcGxl{sid}"
        session["handle"] = handle
        return Reply(200, {"h": handle})

    def page_videos_on_graph(self, req: FakeRequest, page: str) -> Reply:
        """A handle posted to graph.facebook.com: Meta takes video uploads on graph-video only."""
        return self.error_reply(
            "bad_request", message="(#100) Video uploads must be sent to graph-video.facebook.com"
        )

    def page_videos(self, req: FakeRequest, page: str) -> Reply:
        p = req.params
        if self.presented_token(req) in self.user_tokens:  # published as the Page: its token
            return self.error_reply("bad_request", message="(#200) Publishing as a Page needs its Page token")
        if not self._page_ok(page):
            return self.error_reply("not_found")
        handle = p.get("fbuploader_video_file_chunk", "")
        session = next((s for s in self.upload_sessions.values() if s.get("handle") == handle), None)
        if session is None or session["received"] != session["length"]:
            return self.error_reply("bad_request", message="(#100) Invalid fbuploader_video_file_chunk")
        vid = self.next_id(16)
        post = self._new_post(req, p.get("description", ""), video_id=vid, page_video=dict(p))
        self.objects[vid] = {
            "id": vid,
            "kind": "page_video",
            "title": p.get("title", ""),
            "description": p.get("description", ""),
            "size": session["length"],
            "post_id": post["id"],
            "permalink_url": f"/{self.account.external_id}/videos/{vid}/",
        }
        return Reply(200, {"id": vid})

    def comment(self, req: FakeRequest, post_id: str) -> Reply:
        post = self.objects.get(post_id)
        if not post or post.get("kind") != "post":
            return self.error_reply("not_found")
        cid = f"{post_id.split('_')[1]}_{self.next_id(16)}"
        post["comments_list"].append({"id": cid, "message": req.params.get("message", "")})
        return Reply(200, {"id": cid})

    def published_posts(self, req: FakeRequest, page: str) -> Reply:
        limit = int(req.params.get("limit", 25))
        return Reply(200, {"data": [self.graph_fields(req, p) for p in self.posts[:limit]], "paging": {}})

    def post_insights(self, req: FakeRequest, post_id: str) -> Reply:
        names = req.params.get("metric", "").split(",")
        return self.insights(post_id, names, {"post_media_view": lambda m: m["views"]})

    def render_field(self, obj: dict[str, Any], key: str) -> Any:
        m = self.metrics.get(obj["id"], {"views": 0, "likes": 0, "comments": 0, "shares": 0})
        if key == "shares":
            return {"count": m["shares"]}
        if key in {"comments", "reactions"}:
            return {
                "data": [],
                "summary": {
                    "total_count": m["likes" if key == "reactions" else "comments"],
                    "order": "ranked",
                },
            }
        if key == "picture":
            return {
                "data": {"url": obj.get("picture_url", ""), "is_silhouette": False, "height": 50, "width": 50}
            }
        return obj.get(key)

    def get_object(self, req: FakeRequest, object_id: str) -> Reply:
        if self._page_ok(object_id):
            a = self.account
            page = {
                "id": a.external_id,
                "name": a.display_name,
                "username": a.username,
                "picture_url": a.picture_url,
                "followers_count": a.followers,
            }
            return Reply(200, self.graph_fields(req, page))
        obj = self.objects.get(object_id)
        if obj is None:
            return self.error_reply("not_found")
        if obj["kind"] == "video":
            if not obj.get("finished"):
                status = {"video_status": "upload_complete" if obj["uploaded"] else "processing"}
            elif obj["polls_left"] > 0:
                obj["polls_left"] -= 1
                status = {
                    "video_status": "processing",
                    "uploading_phase": {"status": "complete"},
                    "processing_phase": {"status": "in_progress"},
                    "publishing_phase": {"status": "not_started"},
                }
            elif obj.get("failure"):
                status = {
                    "video_status": "error",
                    "uploading_phase": {"status": "complete"},
                    "processing_phase": {
                        "status": "error",
                        "errors": [{"code": 1363008, "message": obj["failure"]}],
                    },
                    "publishing_phase": {"status": "not_started"},
                }
            else:
                status = {
                    "video_status": "ready",
                    "uploading_phase": {"status": "complete"},
                    "processing_phase": {"status": "complete"},
                    "publishing_phase": {"status": "complete", "publish_status": "published"},
                }
            return Reply(200, self.graph_fields(req, {**obj, "status": status}))
        return Reply(200, self.graph_fields(req, obj))


# ===================================================================================
# TikTok


class TikTokFake(FakePlatform):
    platform = "tiktok"
    permanent_error_message = "The privacy_level is not valid for this creator."
    # https://developers.tiktok.com/doc/content-posting-api-reference-direct-post (video.publish),
    # .../content-posting-api-reference-get-video-status (video.upload or video.publish, 30 calls
    # a minute per user access token), .../tiktok-api-v2-video-list (video.list)
    route_scopes = {
        "creator_info": ("video.publish",),
        "video_init": ("video.publish",),
        "content_init": ("video.publish",),
        "status_fetch": ("video.publish", "video.upload"),
        "video_list": ("video.list",),
        "video_query": ("video.list",),
        "user_info": ("user.info.basic",),
    }
    rate_limits = {"status_fetch": (30, 60.0), "creator_info": (20, 60.0)}
    #: an access token lives 24 h (https://developers.tiktok.com/doc/oauth-user-access-token-management)
    token_lifetime = 86400

    def __init__(self) -> None:
        super().__init__()
        self.account.external_id = "-000ZqZ4nAbCdEfGhIjKlMnOp"
        self.account.picture_url = "https://p16-sign.tiktokcdn-us.com/avatar.jpeg"
        self.privacy_level_options = [
            "PUBLIC_TO_EVERYONE",
            "MUTUAL_FOLLOW_FRIENDS",
            "FOLLOWER_OF_CREATOR",
            "SELF_ONLY",
        ]
        self.max_video_post_duration_sec = 600
        self.daily_cap_reached = False
        self.publishes: dict[str, dict[str, Any]] = {}
        #: seconds of moderation after PUBLISH_COMPLETE before a public post's id exists
        self.moderation_seconds = 0.0
        #: the app passed TikTok's audit. Until then (content sharing guidelines): every post is
        #: SELF_ONLY whatever was asked, the account must be private at posting time
        #: (403 unaudited_client_can_only_post_to_private_accounts), and at most 5 users post in
        #: 24 h (403 reached_active_user_cap); a user is known here by the token it presents
        self.audited = True
        self.account_private = False
        self.active_users: dict[str, float] = {}
        #: domains and URL prefixes the app verified in the developer portal: PULL_FROM_URL from
        #: anywhere else is 403 url_ownership_unverified
        self.verified_url_prefixes = ["postforge.test", "postforge.dev"]

    def routes_setup(self) -> None:
        self.route("POST", r"/v2/post/publish/creator_info/query/", self.creator_info)
        self.route("POST", r"/v2/post/publish/video/init/", self.video_init)
        self.route("POST", r"/v2/post/publish/content/init/", self.content_init)
        self.route("PUT", r"/upload/(\w+)/", self.upload_chunk, auth=False)
        self.route("POST", r"/v2/post/publish/status/fetch/", self.status_fetch)
        self.route("POST", r"/v2/video/list/", self.video_list)
        self.route("POST", r"/v2/video/query/", self.video_query)
        self.route("GET", r"/v2/user/info/", self.user_info)

    @staticmethod
    def ok(data: dict[str, Any], status: int = 200) -> Reply:
        return Reply(
            status, {"data": data, "error": {"code": "ok", "message": "", "log_id": "202611231200000101"}}
        )

    @staticmethod
    def err(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Reply:
        return Reply(
            status,
            {"error": {"code": code, "message": message, "log_id": "202611231200000102"}},
            headers or {},
        )

    def error_reply(self, kind: str, **options: Any) -> Reply:
        if kind == "rate_limit":
            return self.err(
                429, "rate_limit_exceeded", "API rate limit exceeded.", retry_after_headers(options)
            )
        if kind == "server_error":
            return self.err(500, "internal_error", "Something went wrong. Please try again later.")
        if kind in {"token_expired", "token_invalid"}:
            return self.err(
                401, "access_token_invalid", "The access token is invalid or not found in the request."
            )
        if kind in {"scope_not_authorized", "scope_missing"}:
            return self.err(
                401,
                "scope_not_authorized",
                "The user did not authorize the scope required for completing this request.",
            )
        if kind == "bad_request":
            return self.err(
                400, "privacy_level_option_mismatch", options.get("message", self.permanent_error_message)
            )
        if kind == "spam_risk_too_many_posts":
            return self.err(403, "spam_risk_too_many_posts", "The user has reached the daily post cap.")
        return self.err(
            404 if kind == "not_found" else 400, "invalid_params", options.get("message", "Invalid request.")
        )

    def _json_ok(self, req: FakeRequest) -> bool:
        return req.header("content-type").startswith("application/json")

    def creator_info(self, req: FakeRequest) -> Reply:
        if self.daily_cap_reached:
            return self.error_reply("spam_risk_too_many_posts")
        return self.ok(
            {
                "creator_avatar_url": self.account.picture_url,
                "creator_username": self.account.username,
                "creator_nickname": self.account.display_name,
                "privacy_level_options": self.privacy_level_options,
                "comment_disabled": False,
                "duet_disabled": False,
                "stitch_disabled": True,
                "max_video_post_duration_sec": self.max_video_post_duration_sec,
            }
        )

    def _check_post_info(self, info: dict[str, Any], req: FakeRequest | None = None) -> Reply | None:
        if info.get("privacy_level") not in self.privacy_level_options:
            return self.error_reply("bad_request")
        if self.audited or req is None:
            return None
        if not self.account_private:
            return self.err(
                403,
                "unaudited_client_can_only_post_to_private_accounts",
                "Unaudited clients can only post to a private account.",
            )
        now, user = self.clock(), self.presented_token(req)
        self.active_users = {u: t for u, t in self.active_users.items() if now - t < 86400}
        if user not in self.active_users and len(self.active_users) >= 5:
            return self.err(
                403,
                "reached_active_user_cap",
                "The daily quota for active publishing users from your client is reached.",
            )
        self.active_users.setdefault(user, now)
        info["privacy_level"] = "SELF_ONLY"  # restricted to private viewing, whatever was asked
        return None

    def _url_verified(self, url: str) -> bool:
        from urllib.parse import urlsplit

        host = (urlsplit(url).hostname or "").lower()
        return url.startswith("https://") and any(
            url.startswith(p) if "://" in p else host == p or host.endswith("." + p)
            for p in self.verified_url_prefixes
        )

    def _unverified(self) -> Reply:
        return self.err(
            403,
            "url_ownership_unverified",
            "The ownership of the domain or URL prefix of the media URL is not verified.",
        )

    def video_init(self, req: FakeRequest) -> Reply:
        if not self._json_ok(req) or not isinstance(req.json, dict):
            return self.err(400, "invalid_params", "Content-Type must be application/json")
        body = req.json
        source = body.get("source_info") or {}
        if source.get("source") == "PULL_FROM_URL" and not self._url_verified(
            str(source.get("video_url", ""))
        ):
            return self._unverified()
        problem = self._check_post_info(body.get("post_info") or {}, req)
        if problem:
            return problem
        publish_id = f"v_pub_file~v2-1.{self.next_id(19)}"
        entry: dict[str, Any] = {
            "id": publish_id,
            "post_info": body["post_info"],
            "source_info": source,
            "received": bytearray(),
            "polls_left": self.processing_polls,
        }
        if source.get("source") == "FILE_UPLOAD":
            size, chunk, count = (
                source.get("video_size", 0),
                source.get("chunk_size", 0),
                source.get("total_chunk_count", 0),
            )
            mb5, mb64 = 5 * 1024 * 1024, 64 * 1024 * 1024
            valid = (size < mb5 and chunk == size and count == 1) or (
                mb5 <= chunk <= mb64
                and count == size // chunk
                and size - chunk * (count - 1) <= 128 * 1024 * 1024
            )
            if not valid:
                return self.err(400, "invalid_file_upload", "The chunk_size or total_chunk_count is invalid.")
            self.publishes[publish_id] = entry
            return self.ok(
                {
                    "publish_id": publish_id,
                    "upload_url": f"{self.url}/upload/{publish_id.rsplit('.', maxsplit=1)[-1]}/?upload_token=tok",
                }
            )
        if source.get("source") == "PULL_FROM_URL":
            self.publishes[publish_id] = entry
            self._finish_upload(req, entry)
            return self.ok({"publish_id": publish_id})
        return self.err(400, "invalid_params", "source_info.source is invalid")

    def _finish_upload(self, req: FakeRequest, entry: dict[str, Any]) -> None:
        failure = self.take_processing_failure()
        entry["failure"] = failure
        if failure:
            return
        post_id = self.next_id(19)
        entry["post_id"] = post_id
        info = entry["post_info"]
        post = {
            "id": post_id,
            "publish_id": entry["id"],
            "title": info.get("title", ""),
            "video_description": info.get("description", info.get("title", "")),
            "share_url": f"https://www.tiktok.com/@{self.account.username}/video/{post_id}",
            "create_time": int(time.time()),
            "post_info": info,
            "source_info": entry["source_info"],
        }
        self.created(req, post)

    def upload_chunk(self, req: FakeRequest, upload_id: str) -> Reply:
        entry = next((e for pid, e in self.publishes.items() if pid.endswith(upload_id)), None)
        match = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", req.header("content-range"))
        if entry is None or not match:
            return self.err(400, "invalid_params", "Bad upload request.")
        first, last, total = map(int, match.groups())
        src = entry["source_info"]
        if total != src["video_size"] or first != len(entry["received"]) or last - first + 1 != len(req.body):
            return Reply(416, None)
        entry["received"] += req.body
        if len(entry["received"]) < total:
            return Reply(206, None)
        self._finish_upload(req, entry)
        return Reply(201, None)

    def content_init(self, req: FakeRequest) -> Reply:
        body = req.json or {}
        source = body.get("source_info") or {}
        if not all(self._url_verified(str(u)) for u in source.get("photo_images") or []):
            return self._unverified()
        problem = self._check_post_info(body.get("post_info") or {}, req)
        if problem:
            return problem
        if (
            body.get("media_type") != "PHOTO"
            or source.get("source") != "PULL_FROM_URL"
            or not source.get("photo_images")
        ):
            return self.err(
                400, "invalid_params", "Photo posts need media_type PHOTO and PULL_FROM_URL photo_images."
            )
        publish_id = f"p_pub_url~v2.{self.next_id(19)}"
        entry = {
            "id": publish_id,
            "post_info": body["post_info"],
            "source_info": source,
            "polls_left": self.processing_polls,
        }
        self.publishes[publish_id] = entry
        self._finish_upload(req, entry)
        return self.ok({"publish_id": publish_id})

    def status_fetch(self, req: FakeRequest) -> Reply:
        entry = self.publishes.get((req.json or {}).get("publish_id", ""))
        if entry is None:
            return self.err(400, "invalid_publish_id", "The publish_id does not exist.")
        if "failure" not in entry:
            return self.ok({"status": "PROCESSING_UPLOAD", "uploaded_bytes": len(entry["received"])})
        if entry["polls_left"] > 0:
            entry["polls_left"] -= 1
            return self.ok(
                {
                    "status": "PROCESSING_DOWNLOAD"
                    if entry["source_info"].get("source") == "PULL_FROM_URL"
                    else "PROCESSING_UPLOAD"
                }
            )
        if entry["failure"]:
            return self.ok({"status": "FAILED", "fail_reason": entry["failure"]})
        public = entry["post_info"].get("privacy_level") != "SELF_ONLY"
        completed = entry.setdefault("completed_at", self.clock())
        moderated = self.clock() >= completed + self.moderation_seconds
        # The post id of a public post is given only once moderation is over.
        return self.ok(
            {
                "status": "PUBLISH_COMPLETE",
                "publicaly_available_post_id": [int(entry["post_id"])] if public and moderated else [],
            }
        )

    def video_list(self, req: FakeRequest) -> Reply:
        fields = req.query.get("fields", "").split(",")
        count = int((req.json or {}).get("max_count", 20))
        videos = [{k: p[k] for k in fields if k in p} for p in self.posts[:count]]
        return self.ok({"videos": videos, "cursor": 0, "has_more": False})

    def video_query(self, req: FakeRequest) -> Reply:
        ids = ((req.json or {}).get("filters") or {}).get("video_ids") or []
        videos = []
        for vid in ids:
            m = self.metrics.get(str(vid))
            if m is not None:
                videos.append(
                    {
                        "id": str(vid),
                        "view_count": m["views"],
                        "like_count": m["likes"],
                        "comment_count": m["comments"],
                        "share_count": m["shares"],
                    }
                )
        return self.ok({"videos": videos})

    def user_info(self, req: FakeRequest) -> Reply:
        a = self.account
        user = {
            "open_id": a.external_id,
            "union_id": "union-1",
            "avatar_url": a.picture_url,
            "display_name": a.display_name,
            "username": a.username,
            "follower_count": a.followers,
        }
        fields = req.query.get("fields", "").split(",")
        return self.ok({"user": {k: v for k, v in user.items() if k in fields}})


# ===================================================================================
# YouTube


class YouTubeFake(FakePlatform):
    platform = "youtube"
    permanent_error_message = "The request metadata specifies an invalid video title."

    def __init__(self) -> None:
        super().__init__()
        self.account.external_id = "UCabcdefghijklmnopqrstuv"
        self.account.username = "@postforgetest"
        self.account.picture_url = "https://yt3.ggpht.com/default.jpg"
        self.sessions: dict[str, dict[str, Any]] = {}
        self.videos: dict[str, dict[str, Any]] = {}
        self.comments: list[dict[str, Any]] = []
        #: Google audited the API project: until then every upload is locked private, whatever
        #: status.privacyStatus asked (https://developers.google.com/youtube/v3/docs/videos/insert)
        self.project_audited = True
        #: videos.insert's own daily bucket per Cloud project (default 100 calls a day, reset at
        #: midnight Pacific): past it, 403 quotaExceeded in the youtube.quota domain
        #: (https://developers.google.com/youtube/v3/determine_quota_cost)
        self.uploads_per_day = 100
        self.uploads_today: dict[str, int] = {}

    _YT = "https://www.googleapis.com/auth/youtube"
    # videos.insert: youtube.upload (or youtube, youtube.force-ssl); commentThreads.insert:
    # youtube.force-ssl; reads: youtube.readonly (or the write scopes)
    route_scopes = {
        "start_upload": (f"{_YT}.upload", _YT, f"{_YT}.force-ssl"),
        "upload_bytes": (f"{_YT}.upload", _YT, f"{_YT}.force-ssl"),
        "comment_thread": (f"{_YT}.force-ssl",),
        "list_videos": (f"{_YT}.readonly", _YT, f"{_YT}.force-ssl"),
    }
    #: Google access tokens live 3,599 s
    token_lifetime = 3599

    def routes_setup(self) -> None:
        self.route("POST", r"/upload/youtube/v3/videos", self.start_upload)
        self.route("PUT", r"/upload/youtube/v3/videos", self.upload_bytes)
        self.route("GET", r"/youtube/v3/videos", self.list_videos)
        self.route("POST", r"/youtube/v3/commentThreads", self.comment_thread)
        self.route("GET", r"/youtube/v3/channels", self.channels)
        self.route("GET", r"/youtube/v3/playlistItems", self.playlist_items)

    @staticmethod
    def google(
        status: int, reason: str, message: str, state: str, headers: dict[str, str] | None = None
    ) -> Reply:
        domain = "youtube.quota" if "quota" in reason.lower() else "global"
        body = {
            "error": {
                "code": status,
                "message": message,
                "errors": [{"message": message, "domain": domain, "reason": reason}],
                "status": state,
            }
        }
        return Reply(status, body, headers or {})

    def error_reply(self, kind: str, **options: Any) -> Reply:
        if kind == "rate_limit":
            return self.google(
                429,
                "rateLimitExceeded",
                "Resource has been exhausted (e.g. check quota).",
                "RESOURCE_EXHAUSTED",
                retry_after_headers(options),
            )
        if kind == "quota_exceeded":
            return self.google(
                403,
                "quotaExceeded",
                "The request cannot be completed because you have exceeded your quota.",
                "PERMISSION_DENIED",
            )
        if kind == "server_error":
            return self.google(503, "backendError", "Backend Error", "UNAVAILABLE")
        if kind == "scope_missing":
            return self.google(
                403,
                "insufficientPermissions",
                "Request had insufficient authentication scopes.",
                "PERMISSION_DENIED",
            )
        if kind in {"token_expired", "token_invalid"}:
            return self.google(
                401,
                "authError",
                "Request had invalid authentication credentials. Expected OAuth 2 access token.",
                "UNAUTHENTICATED",
            )
        if kind == "bad_request":
            return self.google(
                400, "invalidTitle", options.get("message", self.permanent_error_message), "INVALID_ARGUMENT"
            )
        return self.google(
            404 if kind == "not_found" else 400,
            "notFound" if kind == "not_found" else "badRequest",
            options.get("message", "Not found"),
            "NOT_FOUND",
        )

    def _pacific_day(self) -> str:
        from datetime import UTC, datetime
        from zoneinfo import ZoneInfo

        return (
            datetime.fromtimestamp(self.clock(), UTC)
            .astimezone(ZoneInfo("America/Los_Angeles"))
            .date()
            .isoformat()
        )

    def start_upload(self, req: FakeRequest) -> Reply:
        q = req.query
        day = self._pacific_day()
        if self.uploads_today.get(day, 0) >= self.uploads_per_day:
            return self.error_reply("quota_exceeded")
        self.uploads_today[day] = self.uploads_today.get(day, 0) + 1
        if q.get("uploadType") != "resumable" or set(q.get("part", "").split(",")) != {"snippet", "status"}:
            return self.error_reply(
                "bad", message="uploadType=resumable and part=snippet,status are required"
            )
        meta = req.json or {}
        title = (meta.get("snippet") or {}).get("title", "")
        if not title or len(title) > 100 or "<" in title:
            return self.error_reply("bad_request")
        if not req.header("x-upload-content-length").isdigit():
            return self.error_reply("bad", message="X-Upload-Content-Length is required")
        upload_id = f"ADPycdt{self.next_id(12)}"
        self.sessions[upload_id] = {
            "metadata": meta,
            "notify": q.get("notifySubscribers"),
            "total": int(req.header("x-upload-content-length")),
            "content_type": req.header("x-upload-content-type"),
            "received": bytearray(),
            "video_id": None,
        }
        location = f"{self.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id={upload_id}"
        return Reply(200, None, {"Location": location, "X-GUploader-UploadID": upload_id})

    def upload_bytes(self, req: FakeRequest) -> Reply:
        session = self.sessions.get(req.query.get("upload_id", ""))
        if session is None:
            return self.error_reply("not_found", message="Upload session not found")
        content_range = req.header("content-range")
        total = session["total"]
        if content_range == f"bytes */{total}":
            if session["video_id"]:
                return Reply(200, self.video_resource(session["video_id"]))
            received = len(session["received"])
            return Reply(308, None, {"Range": f"bytes=0-{received - 1}"} if received else {})
        match = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", content_range)
        if (
            not match
            or int(match[3]) != total
            or int(match[1]) != len(session["received"])
            or int(match[2]) - int(match[1]) + 1 != len(req.body)
        ):
            return self.error_reply(
                "bad", message=f"Content-Range {content_range!r} does not match the session"
            )
        session["received"] += req.body
        if len(session["received"]) < total:
            return Reply(308, None, {"Range": f"bytes=0-{len(session['received']) - 1}"})
        video_id = f"dQw4w9W{self.next_id(4)}"
        session["video_id"] = video_id
        failure = self.take_processing_failure()
        meta = session["metadata"]
        status = {**meta.get("status", {}), "uploadStatus": "uploaded"}
        if not self.project_audited:  # the private lock: what was asked does not matter
            status["privacyStatus"] = "private"
            status.pop("publishAt", None)
        video = {
            "id": video_id,
            "snippet": {
                **meta.get("snippet", {}),
                "channelId": self.account.external_id,
                "publishedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
            "status": status,
            "processing": {"polls_left": self.processing_polls, "failure": failure},
            "bytes": bytes(session["received"]),
            "notify": session["notify"],
        }
        self.videos[video_id] = video
        self.created(req, video)
        return Reply(200, self.video_resource(video_id))

    def video_resource(self, video_id: str, parts: set[str] | None = None) -> dict[str, Any]:
        v = self.videos[video_id]
        out: dict[str, Any] = {"kind": "youtube#video", "etag": "etag", "id": video_id}
        parts = parts or {"snippet", "status"}
        if "snippet" in parts:
            out["snippet"] = v["snippet"]
        if "status" in parts:
            out["status"] = v["status"]
        if "processingDetails" in parts:
            proc = v["processing"]
            if proc["polls_left"] > 0:
                proc["polls_left"] -= 1
                out["processingDetails"] = {
                    "processingStatus": "processing",
                    "processingProgress": {"partsTotal": 10, "partsProcessed": 3},
                }
            elif proc["failure"]:
                v["status"]["uploadStatus"] = "failed"
                v["status"]["failureReason"] = "codec"
                out["status"] = v["status"]
                out["processingDetails"] = {
                    "processingStatus": "failed",
                    "processingFailureReason": proc["failure"],
                }
            else:
                v["status"]["uploadStatus"] = "processed"
                out["processingDetails"] = {"processingStatus": "succeeded"}
        if "statistics" in parts:
            m = self.metrics.get(video_id, {"views": 0, "likes": 0, "comments": 0})
            out["statistics"] = {
                "viewCount": str(m["views"]),
                "likeCount": str(m["likes"]),
                "favoriteCount": "0",
                "commentCount": str(m["comments"]),
            }
        return out

    def list_videos(self, req: FakeRequest) -> Reply:
        parts = set(req.query.get("part", "").split(","))
        ids = [i for i in req.query.get("id", "").split(",") if i in self.videos]
        items = [self.video_resource(i, parts) for i in ids]
        return Reply(
            200,
            {
                "kind": "youtube#videoListResponse",
                "items": items,
                "pageInfo": {"totalResults": len(items), "resultsPerPage": len(items)},
            },
        )

    def comment_thread(self, req: FakeRequest) -> Reply:
        if req.query.get("part") != "snippet":
            return self.error_reply("bad", message="part=snippet is required")
        snippet = (req.json or {}).get("snippet") or {}
        video_id = snippet.get("videoId")
        text = ((snippet.get("topLevelComment") or {}).get("snippet") or {}).get("textOriginal")
        if snippet.get("channelId") != self.account.external_id:
            return self.error_reply("bad", message="Required parameter: snippet.channelId")
        if video_id not in self.videos or not text:
            return self.error_reply("bad", message="The comment thread could not be created")
        thread = {
            "kind": "youtube#commentThread",
            "id": f"Ug{self.next_id(10)}",
            "snippet": {
                "channelId": self.account.external_id,
                "videoId": video_id,
                "topLevelComment": {
                    "kind": "youtube#comment",
                    "id": f"Ug{self.next_id(10)}",
                    "snippet": {"textOriginal": text, "textDisplay": text},
                },
            },
        }
        self.comments.append(thread)
        return Reply(200, thread)

    def channels(self, req: FakeRequest) -> Reply:
        if req.query.get("mine") != "true":
            return self.error_reply("bad", message="mine=true is required")
        parts = set(req.query.get("part", "").split(","))
        a = self.account
        channel: dict[str, Any] = {"kind": "youtube#channel", "id": a.external_id}
        if "snippet" in parts:
            channel["snippet"] = {
                "title": a.display_name,
                "customUrl": a.username,
                "thumbnails": {"default": {"url": a.picture_url, "width": 88, "height": 88}},
            }
        if "statistics" in parts:
            channel["statistics"] = {
                "subscriberCount": str(a.followers),
                "videoCount": str(len(self.videos)),
                "viewCount": "0",
            }
        if "contentDetails" in parts:
            channel["contentDetails"] = {
                "relatedPlaylists": {"uploads": "UU" + a.external_id[2:], "likes": ""}
            }
        return Reply(200, {"kind": "youtube#channelListResponse", "items": [channel]})

    def playlist_items(self, req: FakeRequest) -> Reply:
        if req.query.get("playlistId") != "UU" + self.account.external_id[2:]:
            return self.error_reply(
                "not_found",
                message="The playlist identified with the request's playlistId parameter cannot be found.",
            )
        limit = int(req.query.get("maxResults", 5))
        items = [
            {
                "kind": "youtube#playlistItem",
                "id": f"UExp{v['id']}",
                "snippet": {
                    "publishedAt": v["snippet"]["publishedAt"],
                    "title": v["snippet"]["title"],
                    "description": v["snippet"]["description"],
                    "resourceId": {"kind": "youtube#video", "videoId": v["id"]},
                },
            }
            for v in self.posts[:limit]
        ]
        return Reply(200, {"kind": "youtube#playlistItemListResponse", "items": items})


# ===================================================================================
# LinkedIn


class LinkedInFake(FakePlatform):
    platform = "linkedin"
    permanent_error_message = "ERROR :: /commentary :: length of commentary exceeds the maximum allowed"
    # Posts API: creating needs w_member_social; the author FINDER needs r_member_social
    # (approved partners only); member post analytics r_member_postAnalytics.
    # An organization page (Community Management API): creating as it needs w_organization_social
    # and an approved page role, reading its posts r_organization_social, its share statistics
    # and the member's page roles rw_organization_admin (ADMINISTRATOR).
    route_scopes = {
        "images_action": ("w_member_social", "w_organization_social"),
        "videos_action": ("w_member_social", "w_organization_social"),
        "create_post": ("w_member_social", "w_organization_social"),
        "comment": ("w_member_social", "w_organization_social"),
        "find_posts": ("r_member_social", "r_organization_social"),
        "analytics": ("r_member_postAnalytics",),
        "organization_acls": ("rw_organization_admin", "r_organization_admin"),
        "share_statistics": ("rw_organization_admin",),
    }
    #: the page roles that may post as the organization (Posts API: w_organization_social)
    POSTING_ROLES = frozenset({"ADMINISTRATOR", "DIRECT_SPONSORED_CONTENT_POSTER", "CONTENT_ADMINISTRATOR"})

    def __init__(self) -> None:
        super().__init__()
        self.person_id = "AbC123dEf"
        self.deprecated_versions: set[str] = set()
        self.account.external_id = f"urn:li:person:{self.person_id}"
        self.account.username = "test@postforge.dev"
        self.account.picture_url = "https://media.licdn.com/dms/image/profile.jpg"
        self.assets: dict[str, dict[str, Any]] = {}
        self.comments: list[dict[str, Any]] = []
        self.omit_restli_id = False
        #: organization pages: id -> {"localizedName", "vanityName", "followers"}
        self.organizations: dict[str, dict[str, Any]] = {}
        #: the member's page roles, as organizationAcls lists them
        self.acls: list[dict[str, Any]] = []

    # ---- organization pages ----------------------------------------------------------------

    def add_organization(
        self,
        org_id: str,
        name: str,
        *,
        role: str = "ADMINISTRATOR",
        state: str = "APPROVED",
        followers: int = 0,
    ) -> str:
        """A page; the member holds ``role`` on it (``""``: no role). Returns its URN."""
        urn = f"urn:li:organization:{org_id}"
        self.organizations[org_id] = {
            "localizedName": name,
            "vanityName": re.sub(r"\W+", "-", name.lower()).strip("-"),
            "followers": followers,
        }
        if role:
            self.acls.append(
                {
                    "roleAssignee": f"urn:li:person:{self.person_id}",
                    "role": role,
                    "state": state,
                    "organization": urn,
                }
            )
        return urn

    def set_role(self, org_urn: str, role: str, state: str = "APPROVED") -> None:
        """The member's role on a page changes (``""``: the admin removed them)."""
        self.acls = [a for a in self.acls if a["organization"] != org_urn]
        if role:
            self.acls.append(
                {
                    "roleAssignee": f"urn:li:person:{self.person_id}",
                    "role": role,
                    "state": state,
                    "organization": org_urn,
                }
            )

    def may_act_as(self, req: FakeRequest, author: str) -> Reply | None:
        """None when the token's member may act as ``author``; else LinkedIn's refusal. A member
        acts as themselves with w_member_social; as a page with w_organization_social and an
        approved posting role on it."""
        person = f"urn:li:person:{self.person_id}"
        if author == person or (
            author == self.account.external_id and not author.startswith("urn:li:organization:")
        ):
            if req.scopes is not None and "w_member_social" not in req.scopes:
                return self.error_reply("scope_missing")
            return None
        if (
            not author.startswith("urn:li:organization:")
            or author.rsplit(":", 1)[1] not in self.organizations
        ):
            return self.error_reply("bad", message=f"ERROR :: /author :: {author} is not a valid author")
        if req.scopes is not None and "w_organization_social" not in req.scopes:
            return self.error_reply("scope_missing")
        if not any(
            a["organization"] == author and a["state"] == "APPROVED" and a["role"] in self.POSTING_ROLES
            for a in self.acls
        ):
            return self.li(
                403,
                f"Not enough permissions to access: partnerApiPostsExternal.CREATE: member {person} has no "
                f"approved ADMINISTRATOR, CONTENT_ADMINISTRATOR or DIRECT_SPONSORED_CONTENT_POSTER role on {author}",
                "ACCESS_DENIED",
                100,
            )
        return None

    def organization_acls(self, req: FakeRequest) -> Reply:
        q = req.query
        if q.get("q") != "roleAssignee":
            return self.error_reply("bad", message="Invalid finder")
        rows = [
            a
            for a in self.acls
            if (not q.get("role") or a["role"] == q["role"])
            and (not q.get("state") or a["state"] == q["state"])
        ]
        start, count = int(q.get("start", 0)), int(q.get("count", 10))
        return Reply(
            200,
            {
                "elements": rows[start : start + count],
                "paging": {"start": start, "count": count, "total": len(rows)},
            },
        )

    def organization(self, req: FakeRequest, org_id: str) -> Reply:
        org = self.organizations.get(org_id)
        if org is None:
            return self.error_reply("not_found", message=f"Organization {org_id} not found")
        return Reply(
            200,
            {
                "id": int(org_id),
                "localizedName": org["localizedName"],
                "vanityName": org["vanityName"],
                "$URN": f"urn:li:organization:{org_id}",
            },
        )

    def network_size(self, req: FakeRequest, urn: str) -> Reply:
        org = self.organizations.get(urn.rsplit(":", 1)[-1])
        if org is None or req.query.get("edgeType") != "COMPANY_FOLLOWED_BY_MEMBER":
            return self.error_reply(
                "bad", message="edgeType=COMPANY_FOLLOWED_BY_MEMBER and an organization URN"
            )
        return Reply(200, {"firstDegreeSize": org["followers"]})

    def share_statistics(self, req: FakeRequest) -> Reply:
        """organizationalEntityShareStatistics for an organization's posts (lifetime totals)."""
        q = req.query
        org = q.get("organizationalEntity", "")
        if q.get("q") != "organizationalEntity" or org.rsplit(":", 1)[-1] not in self.organizations:
            return self.error_reply(
                "bad", message="q=organizationalEntity with an organization URN is required"
            )
        if not any(
            a["organization"] == org and a["state"] == "APPROVED" and a["role"] == "ADMINISTRATOR"
            for a in self.acls
        ):
            return self.li(
                403,
                f"Not enough permissions to access: organizationalEntityShareStatistics for {org}",
                "ACCESS_DENIED",
                100,
            )
        listed = q.get("shares") or q.get("ugcPosts") or ""
        match = re.fullmatch(r"List\((.*)\)", listed)
        if not match:
            return self.error_reply("bad", message="shares=List(...) or ugcPosts=List(...) is required")
        rows = []
        for urn in [unquote(u) for u in match[1].split(",") if u]:
            post = next((p for p in self.posts if p["id"] == urn and p.get("author") == org), None)
            if post is None:
                continue
            m = self.metrics.get(urn, {"views": 0, "likes": 0, "comments": 0, "shares": 0})
            rows.append(
                {
                    "organizationalEntity": org,
                    "share" if urn.startswith("urn:li:share:") else "ugcPost": urn,
                    "totalShareStatistics": {
                        "impressionCount": m["views"],
                        "uniqueImpressionsCount": m.get("reach", m["views"]),
                        "clickCount": m.get("clicks", 0),
                        "likeCount": m["likes"],
                        "commentCount": m["comments"],
                        "shareCount": m["shares"],
                        "engagement": 0.0,
                    },
                }
            )
        return Reply(200, {"elements": rows, "paging": {"start": 0, "count": 10, "links": []}})

    def routes_setup(self) -> None:
        self.route("GET", r"/rest/organizationAcls", self.organization_acls)
        self.route("GET", r"/rest/organizations/(\d+)", self.organization)
        self.route("GET", r"/rest/networkSizes/([^/]+)", self.network_size)
        self.route("GET", r"/rest/organizationalEntityShareStatistics", self.share_statistics)
        self.route("POST", r"/rest/images", self.images_action)
        self.route("POST", r"/rest/videos", self.videos_action)
        self.route("PUT", r"/dms-uploads/([\w.-]+)", self.upload, auth=True)
        self.route("GET", r"/rest/(images|videos)/([^/]+)", self.get_asset)
        self.route("POST", r"/rest/posts", self.create_post)
        self.route("GET", r"/rest/posts", self.find_posts)
        self.route("POST", r"/rest/socialActions/([^/]+)/comments", self.comment)
        self.route("GET", r"/rest/memberCreatorPostAnalytics", self.analytics)
        self.route("GET", r"/rest/memberFollowersCount", self.followers_count)
        self.route("GET", r"/v2/userinfo", self.userinfo)

    @staticmethod
    def li(
        status: int,
        message: str,
        code: str | None = None,
        service: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        body: dict[str, Any] = {"status": status, "message": message}
        if code:
            body["code"] = code
        if service:
            body["serviceErrorCode"] = service
        return Reply(status, body, headers or {})

    def error_reply(self, kind: str, **options: Any) -> Reply:
        if kind == "rate_limit":
            return self.li(
                429,
                "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
                headers=retry_after_headers(options),
            )
        if kind == "server_error":
            return self.li(500, "Internal Server Error")
        if kind == "token_expired":
            return self.li(401, "The token used in the request has expired", "EXPIRED_ACCESS_TOKEN", 65601)
        if kind == "token_invalid":
            return self.li(401, "Invalid access token", "INVALID_ACCESS_TOKEN", 65600)
        if kind == "bad_request":
            return self.li(
                422, options.get("message", self.permanent_error_message), "UNPROCESSABLE_ENTITY", 100
            )
        if kind == "version":
            return self.li(426, "Requested version is not active", "NONEXISTENT_VERSION")
        if kind == "scope_missing":
            return self.li(
                403,
                "Not enough permissions to access: partnerApiPostsExternal.FINDER-author.20240101",
                "ACCESS_DENIED",
                100,
            )
        return self.li(
            404 if kind == "not_found" else 400,
            options.get("message", "Not found"),
            "NOT_FOUND" if kind == "not_found" else "BAD_REQUEST",
        )

    def dispatch(self, req: FakeRequest) -> Reply | object:
        if req.path.startswith("/rest/") and (
            not re.fullmatch(r"\d{6}", req.header("linkedin-version"))
            or req.header("x-restli-protocol-version") != "2.0.0"
        ):
            with self._lock:
                self.requests.append(req)
            return self.error_reply("version")
        reply = super().dispatch(req)
        # LinkedIn announces a version's sunset with Deprecation/Sunset headers on its answers
        if isinstance(reply, Reply) and req.header("linkedin-version") in self.deprecated_versions:
            reply.headers = {
                **reply.headers,
                "Deprecation": "version",
                "Sunset": "Sun, 01 Nov 2027 00:00:00 GMT",
            }
        return reply

    def images_action(self, req: FakeRequest) -> Reply:
        owner = ((req.json or {}).get("initializeUploadRequest") or {}).get("owner")
        if req.query.get("action") != "initializeUpload" or owner != self.account.external_id:
            return self.error_reply("bad", message="initializeUploadRequest.owner must be the author")
        refused = self.may_act_as(req, owner)
        if refused is not None:
            return refused
        urn = f"urn:li:image:C4E10AQ{self.next_id(8)}"
        self.assets[urn] = {
            "id": urn,
            "status": "WAITING_UPLOAD",
            "polls_left": self.processing_polls,
            "bytes": b"",
        }
        return Reply(
            200,
            {
                "value": {
                    "uploadUrlExpiresAt": int(time.time() * 1000) + 3600_000,
                    "uploadUrl": f"{self.url}/dms-uploads/{urn.rsplit(':', 1)[1]}",
                    "image": urn,
                }
            },
        )

    def videos_action(self, req: FakeRequest) -> Reply:
        action = req.query.get("action")
        body = req.json or {}
        if action == "initializeUpload":
            init = body.get("initializeUploadRequest") or {}
            if init.get("owner") != self.account.external_id:
                return self.error_reply("bad", message="owner must be the author")
            refused = self.may_act_as(req, init["owner"])
            if refused is not None:
                return refused
            size = int(init.get("fileSizeBytes") or 0)
            urn = f"urn:li:video:C5F10AQ{self.next_id(8)}"
            part = 4 * 1024 * 1024
            instructions = [
                {
                    "uploadUrl": f"{self.url}/dms-uploads/{urn.rsplit(':', 1)[1]}.part{i}",
                    "firstByte": start,
                    "lastByte": min(start + part, size) - 1,
                }
                for i, start in enumerate(range(0, size, part))
            ]
            self.assets[urn] = {
                "id": urn,
                "status": "WAITING_UPLOAD",
                "polls_left": self.processing_polls,
                "size": size,
                "parts": {},
                "instructions": instructions,
            }
            return Reply(
                200,
                {
                    "value": {
                        "uploadUrlsExpireAt": int(time.time() * 1000) + 3600_000,
                        "video": urn,
                        "uploadInstructions": instructions,
                        "uploadToken": "",
                    }
                },
            )
        if action == "finalizeUpload":
            fin = body.get("finalizeUploadRequest") or {}
            asset = self.assets.get(fin.get("video", ""))
            if not asset or fin.get("uploadedPartIds") != [
                asset["parts"].get(i) for i in range(len(asset["instructions"]))
            ]:
                return self.error_reply("bad", message="uploadedPartIds do not match the uploaded parts")
            asset["status"] = "PROCESSING"
            asset["failure"] = self.take_processing_failure()
            return Reply(200, None)
        return self.error_reply("bad", message="unknown action")

    def upload(self, req: FakeRequest, name: str) -> Reply:
        base, _, part = name.partition(".part")
        asset = next((a for urn, a in self.assets.items() if urn.endswith(":" + base)), None)
        if asset is None:
            return self.error_reply("not_found")
        if part:
            index = int(part)
            inst = asset["instructions"][index]
            if len(req.body) != inst["lastByte"] - inst["firstByte"] + 1:
                return self.error_reply("bad", message="part size mismatch")
            etag = f"/ambry-video/signedId/{self.next_id(6)}"
            asset["parts"][index] = etag
            return Reply(200, None, {"ETag": f'"{etag}"'})
        asset.update(bytes=req.body, status="PROCESSING", failure=self.take_processing_failure())
        return Reply(201, None)

    def get_asset(self, req: FakeRequest, collection: str, urn: str) -> Reply:
        asset = self.assets.get(urn)
        if asset is None:
            return self.error_reply("not_found")
        if asset["status"] == "PROCESSING":
            if asset["polls_left"] > 0:
                asset["polls_left"] -= 1
            else:
                asset["status"] = "PROCESSING_FAILED" if asset.get("failure") else "AVAILABLE"
        body = {"id": urn, "status": asset["status"], "owner": self.account.external_id}
        if asset["status"] == "PROCESSING_FAILED":
            body["processingFailureReason"] = asset["failure"]
        return Reply(200, body)

    def create_post(self, req: FakeRequest) -> Reply:
        body = req.json or {}
        required = {"author", "commentary", "visibility", "distribution", "lifecycleState"}
        if (
            not required <= body.keys()
            or body["author"] != self.account.external_id
            or body["lifecycleState"] != "PUBLISHED"
        ):
            return self.error_reply(
                "bad", message=f"ERROR :: missing or invalid fields {sorted(required - body.keys())}"
            )
        refused = self.may_act_as(req, body["author"])
        if refused is not None:
            return refused
        content = body.get("content") or {}
        ids = (
            [content["media"]["id"]]
            if "media" in content
            else [i["id"] for i in (content.get("multiImage") or {}).get("images", [])]
        )
        for urn in ids:
            if (self.assets.get(urn) or {}).get("status") != "AVAILABLE":
                return self.error_reply(
                    "bad_request", message=f"ERROR :: /content/media/id :: {urn} is not AVAILABLE"
                )
        urn = f"urn:li:share:{self.next_id(19)}"
        post = {
            "id": urn,
            **body,
            "createdAt": int(time.time() * 1000),
            "lastModifiedAt": int(time.time() * 1000),
        }
        self.created(req, post)
        if self.omit_restli_id:  # a proxy on the way stripped the header: the post exists unnamed
            return Reply(201, None)
        return Reply(201, None, {"x-restli-id": urn, "Location": f"/rest/posts/{quote(urn, safe='')}"})

    def find_posts(self, req: FakeRequest) -> Reply:
        q = req.query
        if (
            q.get("q") != "author"
            or q.get("author") != self.account.external_id
            or req.header("x-restli-method") != "FINDER"
        ):
            return self.error_reply(
                "bad", message="q=author with the author URN and X-RestLi-Method: FINDER are required"
            )
        author = q["author"]
        if (
            req.scopes is not None
            and ("r_organization_social" if author.startswith("urn:li:organization:") else "r_member_social")
            not in req.scopes
        ):
            return self.error_reply("scope_missing")
        count = int(q.get("count", 10))
        mine = [p for p in self.posts if p.get("author") == author]
        return Reply(200, {"elements": mine[:count], "paging": {"start": 0, "count": count, "links": []}})

    def comment(self, req: FakeRequest, urn: str) -> Reply:
        body = req.json or {}
        if (
            not any(p["id"] == urn for p in self.posts)
            or body.get("object") != urn
            or body.get("actor") != self.account.external_id
        ):
            return self.error_reply("bad", message="actor and object must match the post")
        refused = self.may_act_as(req, body["actor"])
        if refused is not None:
            return refused
        comment = {
            "id": self.next_id(19),
            "object": urn,
            "actor": body["actor"],
            "message": body.get("message"),
        }
        self.comments.append(comment)
        return Reply(
            201,
            {**comment, "$URN": f"urn:li:comment:({urn},{comment['id']})"},
            {"x-restli-id": comment["id"]},
        )

    def analytics(self, req: FakeRequest) -> Reply:
        q = req.query
        match = re.fullmatch(r"\((share|ugc):(urn:li:(?:share|ugcPost):\d+)\)", q.get("entity", ""))
        if q.get("q") != "entity" or not match or q.get("aggregation") != "TOTAL":
            return self.error_reply(
                "bad", message="q=entity, entity=(share:urn) and aggregation=TOTAL are required"
            )
        m = self.metrics.get(match[2], {"views": 0, "likes": 0, "comments": 0, "shares": 0})
        key = {"IMPRESSION": "views", "REACTION": "likes", "COMMENT": "comments", "RESHARE": "shares"}.get(
            q.get("queryType", "")
        )
        if key is None:
            return self.error_reply("bad", message="queryType is invalid")
        return Reply(
            200,
            {
                "elements": [
                    {
                        "count": m[key],
                        "metricType": {
                            "com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1": q[
                                "queryType"
                            ]
                        },
                    }
                ],
                "paging": {},
            },
        )

    def followers_count(self, req: FakeRequest) -> Reply:
        return Reply(200, {"elements": [{"memberFollowersCount": self.account.followers}], "paging": {}})

    def userinfo(self, req: FakeRequest) -> Reply:
        a = self.account
        return Reply(
            200,
            {
                "sub": self.person_id,
                "name": a.display_name,
                "given_name": "Postforge",
                "family_name": "Test",
                "picture": a.picture_url,
                "email": a.username,
                "email_verified": True,
                "locale": {"country": "US", "language": "en"},
            },
        )


# ===================================================================================
# X


class XFake(FakePlatform):
    platform = "x"
    permanent_error_message = "You are not allowed to create a Tweet with duplicate content."
    # Each endpoint's reference lists the OAuth 2.0 scopes it needs, all of them
    # (https://docs.x.com/x-api/posts/create-post: tweet.read tweet.write users.read;
    # .../media/upload: media.write; .../users/me, .../posts/get-post-by-id: tweet.read users.read)
    route_scopes = {
        "create_tweet": ("tweet.read", "tweet.write", "users.read"),
        "initialize": ("media.write",),
        "append": ("media.write",),
        "finalize": ("media.write",),
        "status": ("media.write",),
        "metadata": ("media.write",),
        "me": ("tweet.read", "users.read"),
        "user_tweets": ("tweet.read", "users.read"),
        "get_tweet": ("tweet.read", "users.read"),
    }
    needs_every_scope = True
    # POST /2/tweets: 100 requests per 15 minutes per user (https://docs.x.com/x-api/fundamentals/rate-limits)
    rate_limits = {"create_tweet": (100, 900.0)}

    def __init__(self) -> None:
        super().__init__()
        #: what X asks the client to wait before its next STATUS read
        self.check_after_secs = 1
        self.account.external_id = "1600000000000000001"
        self.account.picture_url = "https://pbs.twimg.com/profile_images/1/normal.jpg"
        self.media: dict[str, dict[str, Any]] = {}
        self.replies: list[dict[str, Any]] = []

    def routes_setup(self) -> None:
        self.route("POST", r"/2/media/upload/initialize", self.initialize)
        self.route("POST", r"/2/media/upload/(\d+)/append", self.append)
        self.route("POST", r"/2/media/upload/(\d+)/finalize", self.finalize)
        self.route("GET", r"/2/media/upload", self.status)
        self.route("POST", r"/2/media/metadata", self.metadata)
        self.route("POST", r"/2/tweets", self.create_tweet)
        self.route("GET", r"/2/users/me", self.me)
        self.route("GET", r"/2/users/(\d+)/tweets", self.user_tweets)
        self.route("GET", r"/2/tweets/(\d+)", self.get_tweet)

    @staticmethod
    def problem(
        status: int, title: str, detail: str, type_: str, headers: dict[str, str] | None = None
    ) -> Reply:
        return Reply(
            status, {"title": title, "detail": detail, "type": type_, "status": status}, headers or {}
        )

    def error_reply(self, kind: str, **options: Any) -> Reply:
        if kind == "rate_limit":
            reset = int(self.clock()) + int(options.get("retry_after", 30))
            headers = {
                "x-rate-limit-limit": "100",
                "x-rate-limit-remaining": "0",
                "x-rate-limit-reset": str(reset),
            }
            if options.get("app_wide"):  # the app's 24-hour cap, shared by every account
                headers.update(
                    {
                        "x-app-limit-24hour-limit": "10000",
                        "x-app-limit-24hour-remaining": "0",
                        "x-app-limit-24hour-reset": str(reset),
                    }
                )
            return self.problem(429, "Too Many Requests", "Too Many Requests", "about:blank", headers)
        if kind == "server_error":
            return self.problem(503, "Service Unavailable", "Service Unavailable", "about:blank")
        if kind in {"token_expired", "token_invalid"}:
            return self.problem(401, "Unauthorized", "Unauthorized", "about:blank")
        if kind == "scope_missing":
            # A call outside the token's scopes: a bare 403 problem that names nothing
            # (application/problem+json {"title": "Forbidden", "type": "about:blank", "status": 403,
            # "detail": "Forbidden"}), unlike a refused request, whose detail says why.
            return self.problem(403, "Forbidden", "Forbidden", "about:blank")
        if kind == "bad_request":
            return self.problem(
                403, "Forbidden", options.get("message", self.permanent_error_message), "about:blank"
            )
        message = options.get("message", "Not Found")
        return Reply(
            400,
            {
                "errors": [{"message": message}],
                "title": "Invalid Request",
                "detail": "One or more parameters to your request was invalid.",
                "type": "https://api.twitter.com/2/problems/invalid-request",
            },
        )

    def initialize(self, req: FakeRequest) -> Reply:
        body = req.json or {}
        if body.get("media_category") not in {"tweet_image", "tweet_video", "tweet_gif"} or not body.get(
            "total_bytes"
        ):
            return self.error_reply("bad", message="media_category and total_bytes are required")
        media_id = self.next_id(19)
        self.media[media_id] = {
            **body,
            "segments": {},
            "state": "initialized",
            "polls_left": self.processing_polls,
        }
        return Reply(
            200, {"data": {"id": media_id, "media_key": f"3_{media_id}", "expires_after_secs": 86400}}
        )

    def append(self, req: FakeRequest, media_id: str) -> Reply:
        m = self.media.get(media_id)
        if m is None or "media" not in req.files or not req.form.get("segment_index", "").isdigit():
            return self.error_reply("bad", message="media and segment_index are required")
        m["segments"][int(req.form["segment_index"])] = req.files["media"][1]
        return Reply(200, {"data": {"expires_at": int(time.time()) + 86400}})

    def finalize(self, req: FakeRequest, media_id: str) -> Reply:
        m = self.media.get(media_id)
        if m is None:
            return self.error_reply("bad", message="unknown media id")
        blob = b"".join(m["segments"][i] for i in sorted(m["segments"]))
        if len(blob) != m["total_bytes"] or sorted(m["segments"]) != list(range(len(m["segments"]))):
            return self.error_reply("bad", message="Segments do not add up to total_bytes")
        m["bytes"] = blob
        data: dict[str, Any] = {
            "id": media_id,
            "media_key": f"3_{media_id}",
            "size": len(blob),
            "expires_after_secs": 86400,
        }
        if m["media_category"] == "tweet_image":
            m["state"] = "succeeded"
        else:
            m["state"] = "pending"
            m["failure"] = self.take_processing_failure()
            data["processing_info"] = {"state": "pending", "check_after_secs": self.check_after_secs}
        return Reply(200, {"data": data})

    def status(self, req: FakeRequest) -> Reply:
        m = self.media.get(req.query.get("media_id", ""))
        if req.query.get("command") != "STATUS" or m is None:
            return self.error_reply("bad", message="command=STATUS and media_id are required")
        if m["state"] in {"pending", "in_progress"}:
            if m["polls_left"] > 0:
                m["polls_left"] -= 1
                m["state"] = "in_progress"
            else:
                m["state"] = "failed" if m.get("failure") else "succeeded"
        info: dict[str, Any] = {"state": m["state"]}
        if m["state"] == "in_progress":
            info.update(check_after_secs=self.check_after_secs, progress_percent=50)
        if m["state"] == "failed":
            info["error"] = {"code": 1, "name": "InvalidMedia", "message": m["failure"]}
        return Reply(
            200,
            {
                "data": {
                    "id": req.query["media_id"],
                    "media_key": f"3_{req.query['media_id']}",
                    "processing_info": info,
                }
            },
        )

    def metadata(self, req: FakeRequest) -> Reply:
        body = req.json or {}
        m = self.media.get(body.get("id", ""))
        text = ((body.get("metadata") or {}).get("alt_text") or {}).get("text")
        if m is None or not text:
            return self.error_reply("bad", message="id and metadata.alt_text.text are required")
        m["alt_text"] = text
        return Reply(200, {"data": {"id": body["id"], "associated_metadata": {"alt_text": {"text": text}}}})

    def create_tweet(self, req: FakeRequest) -> Reply:
        body = req.json or {}
        media_ids = (body.get("media") or {}).get("media_ids") or []
        for mid in media_ids:
            if (self.media.get(mid) or {}).get("state") != "succeeded":
                return self.error_reply("bad", message=f"Your media IDs are invalid: {mid}")
        if any(p["text"] == body.get("text") for p in self.posts):
            return self.error_reply("bad_request")
        tweet_id = self.next_id(19)
        tweet = {"id": tweet_id, "text": body.get("text", ""), "edit_history_tweet_ids": [tweet_id]}
        stored = {**tweet, "body": body, "created_at": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())}
        if "reply" in body:
            self.replies.append(stored)
        else:
            self.created(req, stored)
        return Reply(201, {"data": tweet})

    def me(self, req: FakeRequest) -> Reply:
        a = self.account
        data = {"id": a.external_id, "name": a.display_name, "username": a.username}
        fields = req.query.get("user.fields", "")
        if "profile_image_url" in fields:
            data["profile_image_url"] = a.picture_url
        if "public_metrics" in fields:
            data["public_metrics"] = {
                "followers_count": a.followers,
                "following_count": 10,
                "tweet_count": len(self.posts),
                "listed_count": 0,
            }
        return Reply(200, {"data": data})

    def _as_timeline(self, post: dict[str, Any]) -> dict[str, Any]:
        """Links come back as t.co; attached media adds its own t.co link."""
        text, urls = post["text"], []
        for n, url in enumerate(re.findall(r"https?://\S+", post["text"])):
            short = f"https://t.co/Ab{n}cD{post['id'][-4:]}"
            text = text.replace(url, short, 1)
            urls.append(
                {
                    "start": 0,
                    "end": 0,
                    "url": short,
                    "expanded_url": url,
                    "display_url": url.split("//")[1][:20],
                }
            )
        media_ids = (post["body"].get("media") or {}).get("media_ids") or []
        if media_ids:
            short = f"https://t.co/Md{post['id'][-4:]}"
            text = f"{text} {short}"
            urls.append(
                {
                    "start": 0,
                    "end": 0,
                    "url": short,
                    "expanded_url": f"https://x.com/{self.account.username}/status/{post['id']}/photo/1",
                    "media_key": f"3_{media_ids[0]}",
                }
            )
        row = {
            "id": post["id"],
            "text": text,
            "created_at": post["created_at"],
            "edit_history_tweet_ids": [post["id"]],
        }
        if urls:
            row["entities"] = {"urls": urls}
        return row

    def user_tweets(self, req: FakeRequest, user_id: str) -> Reply:
        if user_id != self.account.external_id:
            return self.error_reply("bad", message="Could not find user")
        limit = int(req.query.get("max_results", 10))
        rows = [self._as_timeline(p) for p in self.posts[:limit]]
        return Reply(
            200,
            {"data": rows, "meta": {"result_count": len(rows)}} if rows else {"meta": {"result_count": 0}},
        )

    def get_tweet(self, req: FakeRequest, tweet_id: str) -> Reply:
        post = next((p for p in self.posts if p["id"] == tweet_id), None)
        if post is None:
            return Reply(
                200,
                {
                    "errors": [
                        {
                            "value": tweet_id,
                            "detail": f"Could not find tweet with id: [{tweet_id}].",
                            "title": "Not Found Error",
                            "resource_type": "tweet",
                            "parameter": "id",
                            "resource_id": tweet_id,
                            "type": "https://api.twitter.com/2/problems/resource-not-found",
                        }
                    ]
                },
            )
        m = self.metrics.get(tweet_id, {"views": 0, "likes": 0, "comments": 0, "shares": 0})
        data = {"id": tweet_id, "text": post["text"], "edit_history_tweet_ids": [tweet_id]}
        if "public_metrics" in req.query.get("tweet.fields", ""):
            data["public_metrics"] = {
                "retweet_count": m["shares"],
                "reply_count": m["comments"],
                "like_count": m["likes"],
                "quote_count": 0,
                "bookmark_count": 0,
                "impression_count": m["views"],
            }
        return Reply(200, {"data": data})


# ===================================================================================
# Pinterest


class PinterestFake(FakePlatform):
    platform = "pinterest"
    permanent_error_message = "Your application consumer type is not supported."
    # https://developers.pinterest.com/docs/api/v5/ (each endpoint's pinterest_oauth2 scopes)
    route_scopes = {
        "create_pin": ("pins:write",),
        "register_media": ("pins:write",),
        "get_media": ("pins:read",),
        "board_pins": ("boards:read",),
        "pin_analytics": ("pins:read",),
        "user_account": ("user_accounts:read",),
    }

    def __init__(self) -> None:
        super().__init__()
        self.account.external_id = "549755885175"
        self.account.picture_url = "https://i.pinimg.com/75x75_RS/profile.jpg"
        self.boards = {"1022106146619699000"}
        self.media: dict[str, dict[str, Any]] = {}

    def routes_setup(self) -> None:
        self.route("POST", r"/v5/pins", self.create_pin)
        self.route("POST", r"/v5/media", self.register_media)
        self.route("POST", r"/pinterest-media-upload/", self.storage_upload, auth=False)
        self.route("GET", r"/v5/media/(\d+)", self.get_media)
        self.route("GET", r"/v5/boards/(\d+)/pins", self.board_pins)
        self.route("GET", r"/v5/pins/(\d+)/analytics", self.pin_analytics)
        self.route("GET", r"/v5/user_account", self.user_account)

    @staticmethod
    def pin_error(status: int, code: int, message: str, headers: dict[str, str] | None = None) -> Reply:
        return Reply(status, {"code": code, "message": message}, headers or {})

    def error_reply(self, kind: str, **options: Any) -> Reply:
        if kind == "rate_limit":
            return self.pin_error(
                429, 8, "You have exceeded your rate limit. Try again later.", retry_after_headers(options)
            )
        if kind == "server_error":
            return self.pin_error(500, 1, "Something went wrong on our end. Sorry about that.")
        if kind in {"token_expired", "token_invalid"}:
            return self.pin_error(401, 2, "Authentication failed.")
        if kind == "scope_missing":
            # Pinterest answers a call outside the token's scopes with a 401 too, code 3 (the
            # answer quoted in pinterest/api-quickstart#97); an expired token is code 2.
            return self.pin_error(
                401,
                3,
                "Your token does not have sufficient permissions to perform this operation. "
                "Please ensure your token is authorized with the correct set of scopes.",
            )
        if kind == "bad_request":
            return self.pin_error(403, 29, options.get("message", self.permanent_error_message))
        return self.pin_error(
            404 if kind == "not_found" else 400,
            1 if kind != "not_found" else 3,
            options.get("message", "Not found."),
        )

    def create_pin(self, req: FakeRequest) -> Reply:
        body = req.json or {}
        if body.get("board_id") not in self.boards:
            return self.pin_error(404, 3, "Board not found.")
        source = body.get("media_source") or {}
        kind = source.get("source_type")
        if kind == "video_id":
            m = self.media.get(source.get("media_id", ""))
            if not m or m["status"] != "succeeded":
                return self.pin_error(400, 1, "Media not ready.")
            if not source.get("cover_image_url") and "cover_image_key_frame_time" not in source:
                return self.pin_error(400, 1, "Cover image is required for video Pins.")
        elif kind == "image_url":
            if not source.get("url"):
                return self.pin_error(400, 1, "media_source.url is required")
        elif kind == "multiple_image_urls":
            if not 2 <= len(source.get("items") or []) <= 5:
                return self.pin_error(400, 1, "Carousel Pins need 2 to 5 items.")
        else:
            return self.pin_error(400, 1, "Invalid media_source.source_type")
        pin_id = self.next_id(18)
        pin = {
            "id": pin_id,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()),
            "link": body.get("link"),
            "title": body.get("title", ""),
            "description": body.get("description", ""),
            "alt_text": body.get("alt_text"),
            "note": body.get("note"),
            "board_id": body["board_id"],
            "board_owner": {"username": self.account.username},
            "media": {"media_type": "video" if kind == "video_id" else "image"},
            "media_source": source,
        }
        self.created(req, pin)
        return Reply(201, {k: v for k, v in pin.items() if k != "media_source"})

    def register_media(self, req: FakeRequest) -> Reply:
        if (req.json or {}).get("media_type") != "video":
            return self.pin_error(400, 1, "media_type must be video")
        media_id = self.next_id(19)
        params = {
            "x-amz-date": "20261123T120000Z",
            "x-amz-signature": "sig",
            "x-amz-security-token": "tok",
            "x-amz-algorithm": "AWS4-HMAC-SHA256",
            "key": f"uploads/{media_id}",
            "policy": "cG9saWN5",
            "x-amz-credential": "cred",
            "Content-Type": "multipart/form-data",
        }
        self.media[media_id] = {"status": "registered", "params": params, "polls_left": self.processing_polls}
        return Reply(
            201,
            {
                "media_id": media_id,
                "media_type": "video",
                "upload_url": f"{self.url}/pinterest-media-upload/",
                "upload_parameters": params,
            },
        )

    def storage_upload(self, req: FakeRequest) -> Reply:
        if req.header("authorization"):
            return Reply(
                400,
                b"<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>",
            )
        m = next((m for m in self.media.values() if m["params"]["key"] == req.form.get("key")), None)
        if m is None or any(req.form.get(k) != v for k, v in m["params"].items()) or "file" not in req.files:
            return Reply(
                403, b"<Error><Code>AccessDenied</Code><Message>Invalid according to Policy</Message></Error>"
            )
        m.update(status="processing", bytes=req.files["file"][1], failure=self.take_processing_failure())
        return Reply(204, None)

    def get_media(self, req: FakeRequest, media_id: str) -> Reply:
        m = self.media.get(media_id)
        if m is None:
            return self.pin_error(404, 3, "Media not found.")
        if m["status"] == "processing":
            if m["polls_left"] > 0:
                m["polls_left"] -= 1
            else:
                m["status"] = "failed" if m.get("failure") else "succeeded"
        return Reply(200, {"media_id": media_id, "media_type": "video", "status": m["status"]})

    def board_pins(self, req: FakeRequest, board_id: str) -> Reply:
        if board_id not in self.boards:
            return self.pin_error(404, 3, "Board not found.")
        size = int(req.query.get("page_size", 25))
        items = [
            {k: v for k, v in p.items() if k != "media_source"}
            for p in self.posts
            if p["board_id"] == board_id
        ]
        return Reply(200, {"items": items[:size], "bookmark": None})

    def pin_analytics(self, req: FakeRequest, pin_id: str) -> Reply:
        if not all(req.query.get(k) for k in ("start_date", "end_date", "metric_types")):
            return self.pin_error(400, 1, "start_date, end_date and metric_types are required")
        m = self.metrics.get(pin_id, {"views": 0, "likes": 0, "comments": 0, "shares": 0})
        summary = {
            "IMPRESSION": m["views"],
            "TOTAL_REACTIONS": m["likes"],
            "TOTAL_COMMENTS": m["comments"],
            "SAVE": m["shares"],
        }
        wanted = req.query["metric_types"].split(",")
        summary = {k: v for k, v in summary.items() if k in wanted}
        return Reply(
            200,
            {
                "all": {
                    "daily_metrics": [
                        {"date": req.query["end_date"], "data_status": "READY", "metrics": summary}
                    ],
                    "summary_metrics": summary,
                }
            },
        )

    def user_account(self, req: FakeRequest) -> Reply:
        a = self.account
        return Reply(
            200,
            {
                "account_type": "BUSINESS",
                "id": a.external_id,
                "profile_image": a.picture_url,
                "website_url": "https://postforge.dev",
                "username": a.username,
                "business_name": a.display_name,
                "board_count": len(self.boards),
                "pin_count": len(self.posts),
                "follower_count": a.followers,
                "following_count": 0,
                "monthly_views": 0,
            },
        )


FAKES: dict[str, type[FakePlatform]] = {
    cls.platform: cls
    for cls in (
        InstagramFake,
        FacebookFake,
        TikTokFake,
        YouTubeFake,
        LinkedInFake,
        XFake,
        ThreadsFake,
        PinterestFake,
    )
}
