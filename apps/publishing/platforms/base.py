"""Shared pieces of the platform HTTP clients.

Every client talks to one social platform with ``requests`` and follows the publishing
flow recorded in ``platforms.yaml``. This module holds what they share: the request
dataclasses, the error type with its retry hints, the response handling (one error-body
parser per wire family, Retry-After and rate-limit headers), polling, and the registry.

Irreversible calls (the one that makes a post visible) are sent with ``create=True``:
if the connection drops or times out after such a call was sent, the client raises
``OutcomeUnknown`` and the caller must run ``find_published`` before any retry.
"""

from __future__ import annotations

import contextlib
import email.utils
import io
import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, BinaryIO, ClassVar, Literal, Protocol, TypeVar, runtime_checkable
from urllib.parse import urljoin
from zoneinfo import ZoneInfo

import requests

from apps.core.outbound import TooLarge, UnsafeURL, read_capped

T = TypeVar("T")


@dataclass
class MediaItem:
    kind: Literal["image", "video"]
    url: str
    content_type: str
    width: int
    height: int
    seconds: float | None = None
    alt_text: str = ""
    loader: Callable[[], bytes] | None = None
    thumbnail_url: str = ""
    #: made by a generative model (our engines), not uploaded by the client
    generated: bool = False
    #: opens the stored file for reading (videos are sent from it chunk by chunk, never read whole)
    opener: Callable[[], BinaryIO] | None = None
    #: the file's size in bytes, when known without opening it
    size: int | None = None

    def read(self) -> bytes:
        if self.loader is None:
            raise PlatformError(
                "This platform uploads the file itself: the media item has no loader.",
                code="media_bytes_unavailable",
            )
        return self.loader()

    @property
    def readable(self) -> bool:
        return self.opener is not None or self.loader is not None

    @contextlib.contextmanager
    def open(self) -> Iterator[BinaryIO]:
        """The file to send from: the storage file itself when there is one (a client reads
        one chunk at a time), else the loaded bytes."""
        fh = self.opener() if self.opener is not None else io.BytesIO(self.read())
        try:
            yield fh
        finally:
            fh.close()

    def byte_size(self) -> int:
        if self.size:
            return self.size
        with self.open() as fh:
            fh.seek(0, io.SEEK_END)
            self.size = fh.tell()
        return self.size


def read_chunk(fh: BinaryIO, first: int, last: int) -> bytes:
    """Bytes ``first``..``last`` (inclusive) of an open file: one chunk in memory at a time."""
    fh.seek(first)
    return fh.read(last - first + 1)


class ChunkReader:
    """A file-like view of bytes ``first``..``last`` of an open file, for a request body that
    ``requests`` streams in blocks (its length known up front, so no chunked encoding)."""

    def __init__(self, fh: BinaryIO, first: int, last: int, block: int = 1024 * 1024) -> None:
        self._fh, self._left, self._block = fh, last - first + 1, block
        fh.seek(first)

    @property
    def len(self) -> int:
        """The bytes left to read: requests reads the body's length from ``len`` before the
        first read, requests-toolbelt's streamed forms read it as they go."""
        return self._left

    def read(self, n: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        n = self._block if n is None or n < 0 else min(n, self._block)
        data = self._fh.read(min(n, self._left))
        self._left -= len(data)
        return data


@dataclass
class PostRequest:
    caption: str
    media: list[MediaItem] = field(default_factory=list)
    post_type: str = "feed"
    title: str = ""
    first_comment: str = ""
    sounds: list[str] = field(default_factory=list)
    privacy: str = "public"
    reference: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def images(self) -> list[MediaItem]:
        return [m for m in self.media if m.kind == "image"]

    @property
    def videos(self) -> list[MediaItem]:
        return [m for m in self.media if m.kind == "video"]


@dataclass
class PublishResult:
    external_id: str
    url: str
    raw: dict[str, Any] = field(default_factory=dict)
    #: the platform accepted the post and is still processing it (TikTok moderation): the
    #: caller keeps ``state`` and asks ``check_pending(state)`` later; never post it again
    pending: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    #: who can see the post, in the platform's own words, as it reported it (YouTube's
    #: privacyStatus read back, TikTok's privacy_level); empty: not known
    visibility: str = ""


@dataclass
class AccountInfo:
    external_id: str
    username: str
    display_name: str
    picture_url: str
    followers: int


@dataclass
class Metrics:
    views: int = 0
    likes: int = 0
    comments: int = 0
    shares: int = 0
    #: further counters where the platform has them (None: not reported)
    reach: int | None = None
    impressions: int | None = None
    saves: int | None = None
    clicks: int | None = None
    replies: int | None = None
    reposts: int | None = None
    quotes: int | None = None
    watch_time: int | None = None
    #: {our metric name: reason} for each counter the platform did not give (never zero instead)
    unavailable: dict = field(default_factory=dict)


@dataclass
class Quota:
    used: int
    limit: int

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)


