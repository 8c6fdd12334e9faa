"""A webhook receiver on loopback whose answer each test sets (200, 500, 429+Retry-After, 410,
a redirect, or a hang), recording every request it gets."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    def __init__(self):
        self.requests: list[dict] = []
        self.status = 200
        self.headers: dict = {}
        self.body = b"ok"
        self.delay = 0.0  # seconds before each answer
        self.hang = threading.Event()  # set: hold the request until released
        self.release = threading.Event()
        self.got = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body are two writes: with Nagle on, a kept-alive connection waits for
            # the client's delayed ACK (40 ms) between them, as no production server does
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.got:
                    receiver.requests.append(
                        {
                            "at": time.time(),
                            "path": self.path,
                            "peer": self.client_address,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "body": body,
                        }
                    )
                    receiver.got.notify_all()
                if receiver.delay:
                    receiver.release.wait(receiver.delay)
                if receiver.hang.is_set():
                    receiver.release.wait(30)
                    return
                self.send_response(receiver.status)
                for k, v in receiver.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(receiver.body)))
                self.end_headers()
                self.wfile.write(receiver.body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def answer(self, status: int, headers: dict | None = None, body: bytes = b"") -> None:
        self.status, self.headers, self.body = status, headers or {}, body or b"x"

    def wait_for(self, n: int, timeout: float = 10.0) -> list[dict]:
        with self.got:
            self.got.wait_for(lambda: len(self.requests) >= n, timeout)
            return list(self.requests)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
