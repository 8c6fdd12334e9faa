"""Websocket fan-out benchmark on real processes (PostgreSQL `postforge_bench`, a private Redis).

500 websocket clients of one organization are connected to uvicorn serving config.asgi
(channels-redis layer). In the same run:

(a) baseline: a bare channels-redis `group_send` to the organization's group from this
    process, stamped just before the send;
(b) Postforge: events written by a Celery worker the way generation tasks write theirs
    (`event_record` in a transaction, fanned out by the task when it ends), stamped at commit.

Prints p50/p99/max from stamp to receipt over every client and message, and the ratio of
the two p99s (target: p99 of (b) at most 150 ms), the machine's load average, and the CPU
the server process spent per message sent to every client (its fan-out cost: unlike the
latencies, it hardly moves with what else the machine runs).

Configurations compared in one run, alternated over `--rounds`: channel layers (`--layers
core,pubsub`), the server's permessage-deflate (`--deflate on,off`) and the code the server
runs (`--server-roots`: this checkout and, say, an export of main for a before/after).
The server runs uvicorn's `--ws auto` as compose does (BENCH_WS picks another);
BENCH_SERVER_PROFILE=FILE writes the server's cProfile.

    .venv/bin/python bench/realtime.py [--clients 500] [--messages 40] [--interval 0.25]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.baseline.tasks import BENCH_EVENT  # noqa: E402
from bench.common import pct, setup_django  # noqa: E402


def setup() -> None:
    setup_django("postforge_bench")


def loadavg() -> str:
    """The machine's 1-minute load average (other processes share the cores)."""
    return Path("/proc/loadavg").read_text().split()[0]


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: uvicorn under cProfile, the profile written to BENCH_SERVER_PROFILE when it stops (uvicorn
#: re-raises SIGTERM after its shutdown: a handler turns it into an exit that cProfile outlives)
PROFILED = """
import cProfile, os, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
sys.argv[0] = "uvicorn"
from uvicorn.main import main
profile = cProfile.Profile()
try:
    profile.runcall(main)
except SystemExit:
    pass
profile.dump_stats(os.environ["BENCH_SERVER_PROFILE"])
"""


def start_server(env: dict, port: int, deflate: bool = True, root: Path = ROOT) -> subprocess.Popen:
    server = subprocess.Popen(
        [
            sys.executable,
            # BENCH_SERVER_PROFILE=FILE: the server's cProfile, written when it stops
            *(["-c", PROFILED] if "BENCH_SERVER_PROFILE" in os.environ else ["-m", "uvicorn"]),
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            # what compose runs (auto: websockets' sans-I/O protocol); BENCH_WS picks another
            "--ws",
            os.environ.get("BENCH_WS", "auto"),
            "--lifespan",
            "off",
            "--workers",
            os.environ.get("BENCH_WEB_WORKERS", "1"),
            *([] if deflate else ["--ws-per-message-deflate", "false"]),
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(Path(env.get("POSTFORGE_VAR_DIR", ROOT / "var")) / "realtime-uvicorn.log", "ab"),  # noqa: SIM115
    )
    import socket

    for _ in range(1200):  # a minute: Django's start is slow on a loaded machine
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server
        if server.poll() is not None:
            break
        time.sleep(0.05)
    server.kill()
    raise RuntimeError("uvicorn did not start")


class Clients:
    """N sockets in this process's event loop; each receipt is stamped as it is read."""

    def __init__(self, url: str, token: str, n: int):
        self.url, self.token, self.n = url, token, n
        self.sockets = []
        self.receipts: dict[str, list[tuple[int, float]]] = {"bench.bare": [], BENCH_EVENT: []}
        self.readers: list[asyncio.Task] = []

    async def connect(self) -> None:
        import websockets

        async def one():
            ws = await websockets.connect(f"{self.url}?token={self.token}", max_queue=None, open_timeout=60)
            hello = json.loads(await ws.recv())
            assert hello["type"] == "connection.ready", hello
            return ws

        for start in range(0, self.n, 50):  # in rounds, as clients arrive in practice
            self.sockets += await asyncio.gather(*(one() for _ in range(start, min(self.n, start + 50))))
        self.readers = [asyncio.create_task(self._read(ws)) for ws in self.sockets]

    async def _read(self, ws) -> None:
        async for raw in ws:
            now = time.time()
            message = json.loads(raw)
            bucket = self.receipts.get(message.get("type"))
            if bucket is not None:
                bucket.append((message["data"]["seq"], now))

    async def wait_for(self, kind: str, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while len(self.receipts[kind]) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)


async def bare_sends(layer, group: str, messages: int, interval: float, stamps: dict) -> None:
    for seq in range(messages):
        stamps[seq] = time.time()
        await layer.group_send(
            group, {"type": "event.message", "payload": {"type": "bench.bare", "data": {"seq": seq}}}
        )
        await asyncio.sleep(interval)


def latencies(receipts: list[tuple[int, float]], stamps: dict) -> list[float]:
    return [(at - stamps[seq]) * 1000 for seq, at in receipts if seq in stamps]


LAYERS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}


async def run(args, cluster, org, token: str, layer_name: str, *, deflate: bool, root: Path) -> dict:
    import importlib

    import redis
    from celery import Celery

    from apps.events.services import org_group

    module, _, cls = LAYERS[layer_name].rpartition(".")
    layer_class = getattr(importlib.import_module(module), cls)
    from tests.publishing.harness import free_port

    port = free_port()
    env = dict(
        cluster.env,
        WS_MAX_CONNECTIONS_PER_CREDENTIAL="0",
        WS_MAX_CONNECTIONS_PER_ORGANIZATION="0",
        CONN_MAX_AGE="0",
        CHANNEL_LAYER=layer_name,
    )
    server = start_server(env, port, deflate, root)
    clients = Clients(f"ws://127.0.0.1:{port}/ws/events/", token, args.clients)
    try:
        await clients.connect()
        print(f"{len(clients.sockets)} clients connected", flush=True)
        # (a) the bare channels-redis group send, from this process
        layer = layer_class(hosts=[cluster.env["REDIS_URL"]])
        bare_stamps: dict[int, float] = {}
        cpu = [cpu_seconds(server.pid), time.process_time()]
        await bare_sends(layer, org_group(org.pk), args.messages, args.interval, bare_stamps)
        await clients.wait_for("bench.bare", args.clients * args.messages, 60)
        cpu += [cpu_seconds(server.pid), time.process_time()]
        # (b) events written by the worker, stamped at commit
        app = Celery(broker=cluster.env["REDIS_URL"])
        stamp_key = f"bench:realtime:{uuid.uuid4().hex}"
        for seq in range(args.messages):
            app.send_task(
                "bench.baseline.tasks.bench_event", args=[str(org.pk), seq, stamp_key], queue="default"
            )
            await asyncio.sleep(args.interval)
        await clients.wait_for(BENCH_EVENT, args.clients * args.messages, 60)
        cpu += [cpu_seconds(server.pid), time.process_time()]
        stamps = {
            int(k): float(v) for k, v in redis.Redis(port=cluster.redis_port).hgetall(stamp_key).items()
        }
    finally:
        await clients.close()
        server.terminate()
        server.wait(10)
    bare = latencies(clients.receipts["bench.bare"], bare_stamps)
    ours = latencies(clients.receipts[BENCH_EVENT], stamps)
    expected = args.clients * args.messages
    load = loadavg()
    print(
        f"{root.name}: layer {layer_name}, permessage-deflate {'on' if deflate else 'off'}: {args.clients} clients, "
        f"a message every {args.interval * 1000:.0f} ms, load {load}"
    )
    for label, values in (
        ("(a) bare channels-redis group_send", bare),
        ("(b) worker event, commit to receipt", ours),
    ):
        print(
            f"  {label:38} received {len(values)}/{expected}  p50 {pct(values, 50):6.1f} ms  "
            f"p99 {pct(values, 99):6.1f} ms  max {max(values, default=float('nan')):6.1f} ms",
            flush=True,
        )
    # CPU per message sent to every client: the server's (the fan-out) and the clients' (reading)
    server_ms = [(cpu[2] - cpu[0]) * 1000 / args.messages, (cpu[4] - cpu[2]) * 1000 / args.messages]
    client_ms = [(cpu[3] - cpu[1]) * 1000 / args.messages, (cpu[5] - cpu[3]) * 1000 / args.messages]
    print(
        f"  CPU per message to {args.clients} clients: server {server_ms[0]:.1f} ms (a), {server_ms[1]:.1f} ms (b); "
        f"clients {client_ms[0]:.1f} ms (a), {client_ms[1]:.1f} ms (b)"
    )
    print(
        f"  p99 ratio (b)/(a): {pct(ours, 99) / pct(bare, 99):.2f}; target: (b) p99 <= 150 ms -> "
        f"{'met' if pct(ours, 99) <= 150 else 'NOT met'}"
    )
    return {
        "config": f"{layer_name}/{'deflate' if deflate else 'plain'}",
        "load": load,
        "bare": (pct(bare, 50), pct(bare, 99), len(bare)),
        "ours": (pct(ours, 50), pct(ours, 99), len(ours)),
        "expected": expected,
        "server_ms": server_ms,
        "client_ms": client_ms,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--messages", type=int, default=40)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between messages")
    parser.add_argument("--layers", default="core,pubsub", help="channel layers to compare, in this run")
    parser.add_argument(
        "--deflate",
        default="on",
        help="the server's permessage-deflate, one or several of on,off (compared in this run)",
    )
    parser.add_argument(
        "--server-roots",
        default=str(ROOT),
        help="checkouts whose code the server runs, compared in this run (e.g. an export of main)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds over every configuration, alternated")
    args = parser.parse_args()
    setup()
    from apps.accounts.services import api_key_create, organization_get_or_create
    from tests.publishing.harness import Cluster

    org = organization_get_or_create(name=f"Realtime bench {uuid.uuid4().hex[:6]}")
    token = api_key_create(organization=org, name="realtime bench").secret
    import uvloop

    results = []
    roots = [Path(r).resolve() for r in args.server_roots.split(",")]
    for _ in range(args.rounds):
        for layer_name in args.layers.split(","):
            # the worker sends through the same layer as the web process
            cluster = Cluster(
                workers=1, concurrency=2, beats=1, queues="default", env={"CHANNEL_LAYER": layer_name}
            ).start()
            try:
                for deflate, root in [(d, r) for r in roots for d in args.deflate.split(",")]:
                    # the clients' own loop on uvloop, as uvicorn's: reading 500 sockets is the bench's cost, not the server's
                    result = uvloop.run(
                        run(args, cluster, org, token, layer_name, deflate=deflate == "on", root=root)
                    )
                    result["config"] += "" if root == ROOT else f" ({root.name})"
                    results.append(result)
            finally:
                cluster.stop()
    print()
    print(
        f"{'config':32} {'load':>5} {'bare p50':>9} {'bare p99':>9} {'ours p50':>9} {'ours p99':>9} received"
    )
    for r in results:
        print(
            f"{r['config']:32} {r['load']:>5} {r['bare'][0]:9.1f} {r['bare'][1]:9.1f} "
            f"{r['ours'][0]:9.1f} {r['ours'][1]:9.1f} "
            f"{r['server_ms'][0]:7.1f}/{r['server_ms'][1]:<7.1f} {r['client_ms'][0]:8.1f} "
            f"{r['bare'][2]}+{r['ours'][2]}/{2 * r['expected']}"
        )


if __name__ == "__main__":
    main()
