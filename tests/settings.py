"""The test run's settings: ``config.settings`` with what a deployment must set itself.

Outside development (the suite runs on PostgreSQL and Redis) the service refuses a public
SECRET_KEY or missing TOKEN_ENCRYPTION_KEYS (apps/core/secrets_policy.py), in every entry
point the tests start (WSGI, ASGI, serve). The run makes its own, once per session; child
processes (servers, workers) inherit them through the environment, so they read the same
sessions and tokens. The client application of the tests returns to https://app.example.com.
"""

import os
import secrets
import tempfile

from cryptography.fernet import Fernet

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ.setdefault("TOKEN_ENCRYPTION_KEYS", Fernet.generate_key().decode())
os.environ.setdefault("OAUTH_ALLOWED_REDIRECT_ORIGINS", "https://app.example.com")
# The test deployment offers every platform through the sandbox on purpose (outside development
# an operator must list them; tests/publishing/test_sandbox_production.py checks the refusal).
# The test deployment's platform apps passed their reviews; the gates have their own tests
# (tests/publishing/test_app_gates.py).
os.environ.setdefault("YOUTUBE_PROJECT_AUDITED", "1")
# Bluesky's directory and PLC host are the fake PDS of the test that needs them; elsewhere (the
# schema fuzzers) a closed local port answers at once, never the real network.
os.environ.setdefault("BLUESKY_SERVICE_URL", "http://127.0.0.1:9")
os.environ.setdefault("BLUESKY_PLC_DIRECTORY_URL", "http://127.0.0.1:9/plc")
# The one test-only seam of the outbound SSRF rules (apps/core/outbound.py): the tests' local
# fakes (a PDS, a video service, link-card pages, provider downloads) listen on this machine,
# so its loopback is exempt; a test of the rules themselves sets OUTBOUND_ALLOWED_CIDRS = [].
os.environ.setdefault("OUTBOUND_ALLOWED_CIDRS", "127.0.0.0/8,::1/128")
os.environ.setdefault("TIKTOK_APP_AUDITED", "1")
# The hosts the tests serve media from, as verified in the TikTok developer portal (PULL_FROM_URL)
os.environ.setdefault("TIKTOK_VERIFIED_URL_PREFIXES", "postforge.test,postforge.dev")
os.environ.setdefault(
    "SANDBOX_PLATFORMS", "instagram,facebook,tiktok,youtube,linkedin,x,threads,pinterest,bluesky"
)


def _isolate_xdist_worker(worker: str) -> None:
    """One pytest-xdist worker (gw0, gw1, ...) shares nothing with the others: its own var/
    folder (SQLite files, the filesystem broker, the relay spool, secrets), event tap, Redis
    database (REDIS_URL's number plus the worker's index: the cache, rate limits, Celery's queues)
    and channel-layer prefix (Redis pub/sub channels are not per database). Servers and workers
    the tests start inherit it through the environment; POSTFORGE_TEST_WORKER says it was done,
    so their own import of these settings keeps it."""
    from pathlib import Path
    from urllib.parse import urlsplit, urlunsplit

    os.environ["POSTFORGE_TEST_WORKER"] = worker
    index = int(worker.removeprefix("gw") or 0)
    root = Path(__file__).resolve().parent.parent
    var = Path(os.environ.get("POSTFORGE_VAR_DIR", root / "var")) / "xdist" / worker
    var.mkdir(parents=True, exist_ok=True)
    os.environ["POSTFORGE_VAR_DIR"] = str(var)
    os.environ["EVENTS_TAP_PATH"] = os.path.join(
        tempfile.mkdtemp(prefix=f"postforge-events-tap-{worker}-"), "events.jsonl"
    )
    os.environ["CHANNEL_LAYER_PREFIX"] = f"asgi-{worker}"
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CACHE_REDIS_URL", "CHANNELS_REDIS_URL"):
        url = os.environ.get(name, "")
        if not url.startswith(("redis://", "rediss://")):
            continue
        parts = urlsplit(url)
        db = int(parts.path.strip("/") or 0) + index
        if db > 15:
            raise RuntimeError(
                f"{name} {url} has no Redis database for xdist worker {worker} (16 per server)"
            )
        os.environ[name] = urlunsplit(parts._replace(path=f"/{db}"))


_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker and os.environ.get("POSTFORGE_TEST_WORKER") != _worker:
    _isolate_xdist_worker(_worker)

# every websocket message of the run, from this process and the servers and workers it starts,
# is recorded there and checked against the AsyncAPI documents (tests/conftest.py)
os.environ.setdefault(
    "EVENTS_TAP_PATH", os.path.join(tempfile.mkdtemp(prefix="postforge-events-tap-"), "events.jsonl")
)

from config.settings import *  # noqa: E402,F403

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # The embedded default's test database is a file, as the service's own is (config.settings:
    # WAL, BEGIN IMMEDIATE, a 20 s busy timeout), not Django's in-memory shared-cache database,
    # whose table locks fail concurrent writers at once ("database table is locked") where the
    # file waits its turn: the tests that send ten requests at once then test what runs.
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.path.join(tempfile.mkdtemp(prefix="postforge-test-db-"), "test.sqlite3")
    }
