from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_liveness_and_readiness_need_no_credentials():
    client = APIClient()
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    # the public reads ok or not (issue 28); the checks and workers are staff's (tests/core/test_probes.py)
    assert ready.json() == {"status": "ok"}


def _last_line(command, *args) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip().splitlines()[-1]


def test_create_api_key_prints_a_working_key_as_its_last_line():
    key = _last_line("create_api_key", "--org", "Cmd Org", "--role", "viewer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    response = client.get("/v1/brands")
    assert response.status_code == 200
    assert response.json()["data"][0]["name"] == "Cmd Org"
    assert client.post("/v1/brands", {"name": "x"}, format="json").status_code == 403


def test_issue_token_prints_a_working_family_b_token():
    token = _last_line("issue_token", "--org", "Tok Org", "--role", "editor")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = client.post("/api/brands", {"name": "Via token"}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["slug"] == "via-token"


def test_seed_demo_is_safe_to_rerun_and_prints_a_fresh_key():
    first = _last_line("seed_demo")
    second = _last_line("seed_demo")
    assert first != second
    from apps.profiles.models import SocialProfile

    assert SocialProfile.objects.filter(external_id="sandbox-demo").count() == 1
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {second}")
    assert client.get("/v1/profiles").json()["data"][0]["username"] == "demo.sandbox"


def test_make_test_without_chromium_and_not_root_stops_with_one_line_saying_what_to_install():
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        ["make", "-s", "chromium", "CHROMIUM=no-such-chromium", "UID_NOW=1000"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,  # the test reads the failure
    )
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert lines[0].startswith("make test needs Chromium") and "apt-get install chromium" in lines[0]
    # make's own trailer reads "make: ***" or, under another make (CI's `make test`), "make[1]: ***"
    assert len([line for line in lines if not re.match(r"make(\[\d+\])?: ", line)]) == 1