class PlatformError(Exception):
    """A call the platform refused or that did not complete.

    ``message`` is the platform's own wording. ``retryable`` is true for 429, 5xx,
    network errors and platform rate-limit codes; ``retry_after`` is in seconds when the
    platform said when to come back; ``token_expired`` asks for a reconnect.
    ``scope_missing``: the grant lacks a permission this call needs (the profile stays
    connected; a reconnect that grants it fixes the feature).
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        code: str | int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        token_expired: bool = False,
        raw: Any = None,
        scope_missing: bool = False,
        resume: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after
        self.token_expired = token_expired
        self.raw = raw
        self.scope_missing = scope_missing
        #: what the next attempt can pick up instead of doing again (LinkedIn's uploaded video
        #: URN after its processing wait ran out); kept on the publication, given back in
        #: ``PostRequest.options["_resume"]``
        self.resume = dict(resume or {})
        #: a rate limit on the operator's whole app (every profile of the platform waits), not
        #: on this account's token alone (``PlatformClient.limit_is_app_wide``)
        self.app_wide = False

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, status_code={self.status_code}, "
            f"code={self.code!r}, retryable={self.retryable}, retry_after={self.retry_after}, "
            f"token_expired={self.token_expired})"
        )


class OutcomeUnknown(PlatformError):
    """The irreversible call was sent but no answer came back (timeout, dropped connection).

    The post may exist. Retrying is allowed only after ``find_published`` found nothing.
    """

    def __init__(self, message: str, **kwargs: Any) -> None:
        kwargs.setdefault("retryable", True)
        kwargs.setdefault("code", "outcome_unknown")
        super().__init__(message, **kwargs)


@runtime_checkable
class ResolvesPostId(Protocol):
    """A client that first knows a post by a publish id and later by its public post id
    (TikTok): metrics are read by the public id."""

    def is_publish_id(self, external_id: str) -> bool: ...

    def resolve_post_id(self, publish_id: str) -> str | None: ...


# --------------------------------------------------------------------------------------
# Error bodies, one parser per wire family. Each returns (message, code, extra).


def _graph_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return "", None, {}
    message = err.get("error_user_msg") or err.get("message") or ""
    return (
        message,
        err.get("code"),
        {
            "type": err.get("type"),
            "error_subcode": err.get("error_subcode"),
            "is_transient": bool(err.get("is_transient")),
            "fbtrace_id": err.get("fbtrace_id"),
        },
    )


def _tiktok_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return "", None, {}
    return err.get("message") or "", err.get("code"), {"log_id": err.get("log_id")}


def _google_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return "", None, {}
    reasons = [e.get("reason") for e in err.get("errors") or [] if isinstance(e, dict)]
    code = reasons[0] if reasons else err.get("status") or err.get("code")
    return err.get("message") or "", code, {"reasons": reasons, "status": err.get("status")}


def _x_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    if not isinstance(body, dict):
        return "", None, {}
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        first = errors[0]
        message = body.get("detail") or first.get("message") or first.get("detail") or ""
        return message, first.get("code") or first.get("type") or body.get("type"), {"errors": errors}
    detail = body.get("detail") or body.get("title")
    if detail:
        return detail, body.get("type") or body.get("title"), {}
    return "", None, {}


def _linkedin_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    if not isinstance(body, dict) or "message" not in body:
        return "", None, {}
    return (
        body["message"],
        body.get("code") or body.get("serviceErrorCode"),
        {"serviceErrorCode": body.get("serviceErrorCode")},
    )


def _pinterest_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    if not isinstance(body, dict) or "message" not in body:
        return "", None, {}
    return body["message"], body.get("code"), {}


def _xrpc_error(body: Any) -> tuple[str, Any, dict[str, Any]]:
    """AT Protocol XRPC errors: ``{"error": "ExpiredToken", "message": "..."}``."""
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return "", None, {}
    return str(body.get("message") or body["error"]), body["error"], {}


ERROR_PARSERS: dict[str, Callable[[Any], tuple[str, Any, dict[str, Any]]]] = {
    "graph": _graph_error,
    "tiktok": _tiktok_error,
    "google": _google_error,
    "x": _x_error,
    "linkedin": _linkedin_error,
    "pinterest": _pinterest_error,
    "xrpc": _xrpc_error,
}


def retry_after_from_headers(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait, from Retry-After, x-rate-limit-reset or Meta's usage headers."""
    now = time.time() if now is None else now
    value = headers.get("Retry-After")
    if value:
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            return max(when.timestamp() - now, 0.0)
    for name in ("x-rate-limit-reset", "x-ratelimit-reset"):
        value = headers.get(name)
        if value and value.strip().isdigit():
            reset = float(value.strip())
            # X sends epoch seconds; some APIs send seconds-to-reset.
            return max(reset - now, 0.0) if reset > 1_000_000_000 else reset
    for name in ("X-Business-Use-Case-Usage", "X-Ad-Account-Usage"):
        value = headers.get(name)
        if not value:
            continue
        try:
            usage = json.loads(value)
        except ValueError:
            continue
        minutes = [
            entry.get("estimated_time_to_regain_access") or 0
            for entries in (usage.values() if isinstance(usage, dict) else [])
            for entry in (entries if isinstance(entries, list) else [entries])
            if isinstance(entry, dict)
        ]
        if minutes and max(minutes) > 0:
            return float(max(minutes)) * 60
    return None


