"""Postforge settings: one module, every value switched by environment variables.

With no environment set, Postforge runs on one machine with nothing else installed
(SQLite, local media, in-memory channel layer, a Celery worker and beat on kombu's
filesystem transport). Production sets DATABASE_URL, REDIS_URL and the S3 variables.
"""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False) if (BASE_DIR / ".env").exists() else None

VAR_DIR = Path(env("POSTFORGE_VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="postforge-insecure-development-key-change-me-in-production")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["*"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Public base URL used to build absolute URLs outside a request (tasks, webhooks, OAuth).
PUBLIC_BASE_URL = env("PUBLIC_BASE_URL", default="http://localhost:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "channels",
    "social_django",
    "apps.core",
    "apps.accounts",
    "apps.brands",
    "apps.profiles",
    "apps.media",
    "apps.content",
    "apps.publishing",
    "apps.analytics",
    "apps.webhooks",
    "apps.events",
]

MIDDLEWARE = [
    "apps.core.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'postforge.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Persistent connections suit WSGI workers (set CONN_MAX_AGE=60 for gunicorn). Under ASGI
# every sync view runs in a thread that would keep its own connection, exhausting
# PostgreSQL's max_connections, so the default is 0.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        # IMMEDIATE: a write transaction takes SQLite's lock at BEGIN and waits `timeout`
        # for it; a DEFERRED one that upgrades from read to write fails at once with
        # "database is locked" when the worker, beat and web write together.
        {"timeout": 20, "transaction_mode": "IMMEDIATE",
         "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL", default="")

if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [REDIS_URL]}}
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Celery ---------------------------------------------------------------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
if CELERY_BROKER_URL == "filesystem://":
    _queue_dir = VAR_DIR / "broker"
    for sub in ("in", "processed"):
        (_queue_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir / "in"),
        "data_folder_out": str(_queue_dir / "in"),
        "processed_folder": str(_queue_dir / "processed"),
        "store_processed": False,
    }
else:
    # Visibility timeout above the longest task; schedules never use ETA tasks anyway.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 600
CELERY_TASK_SOFT_TIME_LIMIT = 540
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
#: a provider prediction still without its webhook after this long is fetched by the beat poll
PREDICTION_POLL_AFTER_SECONDS = env.float("PREDICTION_POLL_AFTER_SECONDS", default=60.0)
CELERY_BEAT_SCHEDULE = {
    "dispatch-events": {"task": "apps.events.tasks.dispatch_events", "schedule": 5.0},
    "dispatch-due-publications": {"task": "apps.publishing.tasks.dispatch_due_publications", "schedule": float(env("PUBLISH_DISPATCH_INTERVAL", default="1"))},
    "purge-idempotency-records": {"task": "apps.core.tasks.purge_idempotency_records", "schedule": 3600.0},
    "sweep-publications": {"task": "apps.publishing.tasks.sweep_publications", "schedule": float(env("PUBLISH_SWEEP_INTERVAL", default="30"))},
    "refresh-expiring-tokens": {"task": "apps.publishing.tasks.refresh_expiring_tokens", "schedule": 3600.0},
    # provider predictions still waiting for their webhook after PREDICTION_POLL_AFTER_SECONDS are fetched
    "poll-stale-predictions": {"task": "apps.content.tasks.poll_stale_predictions", "schedule": 30.0,
                               "kwargs": {"older_than_seconds": PREDICTION_POLL_AFTER_SECONDS},
                               "options": {"expires": 30.0}},
}

