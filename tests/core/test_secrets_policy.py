"""Outside development the service refuses a public SECRET_KEY or missing token keys; the
compose layout passes `check --deploy`; the embedded default keeps its own key in var/."""

from __future__ import annotations

import secrets
import subprocess
import sys

import pytest
from cryptography.fernet import Fernet

from tests.live import ROOT, process_env

COMPOSE = {  # docker/compose.yaml's environment, with real secrets as its README asks
    "REDIS_URL": "redis://127.0.0.1:6379/3",
    "PUBLIC_BASE_URL": "https://posts.example.com",
    "CONN_MAX_AGE": "60",
    "DJANGO_SETTINGS_MODULE": "config.settings",
}


def _env(**extra) -> dict:
    env = process_env(**COMPOSE)
    # a deployment names its database (config.settings.DEVELOPMENT): in the embedded default the
    # suite runs on SQLite and hands its children no DATABASE_URL, so they get one of their own
    # (a file nothing opens: these checks and imports read no table)
    env.setdefault("DATABASE_URL", f"sqlite:///{ROOT / 'var' / 'deploy-check.sqlite3'}")
    for name in ("SECRET_KEY", "TOKEN_ENCRYPTION_KEYS", "DEBUG", "ALLOWED_HOSTS", "SILENCED_SYSTEM_CHECKS"):
        env.pop(name, None)
    env.update(extra)
    return env


def _run(args, env):
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def _security_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "(security." in line or "(postforge." in line]


@pytest.mark.django_db
def test_check_deploy_is_clean_in_the_compose_layout_with_real_secrets():
    env = _env(SECRET_KEY=secrets.token_urlsafe(50), TOKEN_ENCRYPTION_KEYS=Fernet.generate_key().decode())
    run = _run(["manage.py", "check", "--deploy"], env)
    assert run.returncode == 0, run.stderr
    assert _security_lines(run.stdout + run.stderr) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "secret_key", [None, "change-me", "postforge-insecure-development-key-change-me-in-production"]
)
def test_a_public_secret_key_or_missing_token_keys_fail_the_deploy_check_and_the_server(secret_key):
    env = _env(**({"SECRET_KEY": secret_key} if secret_key else {}))
    run = _run(["manage.py", "check", "--deploy"], env)
    assert run.returncode != 0
    assert "postforge.E001" in run.stderr and "postforge.E002" in run.stderr
    good = {
        **env,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "TOKEN_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
    }
    for entry in ("config.wsgi", "config.asgi"):  # gunicorn and uvicorn import these
        served = _run(["-c", f"import {entry}"], env)
        assert served.returncode != 0 and "refuses to start" in served.stderr, entry
        assert "SECRET_KEY" in served.stderr and "TOKEN_ENCRYPTION_KEYS" in served.stderr
        fine = _run(["-c", f"import {entry}"], good)
        assert fine.returncode == 0, fine.stderr


@pytest.mark.django_db
def test_serve_and_celery_refuse_public_secrets_outside_development(tmp_path):
    env = _env(SECRET_KEY="change-me")
    serve = _run(["manage.py", "serve", "--no-worker", "--port", "1"], env)
    assert serve.returncode != 0 and "refuses to start" in serve.stderr and "SECRET_KEY" in serve.stderr
    assert "Postforge is up" not in serve.stdout
    for args in (
        ["worker", "--pool", "solo", "-l", "warning"],
        ["beat", "-l", "warning", "-s", str(tmp_path / "beat-schedule")],
    ):
        run = _run(["-m", "celery", "-A", "config", *args], env)
        assert run.returncode == 78, (args, run.returncode, run.stderr[-2000:])
        assert f"Postforge {args[0]} refuses to start" in run.stderr and "TOKEN_ENCRYPTION_KEYS" in run.stderr


def test_the_embedded_default_keeps_a_generated_secret_key_in_var(tmp_path):
    env = {k: v for k, v in _env().items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["POSTFORGE_VAR_DIR"] = str(tmp_path)
    code = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
    first = _run(["-c", code], env)
    second = _run(["-c", code], env)
    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    assert key == second.stdout.strip() == (tmp_path / "secret_key").read_text().strip()
    assert len(key) >= 50 and "insecure" not in key
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