def seconds_until_pacific_midnight(now: datetime | None = None) -> float:
    """Google daily quotas reset at midnight Pacific time."""
    pacific = ZoneInfo("America/Los_Angeles")
    now = (now or datetime.now(UTC)).astimezone(pacific)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight - now).total_seconds()


# --------------------------------------------------------------------------------------


class PlatformClient(ABC):
    """One connected account on one platform.

    Subclasses set ``platform``, ``default_base_url`` and ``error_style`` and implement
    the five operations. ``poll_timeout`` bounds every wait for the platform's media
    processing; the waits between status reads follow ``poll_delays`` (a back-off, the last
    figure repeating) unless ``poll_interval`` fixes one (tests set it to 0). ``clock`` and
    ``sleep`` let a test run the waits on a simulated clock.
    """

    platform: ClassVar[str] = ""
    default_base_url: ClassVar[str] = ""
    error_style: ClassVar[str] = "graph"
    rate_limit_codes: ClassVar[frozenset[Any]] = frozenset()
    token_expired_codes: ClassVar[frozenset[Any]] = frozenset()
    #: codes meaning "the grant lacks a scope" (never an expired token, whatever the status)
    scope_error_codes: ClassVar[frozenset[Any]] = frozenset()
    transient_codes: ClassVar[frozenset[Any]] = frozenset()
    recent_posts_to_scan: ClassVar[int] = 25
    #: seconds between processing-status reads: 2, 5, 10, 20, 30, then 60 (Meta asks for
    #: about once a minute for at most five minutes; the first reads come sooner because
    #: most images are ready within seconds)
    poll_delays: ClassVar[tuple[float, ...]] = (2, 5, 10, 20, 30, 60)
    #: (bytes, seconds): every answer is read under this cap (a host a user names); None: not
    answer_cap: ClassVar[tuple[int, float] | None] = None

    def __init__(
        self,
        *,
        access_token: str,
        account_id: str = "",
        base_url: str | None = None,
        session: requests.Session | None = None,
        timeout: float | tuple[float, float] = (5, 30),
        poll_interval: float | None = None,
        poll_timeout: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.access_token = access_token
        self.account_id = account_id
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.session = session or requests.Session()
        self.timeout = timeout
        self.poll_interval = poll_interval
        self.poll_timeout = poll_timeout
        self._sleep = sleep
        self._clock = clock
        #: seconds the platform asked us to hold off (usage headers, check_after_secs)
        self.hold_off = 0.0

    # ---- the public operations -------------------------------------------------------

    @abstractmethod
    def publish(self, req: PostRequest) -> PublishResult:
        """Publish ``req`` and return the platform's id and permalink."""

    @abstractmethod
    def find_published(self, req: PostRequest) -> PublishResult | None:
        """Find ``req`` among the account's recent posts (reconciliation after an unknown outcome)."""

    @abstractmethod
    def fetch_metrics(self, external_id: str) -> Metrics:
        """Read views, likes, comments and shares of one post."""

    @abstractmethod
    def fetch_account(self) -> AccountInfo:
        """Read the connected account's profile."""

    def unfindable_reason(self, req: PostRequest) -> str:
        """Why ``find_published`` could not see ``req`` if it went out ("" when it could): a
        lost answer for such a post is for a person to confirm, never posted again."""
        return ""

    def publish_quota(self) -> Quota | None:
        """The platform's own publishing quota, where it has an endpoint for it."""
        return None

    def check_pending(self, state: dict[str, Any]) -> PublishResult:
        """Ask again about a post ``publish`` left pending (``PublishResult.state``).

        Returns a final result, or one still ``pending`` (with its updated ``state``);
        raises ``PlatformError`` when the platform reports the post failed.
        """
        raise NotImplementedError(f"{self.platform} leaves no post pending")

    def validate(self, req: PostRequest) -> None:  # noqa: B027 - optional hook
        """Refuse, before any call, a request the platform would refuse."""

    # ---- HTTP ----------------------------------------------------------------------

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}

    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return urljoin(self.base_url + "/", path.lstrip("/"))

    def request(
        self,
        method: str,
        path: str,
        *,
        create: bool = False,
        auth: bool = True,
        ok_statuses: Iterable[int] = (),
        **kwargs: Any,
    ) -> requests.Response:
        """Send one call and turn every failure into ``PlatformError``.

        ``create`` marks the irreversible call: a drop after it was sent is
        ``OutcomeUnknown``. ``ok_statuses`` lists non-2xx statuses that are part of the
        protocol (YouTube's 308 Resume Incomplete).
        """
        headers = dict(self.auth_headers()) if auth else {}
        headers.update(kwargs.pop("headers", None) or {})
        kwargs.setdefault("timeout", self.timeout)
        kwargs.setdefault("allow_redirects", False)
        if self.answer_cap:
            kwargs["stream"] = True
        try:
            resp = self.session.request(method, self.url(path), headers=headers, **kwargs)
            if self.answer_cap:
                read_capped(resp, max_bytes=self.answer_cap[0], seconds=self.answer_cap[1])
        except (TooLarge, TimeoutError) as exc:  # the answer was cut: the call itself went out
            if create:
                raise OutcomeUnknown(
                    f"{self.platform}: the answer to {method} {path} was cut: {exc}"
                ) from exc
            raise PlatformError(
                f"{self.platform}: the answer was refused: {exc}", code="bad_response"
            ) from exc
        except UnsafeURL as exc:  # the checked session refused the address: nothing was sent
            raise PlatformError(
                f"{self.platform}: refused to call {path}: {exc.message}", code="unsafe_url"
            ) from exc
        except requests.exceptions.ConnectTimeout as exc:
            raise PlatformError(
                f"{self.platform}: connect timeout: {exc}", code="network", retryable=True
            ) from exc
        except (
            requests.exceptions.ConnectionError,
            requests.exceptions.Timeout,
            requests.exceptions.ChunkedEncodingError,
        ) as exc:
            if create and not _never_sent(exc):
                raise OutcomeUnknown(
                    f"{self.platform}: no answer after {method} {path}; the post may exist: {exc}"
                ) from exc
            raise PlatformError(
                f"{self.platform}: network error: {exc}", code="network", retryable=True
            ) from exc
        self.note_usage(resp)
        if 200 <= resp.status_code < 300 or resp.status_code in set(ok_statuses):
            self.check_body(resp)
            return resp
        if 300 <= resp.status_code < 400:  # redirects are never followed: not a success either
            raise PlatformError(
                f"{self.platform}: {method} {path} answered {resp.status_code}, a redirect "
                f"(to {resp.headers.get('Location') or 'nowhere'}), which is not followed.",
                status_code=resp.status_code,
                code="unexpected_redirect",
            )
        raise self.error_from_response(resp)

    def note_usage(self, resp: requests.Response) -> None:  # noqa: B027 - optional hook
        """Hook for platforms that report their rate-limit use on every answer (Meta)."""

    def check_body(self, resp: requests.Response) -> None:  # noqa: B027 - optional hook
        """Hook for platforms that report errors inside a 2xx body (TikTok)."""

    def get_json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        resp = self.request(method, path, **kwargs)
        try:
            return json_body(resp)
        except PlatformError as exc:
            if kwargs.get("create"):
                # A 2xx to the create call means the post exists even if we cannot read its id.
                raise OutcomeUnknown(f"{self.platform}: {exc.message}", status_code=resp.status_code) from exc
            raise

    def error_from_response(self, resp: requests.Response) -> PlatformError:
        body: Any
        try:
            body = resp.json()
        except ValueError:
            body = resp.text
        message, code, extra = ERROR_PARSERS[self.error_style](body)
        if not message:
            message = (resp.text or resp.reason or f"HTTP {resp.status_code}").strip()[:500]
        status = resp.status_code
        retry_after = retry_after_from_headers(resp.headers)
        retryable = (
            status == 429 or status >= 500 or code in self.rate_limit_codes or code in self.transient_codes
        )
        retryable = retryable or bool(extra.get("is_transient"))
        token_expired = status == 401 or code in self.token_expired_codes
        scope_missing = self.is_scope_error(status, code, body)
        if scope_missing:
            # A permission missing from the grant is not an expired token (TikTok and
            # Pinterest answer it with 401): the feature fails, the profile stays connected.
            token_expired, retryable = False, False
            message = (
                f"{message} ({code}: the profile's grant lacks a permission this feature needs; "
                f"reconnect the profile and grant it)"
            )
        if token_expired:
            retryable = False
        error = PlatformError(
            message,
            status_code=status,
            code=code,
            retryable=retryable,
            retry_after=retry_after if retryable else None,
            token_expired=token_expired,
            raw=body,
            scope_missing=scope_missing,
        )
        error.app_wide = error.retryable and self.limit_is_app_wide(error, resp)
        return self.adjust_error(error, resp, extra)

    def limit_is_app_wide(self, error: PlatformError, resp: requests.Response) -> bool:
        """Whether a retryable refusal limits the operator's app as a whole (other profiles of
        the platform would be refused too) rather than this account's token: no by default,
        the platforms that say so override it."""
        return False

    def is_scope_error(self, status: int, code: Any, body: Any) -> bool:
        """Whether the answer says the grant lacks a permission (``scope_error_codes``; a
        platform whose scope refusal has no code of its own overrides this)."""
        return code in self.scope_error_codes

    def adjust_error(
        self, error: PlatformError, resp: requests.Response, extra: dict[str, Any]
    ) -> PlatformError:
        """Hook for platform-specific classification."""
        return error

    # ---- helpers --------------------------------------------------------------------

    def poll_delay(self, reads: int) -> float:
        """Seconds to wait after the ``reads``-th status read (1-based)."""
        if self.poll_interval is not None:
            return self.poll_interval
        delays = self.poll_delays or (2.0,)
        return float(delays[min(reads, len(delays)) - 1])

    def poll(
        self,
        fetch: Callable[[], T],
        done: Callable[[T], bool],
        *,
        what: str,
        timeout: float | None = None,
        delay: Callable[[T, float], float] | None = None,
    ) -> T:
        """Call ``fetch`` until ``done`` says so; raise a retryable error on time-out.

        Between reads it waits ``poll_delay`` (the back-off), or longer when the platform
        asked for it: ``delay(value, wait)`` may lengthen the wait (X's ``check_after_secs``)
        and ``hold_off`` carries what Meta's usage headers asked for. A wait that would run
        past the deadline ends the poll at once (the caller retries later).
        """
        timeout = self.poll_timeout if timeout is None else timeout
        deadline = self._clock() + timeout
        reads = 0
        while True:
            value = fetch()
            reads += 1
            if done(value):
                return value
            wait = self.poll_delay(reads)
            if delay is not None:
                wait = delay(value, wait)
            wait = max(wait, self.hold_off)
            self.hold_off = 0.0
            if self._clock() + wait >= deadline:
                raise PlatformError(
                    f"{self.platform}: {what} did not finish within {timeout:.0f} s",
                    code="processing_timeout",
                    retryable=True,
                    retry_after=wait if wait > self.poll_delay(reads) else None,
                )
            if wait:
                self._sleep(wait)

    def processing_failed(
        self, message: str, code: Any = "media_processing_failed", raw: Any = None
    ) -> PlatformError:
        return PlatformError(message or "media processing failed", code=code, retryable=False, raw=raw)

    def invalid(self, message: str, code: str = "invalid_request") -> PlatformError:
        return PlatformError(message, code=code, retryable=False)

    def after_publish(self, step: str, call: Callable[[], T]) -> T | dict[str, str]:
        """Run a step that follows the irreversible call without letting it fail the publish.

        The post exists by then; raising would make the caller post it again.
        """
        try:
            return call()
        except PlatformError as exc:
            return {"error": exc.message, "step": step}

    @staticmethod
    def same_text(a: str | None, b: str | None) -> bool:
        return " ".join((a or "").split()) == " ".join((b or "").split())


