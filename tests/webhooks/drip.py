"""A slow receiver (issue 20): it reads the request, answers `200` with `Content-Length:
100000` and then sends one byte of the body every `interval` seconds until the client closes
the connection. With `headers_too`, the status line and headers themselves come one byte at
a time. It records, per connection, the body bytes it got to send before the client gave up,
and the most connections it held open at once (each is a worker slot waiting on it)."""

from __future__ import annotations

import socket
import socketserver
import threading
import time


class DripServer:
    DECLARED = 100_000

    def __init__(self, interval: float = 1.0, *, headers_too: bool = False, limit_seconds: float = 300):
        self.interval, self.headers_too, self.limit_seconds = interval, headers_too, limit_seconds
        self.open = self.most = self.accepted = 0
        self.closed: list[dict] = []  # {"path", "sent", "seconds", "at"} per connection ended
        self.lock = threading.Lock()
        drip = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                sock: socket.socket = self.request
                with drip.lock:
                    drip.open += 1
                    drip.accepted += 1
                    drip.most = max(drip.most, drip.open)
                started, sent, path = time.monotonic(), 0, ""
                try:
                    path = drip._read_request(sock)
                    head = f"HTTP/1.1 200 OK\r\nContent-Length: {drip.DECLARED}\r\n\r\n".encode()
                    if drip.headers_too:
                        for i in range(len(head)):
                            sock.sendall(head[i : i + 1])
                            time.sleep(drip.interval)
                    else:
                        sock.sendall(head)
                    sock.settimeout(drip.interval)
                    while sent < drip.DECLARED and time.monotonic() - started < drip.limit_seconds:
                        sock.sendall(b"x")
                        sent += 1
                        try:  # the client's close shows as EOF here, within one interval
                            if sock.recv(1) == b"":
                                break
                        except TimeoutError:
                            pass
                except OSError:
                    pass
                finally:
                    with drip.lock:
                        drip.open -= 1
                        drip.closed.append(
                            {
                                "path": path,
                                "sent": sent,
                                "seconds": time.monotonic() - started,
                                "at": time.time(),
                            }
                        )

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def _read_request(sock: socket.socket) -> str:
        sock.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed before the request ended")
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next(
            (
                int(v)
                for k, _, v in (h.partition(":") for h in lines[1:])
                if k.strip().lower() == "content-length"
            ),
            0,
        )
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed before the body ended")
            body += chunk
        return lines[0].split(" ")[1]

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
