"""The MCP server (issue 32) with the SDK's own clients against real processes, as a user meets
it: `manage.py serve` (the `make run` server, with its worker and beat) on the embedded default
in a temporary var/ folder, reached over streamable HTTP at /mcp/; and `manage.py mcp` spawned as
a stdio subprocess by `mcp.client.stdio`. An agent's content waits for review, even on a brand
that auto-publishes; another organization's key cannot see it; a bad key is refused."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
import requests
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.live import free_port

ROOT = Path(__file__).resolve().parents[2]
AGENT = types.Implementation(name="test-agent", version="1.0")

PREPARE = """
from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.brands.services import brand_settings_update
for brand in Brand.objects.all():
    brand_settings_update(brand=brand, settings={"auto_publish": True, "require_approval": False})
assert all(b.auto_publish and not b.require_approval for b in Brand.objects.all())
other = organization_get_or_create(name="Other MCP Org")
print(api_key_create(organization=other).secret)
"""


def _env(var_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "PUBLIC_BASE_URL", "MEDIA_ROOT")
    }
    env.update(
        {
            "POSTFORGE_VAR_DIR": str(var_dir),
            "PYTHONPATH": str(ROOT),
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    return env


def _manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    var_dir = tmp_path_factory.mktemp("mcp-var")
    env = _env(var_dir)
    _manage(env, "migrate", "--noinput", "-v0")
    key = _manage(env, "seed_demo").splitlines()[-1]
    other_key = _manage(env, "shell", "-c", PREPARE).splitlines()[-1]
    port = free_port()
    with open(var_dir / "serve.out", "w") as out:
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while "Postforge is up" not in (var_dir / "serve.out").read_text():
            assert proc.poll() is None, (var_dir / "serve.out").read_text()
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.2)
        yield {"base": base, "key": key, "other_key": other_key, "env": env}
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(timeout=10)


def _data(result: types.CallToolResult) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        out = result.structured_content
        return out.get("result", out) if set(out) == {"result"} else out
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


def _error(result: types.CallToolResult) -> str:
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]


def _http(site: dict[str, Any], key: str) -> Any:
    client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(60))
    return streamable_http_client(f"{site['base']}/mcp/", http_client=client)


async def _wait_reviewable(session: ClientSession, content_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        item = _data(await session.call_tool("get_content", {"content_id": content_id}))
        if item["status"] not in ("pending", "generating"):
            return item
        assert time.monotonic() < deadline, item
        await asyncio.sleep(0.5)


def test_http_session_generates_and_proposes_then_content_waits_for_review(site: dict[str, Any]) -> None:
    when = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=2)).replace(microsecond=0)

    async def session_run() -> tuple[
        list[str], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]
    ]:
        async with _http(site, site["key"]) as (read, write):  # noqa: SIM117 - the client's streams open the session
            async with ClientSession(read, write, client_info=AGENT) as session:
                await session.initialize()
                tools = [t.name for t in (await session.list_tools()).tools]
                profile = _data(await session.call_tool("list_profiles", {}))[0]
                made = _data(
                    await session.call_tool(
                        "generate_content", {"prompt": "Our harbour at dawn", "profile_ids": [profile["id"]]}
                    )
                )
                content_id = made[0]["id"]
                ready = await _wait_reviewable(session, content_id)
                check = _data(await session.call_tool("preflight_check", {"content_id": content_id}))
                proposed = _data(
                    await session.call_tool(
                        "propose_schedule", {"content_id": content_id, "scheduled_for": when.isoformat()}
                    )
                )
                return tools, ready, check, proposed, profile

    tools, ready, check, proposed, profile = asyncio.run(session_run())
    assert {"generate_content", "list_content", "get_content", "edit_variant", "preflight_check"} <= set(
        tools
    )
    assert {"propose_schedule", "content_analytics", "best_times", "list_profiles"} <= set(tools)
    platform = ready["platforms"][0]
    assert ready["status"] == "generated" and ready["content"][platform]["caption"]
    assert check["profiles"] and check["profiles"][0]["platform"] == platform and check["checkedFor"]
    assert proposed["status"] == "generated"  # in the review queue, not scheduled
    assert "scheduledFor" not in proposed
    assert proposed["review"] == {
        "createdVia": "mcp",
        "agent": "test-agent 1.0",
        "proposedFor": when.isoformat(),
        "needsApproval": True,
    }
    # the brand auto-publishes and does not require approval, yet the agent's content may not be
    # scheduled or published before a person approves it
    assert not {"schedule", "publish"} & set(proposed.get("allowedActions", ["schedule"]))

    # the same content through the REST API (Family A) with the same key: who made it, still waiting
    headers = {"Authorization": f"Bearer {site['key']}"}
    rest = requests.get(f"{site['base']}/v1/content/{proposed['id']}", headers=headers, timeout=30).json()
    assert rest["status"] == "generated" and "scheduledFor" not in rest
    assert rest["agent"]["via"] == "mcp" and rest["agent"]["name"] == "test-agent 1.0"
    assert rest["agent"]["apiKeyId"].startswith("key_") and rest["agent"]["proposedFor"]
    family_b = requests.get(f"{site['base']}/api/content/{proposed['id'][4:]}", headers=headers, timeout=30)
    assert family_b.status_code == 200, family_b.text
    body_b = family_b.json()["data"]
    assert body_b.get("agent", {}).get("name") == "test-agent 1.0", sorted(body_b)
    assert body_b["status"] == "reviewing"
    refused = requests.post(
        f"{site['base']}/v1/content/{proposed['id']}/schedule",
        headers=headers,
        json={"scheduledFor": when.isoformat(), "profiles": [profile["id"]]},
        timeout=30,
    )
    # a person may schedule it only after approving it (the status machine refuses: 409)
    assert refused.status_code == 409, refused.text
    time.sleep(2)  # the worker and beat keep running: nothing schedules it on its own
    again = requests.get(f"{site['base']}/v1/content/{proposed['id']}", headers=headers, timeout=30).json()
    assert again["status"] == "generated" and not again.get("publications")


def test_http_other_organization_sees_not_found_and_bad_key_is_refused(site: dict[str, Any]) -> None:
    async def run() -> tuple[str, str, list[Any]]:
        async with _http(site, site["key"]) as (read, write):  # noqa: SIM117 - the client's streams open the session
            async with ClientSession(read, write, client_info=AGENT) as session:
                await session.initialize()
                made = _data(
                    await session.call_tool("generate_content", {"prompt": "Ferry times", "platforms": ["x"]})
                )
        content_id = made[0]["id"]
        async with _http(site, site["other_key"]) as (read, write):  # noqa: SIM117 - the client's streams open the session
            async with ClientSession(read, write, client_info=AGENT) as session:
                await session.initialize()
                read_err = _error(await session.call_tool("get_content", {"content_id": content_id}))
                prop_err = _error(
                    await session.call_tool(
                        "propose_schedule",
                        {"content_id": content_id, "scheduled_for": "2099-01-01T09:00:00Z"},
                    )
                )
                listed = _data(await session.call_tool("list_content", {}))["items"]
        return read_err, prop_err, listed

    read_err, prop_err, listed = asyncio.run(run())
    assert "NOT_FOUND: No content" in read_err and "NOT_FOUND: No content" in prop_err
    assert listed == []

    # a bad key: refused before the SDK sees the request (401), and the SDK client fails
    bad = requests.post(
        f"{site['base']}/mcp/",
        headers={
            "Authorization": "Bearer pf_live_not-a-key",
            "Accept": "application/json, text/event-stream",
        },
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        timeout=30,
    )
    assert bad.status_code == 401 and bad.json()["error"]["code"] == "AUTHENTICATION_FAILED"
    assert requests.post(f"{site['base']}/mcp/", json={}, timeout=30).status_code == 401

    async def bad_session() -> None:
        async with _http(site, "pf_live_not-a-key") as (read, write):  # noqa: SIM117 - the client's streams open the session
            async with ClientSession(read, write, client_info=AGENT) as session:
                await asyncio.wait_for(session.initialize(), 30)

    with pytest.raises(BaseException):  # noqa: B017 - the SDK surfaces the 401 as its own error
        asyncio.run(bad_session())


def test_stdio_subprocess_session(site: dict[str, Any]) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "manage.py"), "mcp"],
        env={**site["env"], "POSTFORGE_API_KEY": site["key"]},
        cwd=str(ROOT),
    )
    when = "2099-03-01T09:30:00+00:00"

    async def run() -> tuple[list[str], dict[str, Any], dict[str, Any]]:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(
                read, write, client_info=types.Implementation(name="stdio-agent", version="2")
            ) as s,
        ):
            await s.initialize()
            tools = [t.name for t in (await s.list_tools()).tools]
            made = _data(
                await s.call_tool("generate_content", {"prompt": "Market day", "platforms": ["linkedin"]})
            )
            ready = await _wait_reviewable(s, made[0]["id"])
            edited = _data(
                await s.call_tool(
                    "edit_variant",
                    {"content_id": ready["id"], "platform": "linkedin", "caption": "Market day!"},
                )
            )
            proposed = _data(
                await s.call_tool("propose_schedule", {"content_id": ready["id"], "scheduled_for": when})
            )
            return tools, edited, proposed

    tools, edited, proposed = asyncio.run(run())
    assert "generate_content" in tools
    assert edited["content"]["linkedin"]["caption"] == "Market day!"
    assert proposed["status"] == "generated" and "scheduledFor" not in proposed
    assert proposed["review"]["agent"] == "stdio-agent 2" and proposed["review"]["proposedFor"] == when

    # a bad key: the command refuses to start
    bad = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "mcp"],
        env={**site["env"], "POSTFORGE_API_KEY": "pf_live_wrong"},
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "Invalid or revoked API key" in bad.stderr