def json_body(resp: requests.Response) -> dict[str, Any]:
    if not resp.content:
        return {}
    try:
        data = resp.json()
    except ValueError as exc:
        raise PlatformError(
            f"unreadable response body: {resp.text[:200]}",
            status_code=resp.status_code,
            code="bad_response",
            retryable=True,
        ) from exc
    return data if isinstance(data, dict) else {"data": data}


def _never_sent(exc: Exception) -> bool:
    """True when the connection failed before the request left (refused, DNS)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        name = type(cur).__name__
        if name in {"NewConnectionError", "NameResolutionError", "ConnectTimeoutError"}:
            return True
        nxt = getattr(cur, "reason", None)
        if not isinstance(nxt, BaseException):
            nxt = cur.args[0] if cur.args and isinstance(cur.args[0], BaseException) else None
        cur = nxt or cur.__cause__ or cur.__context__
    return False


def check_https(item: MediaItem, platform: str) -> None:
    if not item.url.startswith("https://"):
        raise PlatformError(
            f"{platform} fetches media itself and needs a public https URL, got {item.url!r}",
            code="invalid_media_url",
        )


def normalise_type(content_type: str) -> str:
    return (content_type or "").split(";")[0].strip().lower()


# --------------------------------------------------------------------------------------
# Metrics a platform refuses by name (Graph retires them between versions).


def refused_metric(message: str, requested: list[str]) -> str | None:
    """Which requested metric a platform's refusal names (Graph: ``(#100) metric[2] must be one of
    ...`` or ``... impressions metric is no longer supported``)."""
    m = re.search(r"metric\[(\d+)\]", message)
    if m and int(m.group(1)) < len(requested):
        return requested[int(m.group(1))]
    for name in sorted(requested, key=len, reverse=True):
        if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", message):
            return name
    return None


def fetch_without_refused(
    fetch: Callable[[list[str]], dict[str, int]], names: list[str]
) -> tuple[dict[str, int], dict[str, str]]:
    """Call ``fetch(names)``; when the platform refuses the whole request because of one
    metric, retry without it. Returns values and ``{refused name: the platform's reason}``."""
    names = list(names)
    refused: dict[str, str] = {}
    while names:
        try:
            return fetch(names), refused
        except PlatformError as exc:
            if exc.retryable or exc.token_expired or exc.status_code not in (400, 403):
                raise
            name = refused_metric(exc.message, names)
            if name is None:
                raise
            refused[name] = exc.message
            names.remove(name)
    return {}, refused