# --- Storage --------------------------------------------------------------------------
MEDIA_ROOT = env("MEDIA_ROOT", default=str(VAR_DIR / "media"))
MEDIA_URL = env("MEDIA_URL", default="/media/")
STATIC_URL = "/static/"
STATIC_ROOT = env("STATIC_ROOT", default=str(VAR_DIR / "static"))
AWS_STORAGE_BUCKET_NAME = env("AWS_STORAGE_BUCKET_NAME", default=env("S3_BUCKET", default=""))
if AWS_STORAGE_BUCKET_NAME:
    AWS_S3_ENDPOINT_URL = env("AWS_S3_ENDPOINT_URL", default=env("S3_ENDPOINT_URL", default=None))
    AWS_S3_REGION_NAME = env("AWS_S3_REGION_NAME", default=env("AWS_DEFAULT_REGION", default="us-east-1"))
    AWS_ACCESS_KEY_ID = env("AWS_ACCESS_KEY_ID", default=None)
    AWS_SECRET_ACCESS_KEY = env("AWS_SECRET_ACCESS_KEY", default=None)
    AWS_S3_CUSTOM_DOMAIN = env("AWS_S3_CUSTOM_DOMAIN", default=None)
    AWS_QUERYSTRING_AUTH = env.bool("AWS_QUERYSTRING_AUTH", default=False)
    AWS_DEFAULT_ACL = None
    AWS_S3_FILE_OVERWRITE = False
    _default_storage = {"BACKEND": "storages.backends.s3.S3Storage"}
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _default_storage,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
UPLOAD_MAX_IMAGE_BYTES = env.int("UPLOAD_MAX_IMAGE_BYTES", default=20 * 1024 * 1024)
UPLOAD_MAX_VIDEO_BYTES = env.int("UPLOAD_MAX_VIDEO_BYTES", default=500 * 1024 * 1024)

# --- Auth -----------------------------------------------------------------------------
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]
LOGIN_URL = "/admin/login/"
# Family B: OIDC identity provider. Without OIDC_ISSUER, tokens from `manage.py
# issue_token` (signed with the development key below) are trusted.
OIDC_ISSUER = env("OIDC_ISSUER", default="")
OIDC_AUDIENCE = env("OIDC_AUDIENCE", default="postforge")
OIDC_JWKS_URL = env("OIDC_JWKS_URL", default="")
OIDC_ALGORITHMS = env.list("OIDC_ALGORITHMS", default=["RS256", "ES256"])
OIDC_ORG_CLAIM = env("OIDC_ORG_CLAIM", default="org_id")
OIDC_ROLE_CLAIM = env("OIDC_ROLE_CLAIM", default="org_role")
OIDC_JWKS_CACHE_SECONDS = env.int("OIDC_JWKS_CACHE_SECONDS", default=600)
# An unknown kid refetches the key set at most this often (seconds).
OIDC_JWKS_REFRESH_COOLDOWN = env.float("OIDC_JWKS_REFRESH_COOLDOWN", default=30.0)
DEV_TOKEN_ISSUER = "postforge-dev"
DEV_TOKEN_KEY_PATH = env("DEV_TOKEN_KEY_PATH", default=str(VAR_DIR / "dev-token-key.pem"))
# Fernet keys (comma-separated, newest first) that encrypt OAuth tokens at rest.
TOKEN_ENCRYPTION_KEYS = env.list("TOKEN_ENCRYPTION_KEYS", default=[])

# --- API ------------------------------------------------------------------------------
RATE_LIMIT_DEFAULT = env.int("RATE_LIMIT_DEFAULT", default=100)
RATE_LIMIT_GENERATION = env.int("RATE_LIMIT_GENERATION", default=10)
RATE_LIMIT_BATCH = env.int("RATE_LIMIT_BATCH", default=5)
RATE_LIMIT_WINDOW_SECONDS = 60
IDEMPOTENCY_TTL_HOURS = 24

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": ["apps.core.renderers.FastJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "rest_framework.parsers.JSONParser",
        "rest_framework.parsers.MultiPartParser",
        "rest_framework.parsers.FormParser",
    ],
    "EXCEPTION_HANDLER": "apps.core.exceptions.v1_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Postforge API",
    "DESCRIPTION": "AI-generated social media content: generate, review, schedule, publish.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/(v1|api)",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "apps.core.schema.postprocess"],
    "EXTENSIONS_INFO": {},
}

#: mounts the baseline views of bench/api_list.py; never set in production
BENCH_VIEWS = env.bool("POSTFORGE_BENCH_VIEWS", default=False)

