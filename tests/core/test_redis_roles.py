"""Redis's three roles on their own URLs (issue 33): the broker (CELERY_BROKER_URL), caches and
rate limits (CACHE_REDIS_URL) and the channel layer (CHANNELS_REDIS_URL), each defaulting to
REDIS_URL. An operator can put the broker on a persistent Redis and the cache on an evicting one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROLES = ("REDIS_URL", "CACHE_REDIS_URL", "CHANNELS_REDIS_URL", "CELERY_BROKER_URL")


def _settings(tmp_path: Path, **env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ROLES}
    clean.update(
        env, POSTFORGE_VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="config.settings"
    )
    code = (
        "import django, json; django.setup(); from django.conf import settings as s;"
        "from apps.core import redisconn;"
        "print(json.dumps({'cache': s.CACHES['default'].get('LOCATION'), "
        "'channels': s.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('hosts'), "
        "'broker': s.CELERY_BROKER_URL, 'limits': redisconn.cache_url(), 'layer': redisconn.channels_url()}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=clean, cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_each_role_defaults_to_redis_url(tmp_path):
    url = "redis://127.0.0.1:6379/3"
    found = _settings(tmp_path, REDIS_URL=url)
    assert found == {"cache": url, "channels": [url], "broker": url, "limits": url, "layer": url}


def test_each_role_takes_its_own_url(tmp_path):
    found = _settings(
        tmp_path,
        REDIS_URL="redis://main:6379/0",
        CACHE_REDIS_URL="redis://cache:6379/0",
        CHANNELS_REDIS_URL="redis://channels:6379/0",
        CELERY_BROKER_URL="redis://broker:6379/0",
    )
    assert found == {
        "cache": "redis://cache:6379/0",
        "channels": ["redis://channels:6379/0"],
        "broker": "redis://broker:6379/0",
        "limits": "redis://cache:6379/0",
        "layer": "redis://channels:6379/0",
    }


def test_without_any_redis_the_embedded_default_keeps_everything_in_the_process(tmp_path):
    found = _settings(tmp_path)
    assert found["cache"] is None and found["broker"] == "filesystem://" and found["limits"] == ""


@pytest.mark.services
def test_rate_limits_count_in_the_cache_redis_not_the_broker(settings):
    """The rate limiter's counters land in CACHE_REDIS_URL's database (a second db number of
    this run's Redis), none in the broker's."""
    import redis

    from apps.core import ratelimit, redisconn

    broker_db = int(settings.REDIS_URL.rsplit("/", 1)[1] or 0)
    cache_url = settings.REDIS_URL.rsplit("/", 1)[0] + f"/{broker_db + 1}"
    settings.CACHE_REDIS_URL = cache_url
    credential = f"roles-test-{os.getpid()}"
    ratelimit.hit(credential, "default", limit=10)
    cache_keys = redisconn.client(cache_url).keys(f"pf:rl:default:{credential}:*")
    broker_keys = redis.Redis.from_url(settings.REDIS_URL).keys(f"pf:rl:default:{credential}:*")
    redisconn.client(cache_url).delete(*cache_keys) if cache_keys else None
    assert len(cache_keys) == 1 and broker_keys == []
