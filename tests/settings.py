"""The test run's settings: ``config.settings`` with what a deployment must set itself.

Outside development (the suite runs on PostgreSQL and Redis) the service refuses a public
SECRET_KEY or missing TOKEN_ENCRYPTION_KEYS (apps/core/secrets_policy.py), in every entry
point the tests start (WSGI, ASGI, serve). The run makes its own, once per session; child
processes (servers, workers) inherit them through the environment, so they read the same
sessions and tokens. The client application of the tests returns to https://app.example.com.
"""

import os
import secrets

from cryptography.fernet import Fernet

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ.setdefault("TOKEN_ENCRYPTION_KEYS", Fernet.generate_key().decode())
os.environ.setdefault("OAUTH_ALLOWED_REDIRECT_ORIGINS", "https://app.example.com")
# The test deployment offers every platform through the sandbox on purpose (outside development
# an operator must list them; tests/publishing/test_sandbox_production.py checks the refusal).
os.environ.setdefault(
    "SANDBOX_PLATFORMS", "instagram,facebook,tiktok,youtube,linkedin,x,threads,pinterest,bluesky"
)

from config.settings import *  # noqa: E402,F403