# --- Publishing ---------------------------------------------------------------------------
#: how many publications may be in flight at once per platform
PUBLISH_CONCURRENCY_DEFAULT = env.int("PUBLISH_CONCURRENCY_DEFAULT", default=8)
#: at most this many publications wait in the broker at once (the backlog stays in the DB)
PUBLISH_MAX_QUEUED = env.int("PUBLISH_MAX_QUEUED", default=200)
#: due publications travel to the workers in chunks of this many per task
PUBLISH_TASK_CHUNK = env.int("PUBLISH_TASK_CHUNK", default=10)
#: a chunk that has run this long hands its untouched rows back to the broker as a new chunk
PUBLISH_CHUNK_SECONDS = env.float("PUBLISH_CHUNK_SECONDS", default=5.0)
#: one platform call must end within this (clients poll processing for up to 300 s, plus
#: uploads); past it, the sweep takes the row back and the next attempt reconciles first
PUBLISH_LEASE_SECONDS = env.int("PUBLISH_LEASE_SECONDS", default=600)
#: a publication queued this long without a worker taking it is re-enqueued (lost task)
PUBLISH_QUEUED_STUCK_SECONDS = env.int("PUBLISH_QUEUED_STUCK_SECONDS", default=60)
PUBLISH_CONCURRENCY = {"instagram": 4, "threads": 4, "tiktok": 2, "youtube": 2, "x": 8, "linkedin": 4, "pinterest": 4,
                       "facebook": 4, "bluesky": 4}

# --- Generation and platforms ---------------------------------------------------------
GENERATION_ENGINE = env("GENERATION_ENGINE", default="local")  # local, openai, gemini, replicate
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")  # also Ollama, vLLM, LM Studio
OPENAI_TEXT_MODEL = env("OPENAI_TEXT_MODEL", default="")
OPENAI_IMAGE_MODEL = env("OPENAI_IMAGE_MODEL", default="")
OPENAI_VIDEO_MODEL = env("OPENAI_VIDEO_MODEL", default="")
GEMINI_API_KEY = env("GEMINI_API_KEY", default="")
GEMINI_BASE_URL = env("GEMINI_BASE_URL", default="")
GEMINI_TEXT_MODEL = env("GEMINI_TEXT_MODEL", default="")
GEMINI_IMAGE_MODEL = env("GEMINI_IMAGE_MODEL", default="")
GEMINI_VIDEO_MODEL = env("GEMINI_VIDEO_MODEL", default="")
REPLICATE_API_TOKEN = env("REPLICATE_API_TOKEN", default="")
REPLICATE_BASE_URL = env("REPLICATE_BASE_URL", default="")
REPLICATE_TEXT_MODEL = env("REPLICATE_TEXT_MODEL", default="")
REPLICATE_IMAGE_MODEL = env("REPLICATE_IMAGE_MODEL", default="")
REPLICATE_VIDEO_MODEL = env("REPLICATE_VIDEO_MODEL", default="")
REPLICATE_WEBHOOK_SECRET = env("REPLICATE_WEBHOOK_SECRET", default="")
#: public URL of /webhook/replicate; with it (and GENERATION_ENGINE=replicate) generations are
#: submitted as predictions and completed by the webhook, without it the engine polls
REPLICATE_WEBHOOK_URL = env("REPLICATE_WEBHOOK_URL", default="")
#: retries of a retryable provider error before the content fails
GENERATION_MAX_RETRIES = env.int("GENERATION_MAX_RETRIES", default=3)

# --- OAuth connect (apps.publishing.oauth) ----------------------------------------------
# A platform with both values connects for real, otherwise through the sandbox consent page.
for _platform in ("INSTAGRAM", "FACEBOOK", "TIKTOK", "YOUTUBE", "LINKEDIN", "X", "THREADS", "PINTEREST"):
    globals()[f"{_platform}_CLIENT_ID"] = env(f"{_platform}_CLIENT_ID", default="")
    globals()[f"{_platform}_CLIENT_SECRET"] = env(f"{_platform}_CLIENT_SECRET", default="")
# Base URL the providers return to (/oauth/<platform>/callback); defaults to PUBLIC_BASE_URL.
OAUTH_CALLBACK_BASE_URL = env("OAUTH_CALLBACK_BASE_URL", default=PUBLIC_BASE_URL).rstrip("/")
# {platform: {"authorize", "token", "refresh", "exchange", "api"}}: other OAuth/API endpoints.
OAUTH_ENDPOINT_OVERRIDES = env.json("OAUTH_ENDPOINT_OVERRIDES", default={})
OAUTH_APP_NAME = env("OAUTH_APP_NAME", default="Postforge")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}
