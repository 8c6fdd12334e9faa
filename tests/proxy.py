"""A small reverse proxy for tests, run as its own process (issue 20):

    python tests/proxy.py LISTEN_PORT UPSTREAM_PORT [--host-without-port]

It listens on 127.0.0.1:LISTEN_PORT and forwards every request to 127.0.0.1:UPSTREAM_PORT,
appending the address it got the request from to `X-Forwarded-For` (as nginx's
`$proxy_add_x_forwarded_for` and Caddy do), and setting `X-Forwarded-Proto`. Clients on this
machine tell themselves apart by their source address (127.0.0.2, 127.0.0.3, ...: all of
127.0.0.0/8 is loopback); the proxy itself always connects from 127.0.0.1. `Host` goes on as
the client sent it (nginx's `$http_host`); with --host-without-port the port is dropped from
it, as nginx's `$host` does (the snippet docs/deploy.md once had, issue 28).
"""

from __future__ import annotations

import http.client
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"}


def make_handler(upstream_port: int, host_without_port: bool = False):
    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            previous = self.headers.get("X-Forwarded-For")
            headers.pop("X-Forwarded-For", None)
            headers["X-Forwarded-For"] = (previous + ", " if previous else "") + self.client_address[0]
            headers["X-Forwarded-Proto"] = "http"
            for key in [k for k in headers if host_without_port and k.lower() == "host"]:
                headers[key] = headers[key].rsplit(":", 1)[0]
            conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                self.send_response(response.status, response.reason)
                for key, value in response.getheaders():
                    if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError as exc:
                message = f"bad gateway: {exc}".encode()
                self.send_response(502)
                self.send_header("Content-Length", str(len(message)))
                self.end_headers()
                self.wfile.write(message)
            finally:
                conn.close()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward

    return Proxy


def main() -> None:
    listen, upstream = int(sys.argv[1]), int(sys.argv[2])
    server = ThreadingHTTPServer(
        ("127.0.0.1", listen), make_handler(upstream, host_without_port="--host-without-port" in sys.argv)
    )
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
