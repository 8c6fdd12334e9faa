"""Secrets policy: outside development the service needs its own SECRET_KEY and
TOKEN_ENCRYPTION_KEYS (the token key would otherwise derive from the SECRET_KEY).

`problems()` lists what is wrong; `manage.py check --deploy` reports them as errors
(postforge.E001/E002), and every entry point refuses to start with them: the WSGI and ASGI
applications (config/wsgi.py, config/asgi.py: gunicorn, uvicorn), `manage.py serve`, and the
Celery worker and beat (config/celery.py); compose also refuses to start without both
variables. Development (DEBUG, or the embedded default without DATABASE_URL) is exempt:
`make run` keeps a generated key in var/.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

#: values that are public (this repository, its compose file, the docs)
KNOWN_PUBLIC = {
    "postforge-insecure-development-key-change-me-in-production",
    "change-me",
    "changeme",
    "secret",
}


def problems() -> list[tuple[str, str]]:
    if settings.DEVELOPMENT:
        return []
    found = []
    key = settings.SECRET_KEY or ""
    if key in KNOWN_PUBLIC or len(key) < 50 or len(set(key)) < 5:
        found.append(
            (
                "postforge.E001",
                "SECRET_KEY is unset, public or weak: set a random value of 50+ characters "
                "(python -c 'import secrets; print(secrets.token_urlsafe(50))').",
            )
        )
    keys = settings.TOKEN_ENCRYPTION_KEYS
    if isinstance(keys, str):
        keys = keys.split(",")
    if not [k for k in keys or () if k and k.strip()]:
        found.append(
            (
                "postforge.E002",
                "TOKEN_ENCRYPTION_KEYS is unset: set one or more Fernet keys (python -c "
                "'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())').",
            )
        )
    return found


@checks.register(checks.Tags.security, deploy=True)
def check_secrets(app_configs: Sequence[AppConfig] | None = None, **kwargs: Any) -> list[checks.CheckMessage]:
    return [checks.Error(message, id=code) for code, message in problems()]


def require() -> None:
    """Refuse to serve with the problems above."""
    found = problems()
    if found:
        raise ImproperlyConfigured("Postforge refuses to start: " + " ".join(message for _, message in found))


def refuse_to_start(entry: str) -> None:
    """For entry points that are not imported by a server (the Celery worker and beat): print
    the problems and exit non-zero. Signal handlers swallow exceptions, not SystemExit."""
    found = problems()
    if found:
        import sys

        sys.stderr.write(f"Postforge {entry} refuses to start: " + " ".join(m for _, m in found) + "\n")
        raise SystemExit(78)  # EX_CONFIG
