"""One webhook POST, bounded by the wall clock (issue 20).

An attempt (connect, TLS, the request, the status line and headers, and the part of the body
that is logged) ends within WEBHOOK_TIMEOUT_SECONDS whatever the receiver does: a watchdog
shuts the socket down at the deadline, so a receiver that drips its headers or its body one
byte every few seconds holds a worker slot for the timeout, not for hours. At most
RESPONSE_LOG_BYTES of the body are read; a connection whose body was not read to its end is
closed, never drained. A response whose whole body arrived in time keeps its connection for
the endpoint's next attempt (a backlog drains over one keep-alive connection).

The connection goes to the address the SSRF rules passed at that moment (resolved again for
every attempt), with the URL's host name in `Host` and in TLS (SNI and certificate check).
Redirects are never followed. The standard library's `http.client` speaks HTTP here: it
reads a body as far as asked and no further (`read1`), and its socket is ours to cut.
"""

from __future__ import annotations

import contextlib
import http.client
import select
import socket
import ssl
import threading
import time
from urllib.parse import urlsplit

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from . import ssrf

#: the part of a receiver's answer kept in the attempt log (and all that is read of it)
RESPONSE_LOG_BYTES = 2048


class Outcome:
    def __init__(self, status_code=None, body="", error="", retry_after=None):
        self.status_code, self.body, self.error, self.retry_after = status_code, body, error, retry_after


def retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit() and len(value) <= 12:
        return float(value)
    try:
        from email.utils import parsedate_to_datetime

        return max(0.0, (parsedate_to_datetime(value) - timezone.now()).total_seconds())
    except (TypeError, ValueError, OverflowError):
        return None


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, verifying the certificate for the URL's host name."""

    def __init__(self, address: str, port: int, *, hostname: str, timeout: float):
        super().__init__(address, port, timeout=timeout, context=ssl.create_default_context())
        self._hostname = hostname

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self._hostname)  # type: ignore[attr-defined]


class _Watchdog:
    """Shuts a connection's socket down when the attempt's deadline passes: a blocked read
    returns at once, whatever the per-read timeout."""

    def __init__(self, conn: http.client.HTTPConnection, seconds: float):
        self.conn, self.fired = conn, False
        self._timer = threading.Timer(max(0.0, seconds), self._cut)
        self._timer.daemon = True

    def _cut(self) -> None:
        self.fired = True
        sock = self.conn.sock
        if sock is not None:
            # the plain socket's shutdown, also for TLS (SSLSocket.shutdown would drop its SSL
            # object under the reading thread)
            with contextlib.suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()


def _set_timeout(conn: http.client.HTTPConnection, deadline: float) -> bool:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    conn.timeout = remaining
    if conn.sock is not None:
        conn.sock.settimeout(remaining)
    return True


class Sender:
    """POSTs without following redirects, each to an address the SSRF rules passed at that
    moment. A connection is kept for the next attempt to the same address when its answer
    was read whole within the deadline."""

    def __init__(self):
        self._conns: dict = {}

    def _connection(self, scheme: str, host: str, port: int, address: str, timeout: float):
        key = (scheme, host, port, address)
        conn = self._conns.pop(key, None)
        if conn is not None and (conn.sock is None or select.select([conn.sock], [], [], 0)[0]):
            conn.close()  # the receiver closed the kept connection (or sent what was not asked)
            conn = None
        if conn is None:
            if scheme == "https":
                conn = _PinnedHTTPSConnection(address, port, hostname=host, timeout=timeout)
            else:
                conn = http.client.HTTPConnection(address, port, timeout=timeout)
        return key, conn

    def post(self, url: str, body: bytes, headers: dict) -> Outcome:
        limit = settings.WEBHOOK_TIMEOUT_SECONDS
        deadline = time.monotonic() + limit
        try:
            scheme, host, port, address = ssrf.resolve_checked(url)
        except ssrf.UnsafeURL as exc:
            return Outcome(error=f"refused: {exc.message}")
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        default_port = 443 if scheme == "https" else 80
        host_header = (f"[{host}]" if ":" in host else host) + ("" if port == default_port else f":{port}")
        key, conn = self._connection(scheme, host, port, address, limit)
        keep = False
        with _Watchdog(conn, deadline - time.monotonic()) as watchdog:
            try:
                _set_timeout(conn, deadline)
                conn.request("POST", path, body=body, headers={**headers, "Host": host_header})
                if not _set_timeout(conn, deadline):
                    raise TimeoutError
                response = conn.getresponse()
            except SoftTimeLimitExceeded:
                conn.close()
                raise
            except Exception as exc:  # refused, TLS, protocol, the deadline: a failed attempt
                conn.close()
                if watchdog.fired or isinstance(exc, TimeoutError):
                    return Outcome(error=f"timed out after {limit:g} s")
                return Outcome(error=f"{type(exc).__name__}: {exc}"[:500])
            prefix = bytearray()
            try:
                while len(prefix) < RESPONSE_LOG_BYTES and _set_timeout(conn, deadline):
                    chunk = response.read1(RESPONSE_LOG_BYTES - len(prefix))
                    if not chunk:
                        break
                    prefix += chunk
                if response.length == 0:  # read to its declared end (read1 leaves it open)
                    response.close()
                # kept only when the answer was read to its end in time
                keep = response.isclosed() and not response.will_close and not watchdog.fired
            except SoftTimeLimitExceeded:
                conn.close()
                raise
            except Exception:  # the deadline or the receiver cut the body: its status stands
                keep = False
        if keep:
            self._conns[key] = conn
        else:
            conn.close()
        return Outcome(
            status_code=response.status,
            body=bytes(prefix).decode("utf-8", "replace"),
            retry_after=retry_after_seconds(response.getheader("Retry-After"))
            if response.status in (429, 503)
            else None,
        )

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()


def fetch_checked(url: str, *, max_bytes: int, timeout: float = 15.0) -> tuple[str, bytes]:
    """GET ``url`` through the same SSRF rules as the webhooks (every resolved address checked,
    the connection pinned to it, no redirects followed): (content type, body). Raises
    ``ssrf.UnsafeURL`` for a refused address and ``ValueError`` for any other failure (a status
    other than 200, a body over ``max_bytes``, a network error), with the reason."""
    scheme, host, port, address = ssrf.resolve_checked(url)
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default_port = 443 if scheme == "https" else 80
    host_header = (f"[{host}]" if ":" in host else host) + ("" if port == default_port else f":{port}")
    conn: http.client.HTTPConnection = (
        _PinnedHTTPSConnection(address, port, hostname=host, timeout=timeout)
        if scheme == "https"
        else http.client.HTTPConnection(address, port, timeout=timeout)
    )
    try:
        with _Watchdog(conn, timeout):
            conn.request("GET", path, headers={"Host": host_header, "User-Agent": "Postforge import"})
            response = conn.getresponse()
            if response.status != 200:
                raise ValueError(f"the server answered {response.status}")
            body = response.read(max_bytes + 1)
            if len(body) > max_bytes:
                raise ValueError(f"larger than {max_bytes // (1024 * 1024)} MB")
            return (response.getheader("Content-Type") or "").split(";")[0].strip(), body
    except (OSError, http.client.HTTPException) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}"[:200]) from None
    finally:
        conn.close()
