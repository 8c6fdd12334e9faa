"""Postforge settings: one module, every value switched by environment variables.

With no environment set, Postforge runs on one machine with nothing else installed
(SQLite, local media, in-memory channel layer, a Celery worker and beat on kombu's
filesystem transport). Production sets DATABASE_URL, REDIS_URL and the S3 variables.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False) if (BASE_DIR / ".env").exists() else None

VAR_DIR = Path(env("POSTFORGE_VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DEBUG", default=False)
# Development (DEBUG, or the embedded default: no DATABASE_URL) may run without configured
# secrets; anywhere else apps/core/secrets_policy.py refuses a public SECRET_KEY.
DEVELOPMENT = DEBUG or not env("DATABASE_URL", default="")


def _kept_secret(name: str) -> str:
    """A random secret generated once and kept in var/ (`make run` and `serve`)."""
    import secrets as _secrets

    path = VAR_DIR / name
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(_secrets.token_urlsafe(50))
        tmp.chmod(0o600)
        tmp.replace(path)
    return path.read_text().strip()


SECRET_KEY = env("SECRET_KEY", default="") or (
    _kept_secret("secret_key")
    if DEVELOPMENT
    else "postforge-insecure-development-key-change-me-in-production"
)
# Public base URL of every absolute URL the service hands out (media, OAuth callbacks,
# webhooks): never taken from a request's Host header.
PUBLIC_BASE_URL = env("PUBLIC_BASE_URL", default="http://localhost:8000").rstrip("/")
#: origins whose forms (the admin's login among them) pass the CSRF check besides the request's
#: own: PUBLIC_BASE_URL's origin, port included, always (a proxy that drops the port from Host,
#: or a non-default port, would otherwise refuse the admin login), and any listed here
CSRF_TRUSTED_ORIGINS = list(
    dict.fromkeys(
        [
            *env.list("CSRF_TRUSTED_ORIGINS", default=[]),
            f"{urlsplit(PUBLIC_BASE_URL).scheme}://{urlsplit(PUBLIC_BASE_URL).netloc}",
        ]
    )
)
# Development answers any Host; otherwise only the public host and loopback (health checks).
# Behind TLS (an https PUBLIC_BASE_URL) cookies are secure-only; TLS itself, the redirect to
# it and HSTS are the reverse proxy's (docs/deploy.md), hence the two silenced deploy checks.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = PUBLIC_BASE_URL.startswith("https://")
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SILENCED_SYSTEM_CHECKS = env.list("SILENCED_SYSTEM_CHECKS", default=["security.W004", "security.W008"])
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    default=["*"]
    if DEVELOPMENT
    else sorted({urlsplit(PUBLIC_BASE_URL).hostname or "localhost", "localhost", "127.0.0.1", "[::1]"}),
)

INSTALLED_APPS = [
    "apps.core.admin_config.PostforgeAdminConfig",  # django.contrib.admin with Postforge's one site
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "social_django",
    "apps.core",
    "apps.accounts",
    "apps.brands",
    "apps.profiles",
    "apps.media",
    "apps.content",
    "apps.generation",
    "apps.publishing",
    "apps.analytics",
    "apps.webhooks",
    "apps.events",
    "apps.agents",
]

MIDDLEWARE = [
    "apps.core.middleware.RequestIdMiddleware",
    # request counts and latencies per route family (apps/core/metrics.py, GET /metrics)
    "apps.core.metrics.MetricsMiddleware",
    # probes answered before the Host header is checked (a kubelet's Host is the pod's address)
    "apps.core.health.ProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # static files from the application in every layout (uvicorn and gunicorn serve none)
    "whitenoise.middleware.WhiteNoiseMiddleware",
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
#: a request that found the database away (a restart, a failover) is a 503 with this Retry-After
DATABASE_UNAVAILABLE_RETRY_AFTER = env.int("DATABASE_UNAVAILABLE_RETRY_AFTER", default=5)
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
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
#: DATABASE_URL is PgBouncer in transaction mode (issue 33): each transaction may run on another
#: server connection, so nothing may outlive one: no server-side cursors (Django's
#: DISABLE_SERVER_SIDE_CURSORS; streaming reads page by key instead) and no prepared statements
#: (psycopg's prepare_threshold None). Migrations go to MIGRATE_DATABASE_URL (direct).
PGBOUNCER = env.bool("PGBOUNCER", default=False)
if PGBOUNCER and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"prepare_threshold": None, "server_side_binding": False}
    )
# `manage.py migrate` (apps/core/management/commands/migrate.py): on this direct URL when set
# (DATABASE_URL may be PgBouncer in transaction mode), failing after MIGRATE_LOCK_TIMEOUT when
# a long transaction holds a table it alters (PostgreSQL's lock_timeout; "" for none)
MIGRATE_DATABASE_URL = env("MIGRATE_DATABASE_URL", default="")
MIGRATE_LOCK_TIMEOUT = env("MIGRATE_LOCK_TIMEOUT", default="5s")
DATABASE_NAME_CONFIGURED = str(DATABASES["default"]["NAME"])

REDIS_URL = env("REDIS_URL", default="")
#: the bearer token Prometheus scrapes /metrics with; without it /metrics answers only in development
METRICS_TOKEN = env("METRICS_TOKEN", default="")
# Redis's three roles (issue 33), each on its own URL when set, else on REDIS_URL: the Celery
# broker (CELERY_BROKER_URL, below), caches and rate limits (CACHE_REDIS_URL: also the
# websocket caps) and the channel layer (CHANNELS_REDIS_URL). apps.core.redisconn reads them.
CACHE_REDIS_URL = env("CACHE_REDIS_URL", default="")
CHANNELS_REDIS_URL = env("CHANNELS_REDIS_URL", default="")

if CACHE_REDIS_URL or REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_REDIS_URL or REDIS_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if CHANNELS_REDIS_URL or REDIS_URL:
    #: "pubsub" (one publish per group, each web process fans out to its own sockets) or
    #: "core" (channels-redis lists: one copy per socket, popped one by one); the pub/sub
    #: layer costs the websocket server half the CPU per event (docs/benchmarks.md, realtime)
    CHANNEL_LAYER = env("CHANNEL_LAYER", default="pubsub")
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": {
                "core": "channels_redis.core.RedisChannelLayer",
                # channels-redis's pub/sub layer, each group message decoded once per process
                "pubsub": "apps.events.layers.SharedPubSubChannelLayer",
            }[CHANNEL_LAYER],
            # pub/sub channels are not per Redis database: processes sharing one Redis (the
            # test suite's parallel workers) keep apart with their own prefix
            "CONFIG": {
                "hosts": [CHANNELS_REDIS_URL or REDIS_URL],
                "prefix": env("CHANNEL_LAYER_PREFIX", default="asgi"),
            },
        }
    }
else:
    # in memory in the web process; the worker's messages and the outbox reach it through
    # the relay that apps.events.layers describes (no server needed)
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "apps.events.layers.RelayedInMemoryChannelLayer",
            "CONFIG": {"spool": str(VAR_DIR / "relay")},
        }
    }

# --- Celery ---------------------------------------------------------------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
if CELERY_BROKER_URL == "filesystem://":
    _queue_dir = VAR_DIR / "broker"
    for sub in ("in", "processed", "control"):
        (_queue_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir / "in"),
        "data_folder_out": str(_queue_dir / "in"),
        "processed_folder": str(_queue_dir / "processed"),
        # kombu's fanout/broadcast exchange table (default: ./control in the working directory)
        "control_folder": str(_queue_dir / "control"),
        "store_processed": False,
        # a worker looks for messages every polling_interval when its queues were empty (kombu's
        # default, 1 s, held generations to about one a second: issue 33, bench/beat.py)
        "polling_interval": env.float("FILESYSTEM_BROKER_POLLING_INTERVAL", default=0.1),
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
# graceful stops (issue 33): with REMAP_SIGTERM=SIGQUIT in a worker's environment (compose,
# deploy/k8s), SIGTERM starts Celery's soft shutdown: running tasks get this long to finish,
# then what is left goes back to its queue (late acks); the stop grace periods are longer
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = env.float(
    "CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT", default=float(CELERY_TASK_TIME_LIMIT)
)
#: beat sends a periodic task only when its previous copy has started (apps.core.beat)
#: (celery.beat:PersistentScheduler: plain beat, bench/beat.py's baseline)
CELERY_BEAT_SCHEDULER = env("CELERY_BEAT_SCHEDULER", default="apps.core.beat:Scheduler")
#: a tick's marker expires after ten intervals, and at least this long (a copy lost with its worker)
BEAT_TICK_MARKER_MIN_SECONDS = env.int("BEAT_TICK_MARKER_MIN_SECONDS", default=60)
#: tries of an event fan-out that met a transient error (database or Redis away) before the
#: outbox sweep is left to send it (apps.events.tasks)
EVENTS_DISPATCH_MAX_RETRIES = env.int("EVENTS_DISPATCH_MAX_RETRIES", default=5)
#: the test suite's record of every websocket message (apps/events/tap.py); unset in deployments
EVENTS_TAP_PATH = env("EVENTS_TAP_PATH", default="")
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
#: a provider prediction still without its webhook after this long is fetched by the beat poll
PREDICTION_POLL_AFTER_SECONDS = env.float("PREDICTION_POLL_AFTER_SECONDS", default=60.0)
#: OAuth tokens: the beat refreshes those expiring within TOKEN_REFRESH_AHEAD_SECONDS every
#: TOKEN_REFRESH_INTERVAL_SECONDS (Google's 3,599 s tokens are tried three times before they run
#: out); a publish refreshes a token expiring within TOKEN_REFRESH_BEFORE_USE_SECONDS first.
TOKEN_REFRESH_INTERVAL_SECONDS = env.float("TOKEN_REFRESH_INTERVAL_SECONDS", default=600.0)
TOKEN_REFRESH_AHEAD_SECONDS = env.float("TOKEN_REFRESH_AHEAD_SECONDS", default=1800.0)
TOKEN_REFRESH_BEFORE_USE_SECONDS = env.float("TOKEN_REFRESH_BEFORE_USE_SECONDS", default=600.0)
#: analytics pulls: hourly for posts younger than this many hours, daily until this many days, weekly after
ANALYTICS_HOURLY_UNTIL_HOURS = env.int("ANALYTICS_HOURLY_UNTIL_HOURS", default=48)
ANALYTICS_DAILY_UNTIL_DAYS = env.int("ANALYTICS_DAILY_UNTIL_DAYS", default=30)
#: a platform that answered 429 without Retry-After is left alone this long
ANALYTICS_BACKOFF_SECONDS = env.int("ANALYTICS_BACKOFF_SECONDS", default=900)
#: the due sweeps (seconds); each claims what is due in chunks with a lease renewed before every pull,
#: so a pull lost to a killed worker or a Redis restart is taken again once its lease runs out
ANALYTICS_SWEEP_INTERVAL = env.float("ANALYTICS_SWEEP_INTERVAL", default=600.0)
ANALYTICS_FOLLOWERS_INTERVAL = env.float("ANALYTICS_FOLLOWERS_INTERVAL", default=3600.0)
ANALYTICS_LEASE_SECONDS = env.int("ANALYTICS_LEASE_SECONDS", default=300)
ANALYTICS_CHUNK_SIZE = env.int("ANALYTICS_CHUNK_SIZE", default=25)
# a platform's webhook (a new comment or reply) pulls a post's metrics at once, at most once
# in this many seconds per post
ANALYTICS_PUSH_MIN_SECONDS = env.int("ANALYTICS_PUSH_MIN_SECONDS", default=300)
CELERY_BEAT_SCHEDULE = {
    # the sweep finds what is due from the database (hourly / daily / weekly by post age)
    "collect-due-metrics": {
        "task": "apps.analytics.tasks.collect_due_metrics",
        "schedule": ANALYTICS_SWEEP_INTERVAL,
        "options": {"queue": "analytics", "expires": ANALYTICS_SWEEP_INTERVAL},
    },
    "collect-followers": {
        "task": "apps.analytics.tasks.collect_followers",
        "schedule": ANALYTICS_FOLLOWERS_INTERVAL,
        "options": {"queue": "analytics", "expires": ANALYTICS_FOLLOWERS_INTERVAL},
    },
    "dispatch-events": {"task": "apps.events.tasks.dispatch_events", "schedule": 5.0},
    "dispatch-due-publications": {
        "task": "apps.publishing.tasks.dispatch_due_publications",
        "schedule": float(env("PUBLISH_DISPATCH_INTERVAL", default="1")),
    },
    "purge-idempotency-records": {"task": "apps.core.tasks.purge_idempotency_records", "schedule": 3600.0},
    "sweep-generations": {
        "task": "apps.content.tasks.sweep_generations",
        "schedule": float(env("GENERATION_SWEEP_INTERVAL", default="30")),
    },
    "sweep-publications": {
        "task": "apps.publishing.tasks.sweep_publications",
        "schedule": float(env("PUBLISH_SWEEP_INTERVAL", default="15")),
    },
    "refresh-expiring-tokens": {
        "task": "apps.publishing.tasks.refresh_expiring_tokens",
        "schedule": TOKEN_REFRESH_INTERVAL_SECONDS,
    },
    # posts a platform is still processing (TikTok moderation): their next status read
    "poll-processing-publications": {
        "task": "apps.publishing.tasks.poll_processing_publications",
        "schedule": float(env("PUBLISH_PROCESSING_POLL_INTERVAL", default="10")),
        "options": {"expires": 30.0},
    },
    # provider predictions still waiting for their webhook after PREDICTION_POLL_AFTER_SECONDS are fetched
    # webhook deliveries due (retries, leases of killed workers, endpoints that had no room)
    "sweep-webhook-deliveries": {
        "task": "apps.webhooks.tasks.sweep_deliveries",
        "schedule": 1.0,
        "options": {"expires": 5.0},
    },
    "prune-webhook-logs": {"task": "apps.webhooks.tasks.prune_logs", "schedule": 3600.0},
    "sweep-inbound-webhooks": {
        "task": "apps.webhooks.tasks.sweep_inbound",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    "poll-stale-predictions": {
        "task": "apps.content.tasks.poll_stale_predictions",
        "schedule": 30.0,
        "kwargs": {"older_than_seconds": PREDICTION_POLL_AFTER_SECONDS},
        "options": {"expires": 30.0},
    },
}

# --- Storage --------------------------------------------------------------------------
MEDIA_ROOT = env("MEDIA_ROOT", default=str(VAR_DIR / "media"))
MEDIA_URL = env("MEDIA_URL", default="/media/")
STATIC_URL = "/static/"
STATIC_ROOT = env("STATIC_ROOT", default=str(VAR_DIR / "static"))
# WhiteNoise serves STATIC_ROOT (collected: compressed, fingerprinted, cached for a year) and,
# for a process started before any `collectstatic`, the apps' own static folders.
WHITENOISE_USE_FINDERS = True
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "apps.core.redoc.RedocFinder",  # ReDoc's bundle without its CDN logo
]
Path(STATIC_ROOT).mkdir(parents=True, exist_ok=True)
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
    # compressed, fingerprinted (hashed names, cached forever); needs `collectstatic`
    "staticfiles": {"BACKEND": "apps.core.staticfiles.StaticFilesStorage"},
}
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
UPLOAD_MAX_IMAGE_BYTES = env.int("UPLOAD_MAX_IMAGE_BYTES", default=20 * 1024 * 1024)
UPLOAD_MAX_VIDEO_BYTES = env.int("UPLOAD_MAX_VIDEO_BYTES", default=500 * 1024 * 1024)
# a brand's own font (issue 30): a full CJK OpenType font is ~16-25 MB
UPLOAD_MAX_FONT_BYTES = env.int("UPLOAD_MAX_FONT_BYTES", default=30 * 1024 * 1024)

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
# Tokens issued for longer than this (exp - iat, seconds) are refused.
OIDC_MAX_TOKEN_AGE = env.int("OIDC_MAX_TOKEN_AGE", default=24 * 3600)
DEV_TOKEN_ISSUER = "postforge-dev"
DEV_TOKEN_KEY_PATH = env("DEV_TOKEN_KEY_PATH", default=str(VAR_DIR / "dev-token-key.pem"))
# Fernet keys (comma-separated, newest first) that encrypt OAuth tokens at rest.
TOKEN_ENCRYPTION_KEYS = env.list("TOKEN_ENCRYPTION_KEYS", default=[])

# --- API ------------------------------------------------------------------------------
RATE_LIMIT_DEFAULT = env.int("RATE_LIMIT_DEFAULT", default=100)
RATE_LIMIT_GENERATION = env.int("RATE_LIMIT_GENERATION", default=10)
RATE_LIMIT_BATCH = env.int("RATE_LIMIT_BATCH", default=5)
#: items per /api/batch/generate (each is also charged to the generation rate limit)
BATCH_MAX_ITEMS = env.int("BATCH_MAX_ITEMS", default=50)
RATE_LIMIT_WINDOW_SECONDS = 60
# Billing plans (apps.accounts.plans): limits per plan, set on an organization by the billing
# webhook (customer.subscription.*). A null or missing limit is none.
PLANS = env.json(
    "PLANS",
    default={
        "free": {
            "generationsPerMonth": 30,
            "profiles": 3,
            "requestsPerMinute": 60,
            "generationsPerMinute": 5,
            "batchesPerMinute": 2,
        },
        "pro": {
            "generationsPerMonth": 1000,
            "profiles": 25,
            "requestsPerMinute": 300,
            "generationsPerMinute": 30,
            "batchesPerMinute": 10,
        },
        "business": {
            "generationsPerMonth": 10000,
            "profiles": 150,
            "requestsPerMinute": 1000,
            "generationsPerMinute": 100,
            "batchesPerMinute": 30,
        },
    },
)
#: the plan of an organization that never had a subscription ("" = no plan limits)
PLAN_DEFAULT = env("PLAN_DEFAULT", default="")
#: the plan an organization falls back to when its subscription ends
PLAN_AFTER_CANCEL = env("PLAN_AFTER_CANCEL", default="free")
#: Stripe price ids to plan names, e.g. {"price_1Nxyz": "pro"} (a price's lookup_key or a
#: `plan` metadata entry naming a plan is used first)
STRIPE_PRICE_PLANS = env.json("STRIPE_PRICE_PLANS", default={})
# Failed authentications (401) allowed per client address per window; past it, that address's
# requests without credentials, or with credentials that fail, are answered 429 (valid
# credentials always go through) (0: no limit).
AUTH_FAILURE_LIMIT = env.int("AUTH_FAILURE_LIMIT", default=30)
# Reverse proxies (CIDRs) whose X-Forwarded-For names the client (apps/core/proxies.py): set it
# to your proxy's address, or every client behind it shares the proxy's failure budget
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# Websockets (/ws/events/): open sockets allowed per credential and per organization (0: no cap).
WS_MAX_CONNECTIONS_PER_CREDENTIAL = env.int("WS_MAX_CONNECTIONS_PER_CREDENTIAL", default=20)
WS_MAX_CONNECTIONS_PER_ORGANIZATION = env.int("WS_MAX_CONNECTIONS_PER_ORGANIZATION", default=200)
IDEMPOTENCY_TTL_HOURS = 24
#: an in-progress Idempotency-Key is held this long (plus the request's `wait`); past it a retry runs again
IDEMPOTENCY_LEASE_SECONDS = env.int("IDEMPOTENCY_LEASE_SECONDS", default=60)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "apps.core.schema.PostforgeAutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],  # per family, below
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": ["apps.core.renderers.FastJSONRenderer"],
    # JSON bodies only; the upload endpoints declare MultiPartParser themselves (issue 10)
    "DEFAULT_PARSER_CLASSES": ["apps.core.parsers.SafeJSONParser"],
    "EXCEPTION_HANDLER": "apps.core.exceptions.v1_exception_handler",
}
#: authentication of each API family (apps.core.views' bases): keys in /v1, keys or IdP JWTs in /api
V1_AUTHENTICATION_CLASSES = ["apps.accounts.auth.ApiKeyAuthentication"]
API_AUTHENTICATION_CLASSES = ["apps.accounts.auth.ApiKeyOrJWTAuthentication"]
SPECTACULAR_SETTINGS = {
    "TITLE": "Postforge API",
    "DESCRIPTION": "AI-generated social media content: generate, review, schedule, publish.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/(v1|api)",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.core.schema.postprocess",
    ],
    "EXTENSIONS_INFO": {},
    # one name per closed set, the same wherever it appears (a request's or a response's field):
    # without these, a set named by fields of different names gets a hash suffix
    "ENUM_NAME_OVERRIDES": {
        "PlatformEnum": "apps.platforms.rules.SUPPORTED_PLATFORMS",
        "ProfilePlatformEnum": "apps.profiles.models.PLATFORMS",
        "ContentStatusEnum": "apps.content.states.STATUS_WORDS_A",
        "ContentStatusBEnum": "apps.content.states.STATUS_WORDS_B",
        "ContentActionEnum": "apps.content.states.CLIENT_ACTIONS",
        "PublicationStatusEnum": "apps.content.serializers.PUBLICATION_STATUSES",
        "MediaTypeEnum": "apps.content.models.MEDIA_TYPES",
        "EventTypeEnum": "apps.webhooks.services.EVENT_TYPES",
        "TokenStatusEnum": "apps.profiles.models.TOKEN_STATUSES",
        "IntentEnum": "apps.platforms.intents.INTENTS",
        "IntentSourceEnum": "apps.content.serializers.INTENT_SOURCES",
    },
    # Swagger UI and ReDoc from the service itself (drf-spectacular-sidecar), never a CDN
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # the sidecar's bundle without its logo from cdn.redoc.ly (apps.core.redoc)
    "REDOC_DIST": "/static/postforge/redoc",
}

#: requests one address may make to one outside-approver link per rate window (issue 21)
APPROVAL_LINK_RATE_LIMIT = env.int("APPROVAL_LINK_RATE_LIMIT", default=60)
#: links that do not work (made-up, expired, withdrawn) one client may open per rate window;
#: past it the client's next links are not looked at until the window ends (issue 28)
APPROVAL_LINK_FAILURE_LIMIT = env.int("APPROVAL_LINK_FAILURE_LIMIT", default=20)

#: mounts the baseline views of bench/api_list.py; never set in production
BENCH_VIEWS = env.bool("POSTFORGE_BENCH_VIEWS", default=False)
if BENCH_VIEWS:  # and its baseline task (bench.baseline.tasks.bench_noop)
    INSTALLED_APPS.append("bench.baseline")

# --- Publishing ---------------------------------------------------------------------------
#: how many publications may be in flight at once per platform
PUBLISH_CONCURRENCY_DEFAULT = env.int("PUBLISH_CONCURRENCY_DEFAULT", default=8)
#: at most this many publications wait in the broker at once (the backlog stays in the DB)
PUBLISH_MAX_QUEUED = env.int("PUBLISH_MAX_QUEUED", default=200)
#: due publications travel to the workers in chunks of this many per task
PUBLISH_TASK_CHUNK = env.int("PUBLISH_TASK_CHUNK", default=10)
#: a chunk that has run this long hands its untouched rows back to the broker as a new chunk
PUBLISH_CHUNK_SECONDS = env.float("PUBLISH_CHUNK_SECONDS", default=5.0)
#: a running chunk's lease, renewed every PUBLISH_HEARTBEAT_SECONDS while it runs (long
#: uploads and processing polls included); once a dead worker stops renewing, the sweep takes
#: its rows back within a minute and the next attempt reconciles first
PUBLISH_LEASE_SECONDS = env.int("PUBLISH_LEASE_SECONDS", default=45)
PUBLISH_HEARTBEAT_SECONDS = env.float("PUBLISH_HEARTBEAT_SECONDS", default=30)
#: a publication queued this long without a worker taking it is re-enqueued (lost task)
PUBLISH_QUEUED_STUCK_SECONDS = env.int("PUBLISH_QUEUED_STUCK_SECONDS", default=60)
#: a post the platform is still processing (TikTok: moderation before the post id exists) is
#: read again after these delays in seconds (the last repeats), for at most
#: PUBLISH_PROCESSING_MAX_SECONDS; then it is published without its id, or `unknown`
PUBLISH_PROCESSING_POLL_DELAYS = [
    float(x)
    for x in env.list("PUBLISH_PROCESSING_POLL_DELAYS", default=["20", "30", "60", "120", "300", "600"])
]
#: TikTok audited the app: without it TikTok accepts only SELF_ONLY posts (profiles say so)
TIKTOK_APP_AUDITED = env.bool("TIKTOK_APP_AUDITED", default=False)
#: domains (their subdomains too) and https URL prefixes verified in the TikTok developer portal
#: (URL properties): TikTok pulls photos (PULL_FROM_URL) only from those; checked before init
TIKTOK_VERIFIED_URL_PREFIXES = env.list("TIKTOK_VERIFIED_URL_PREFIXES", default=[])
#: Google audited the YouTube API project: without it every upload is locked private
YOUTUBE_PROJECT_AUDITED = env.bool("YOUTUBE_PROJECT_AUDITED", default=False)
#: Pinterest granted Standard access: without it (Trial) writes go to PINTEREST_API_URL's sandbox
PINTEREST_STANDARD_ACCESS = env.bool("PINTEREST_STANDARD_ACCESS", default=False)
#: the Pinterest API host: https://api-sandbox.pinterest.com for Trial-access apps
PINTEREST_API_URL = env("PINTEREST_API_URL", default="").rstrip("/")
#: the operator's X API access tier: free, basic, pro or enterprise (Free reads no posts back)
X_API_TIER = env("X_API_TIER", default="free")
PUBLISH_PROCESSING_MAX_SECONDS = env.int("PUBLISH_PROCESSING_MAX_SECONDS", default=24 * 3600)
PUBLISH_CONCURRENCY = {
    "instagram": 4,
    "threads": 4,
    "tiktok": 2,
    "youtube": 2,
    "x": 8,
    "linkedin": 4,
    "pinterest": 4,
    "facebook": 4,
    "bluesky": 4,
}

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
#: how the OpenAI-compatible engine asks for JSON: json_schema (structured outputs), json_object
#: (servers without them) or none (the prompt alone)
OPENAI_JSON_MODE = env("OPENAI_JSON_MODE", default="json_schema")
#: Gemini is given the reply's JSON schema (response_json_schema); false: the JSON mime type only
GEMINI_JSON_SCHEMA = env.bool("GEMINI_JSON_SCHEMA", default=True)
#: repair turns a provider's text reply that breaks the rules gets before the generation fails
GENERATION_TEXT_REPAIRS = env.int("GENERATION_TEXT_REPAIRS", default=2)
# --- Outbound requests made on a user's behalf (apps.core.outbound) ---------------------------
#: networks exempt from the SSRF rules for the Bluesky PDS and DID documents, link cards,
#: Bluesky's video service and media pulled from URLs (and any port, and http, on them):
#: empty in production; development against fakes on this machine names 127.0.0.0/8
OUTBOUND_ALLOWED_CIDRS = env.list("OUTBOUND_ALLOWED_CIDRS", default=[])
# --- Outbound webhooks -------------------------------------------------------------------
#: http:// webhook URLs (development only)
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=False)
#: networks exempt from the SSRF rules (and the 80/443 port rule), e.g. "127.0.0.0/8" in tests
WEBHOOK_ALLOWED_CIDRS = env.list("WEBHOOK_ALLOWED_CIDRS", default=[])
#: delivery logs older than this many days are pruned by beat
WEBHOOK_LOG_DAYS = env.int("WEBHOOK_LOG_DAYS", default=30)
#: attempts in flight at once per healthy endpoint (a failing endpoint gets one)
WEBHOOK_ENDPOINT_CONCURRENCY = env.int("WEBHOOK_ENDPOINT_CONCURRENCY", default=4)
#: attempts in flight at once per organization over all its endpoints; 0: half the live
#: webhooks workers' slots (at least 1), so one tenant's slow receivers never take them all
WEBHOOK_ORGANIZATION_CONCURRENCY = env.int("WEBHOOK_ORGANIZATION_CONCURRENCY", default=0)
#: the wall-clock limit of one attempt: connect, TLS, request, headers and the logged body
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=15.0)
#: a claimed attempt not recorded by then (its worker died) is taken back by the sweep
WEBHOOK_LEASE_SECONDS = env.float("WEBHOOK_LEASE_SECONDS", default=30.0)
#: a delivery task drains its endpoint's due deliveries this long before handing the rest to a
#: fresh task (other endpoints' tasks get their turn in between)
WEBHOOK_DRAIN_SECONDS = env.float("WEBHOOK_DRAIN_SECONDS", default=2.0)

REPLICATE_WEBHOOK_SECRET = env("REPLICATE_WEBHOOK_SECRET", default="")
#: public URL of /webhook/replicate; with it (and GENERATION_ENGINE=replicate) generations are
#: submitted as predictions and completed by the webhook, without it the engine polls
REPLICATE_WEBHOOK_URL = env("REPLICATE_WEBHOOK_URL", default="")
#: retries of a retryable provider error before the content fails
GENERATION_MAX_RETRIES = env.int("GENERATION_MAX_RETRIES", default=3)
#: a running generation holds a lease renewed every GENERATION_HEARTBEAT_SECONDS; the sweep
#: (every GENERATION_SWEEP_INTERVAL s) queues again one whose lease expired (its worker
#: died) or whose task was lost (pending longer than GENERATION_QUEUED_STUCK_SECONDS); after
#: GENERATION_MAX_ATTEMPTS claims of one run it fails with a reason
GENERATION_LEASE_SECONDS = env.int("GENERATION_LEASE_SECONDS", default=90)
GENERATION_HEARTBEAT_SECONDS = env.float("GENERATION_HEARTBEAT_SECONDS", default=30)
GENERATION_QUEUED_STUCK_SECONDS = env.int("GENERATION_QUEUED_STUCK_SECONDS", default=300)
GENERATION_MAX_ATTEMPTS = env.int("GENERATION_MAX_ATTEMPTS", default=3)
#: a live worker refreshes its heartbeat key every WORKER_HEARTBEAT_SECONDS (see /readyz)
WORKER_HEARTBEAT_SECONDS = env.float("WORKER_HEARTBEAT_SECONDS", default=10)
#: a worker that has had room, messages waiting in its queues and received none for this long
#: exits for its supervisor to restart it (a consumer stuck after a broker reconnect; 0: never)
WORKER_STALL_SECONDS = env.float("WORKER_STALL_SECONDS", default=60)
#: how long that exit waits for the warm shutdown before it exits hard
WORKER_STALL_EXIT_GRACE_SECONDS = env.float("WORKER_STALL_EXIT_GRACE_SECONDS", default=30)

# --- OAuth connect (apps.publishing.oauth) ----------------------------------------------
# A platform with both values connects for real, otherwise through the sandbox consent page.
for _platform in ("INSTAGRAM", "FACEBOOK", "TIKTOK", "YOUTUBE", "LINKEDIN", "X", "THREADS", "PINTEREST"):
    globals()[f"{_platform}_CLIENT_ID"] = env(f"{_platform}_CLIENT_ID", default="")
    globals()[f"{_platform}_CLIENT_SECRET"] = env(f"{_platform}_CLIENT_SECRET", default="")
# LinkedIn grants the Community Management API (organization pages) to an app of its own, which
# may then carry no other product: with both set, organization connects (and their token
# refreshes) use this second app; member connects keep LINKEDIN_CLIENT_ID (issue 28).
LINKEDIN_PAGES_CLIENT_ID = env("LINKEDIN_PAGES_CLIENT_ID", default="")
LINKEDIN_PAGES_CLIENT_SECRET = env("LINKEDIN_PAGES_CLIENT_SECRET", default="")
# Base URL the providers return to (/oauth/<platform>/callback); defaults to PUBLIC_BASE_URL.
OAUTH_CALLBACK_BASE_URL = env("OAUTH_CALLBACK_BASE_URL", default=PUBLIC_BASE_URL).rstrip("/")
# Origins (https://app.example.com) a connect flow's redirectUri may return to, besides
# PUBLIC_BASE_URL and each organization's own (/v1/oauth/redirect-origins, the admin):
# anything else is a 400 at connect. https only; http only for loopback in development.
OAUTH_ALLOWED_REDIRECT_ORIGINS = env.list("OAUTH_ALLOWED_REDIRECT_ORIGINS", default=[])
# {platform: {"authorize", "token", "refresh", "exchange", "api"}}: other OAuth/API endpoints.
OAUTH_ENDPOINT_OVERRIDES = env.json("OAUTH_ENDPOINT_OVERRIDES", default={})
#: restricted (partner-program) permissions the operator's apps are approved for, e.g.
#: "r_member_postAnalytics,r_member_social": only then are they requested at connect
OAUTH_RESTRICTED_SCOPES = env.list("OAUTH_RESTRICTED_SCOPES", default=[])
#: the LinkedIn-Version header (YYYYMM) of every /rest call; LinkedIn's deprecation headers are logged
LINKEDIN_API_VERSION = env("LINKEDIN_API_VERSION", default="202610")
OAUTH_APP_NAME = env("OAUTH_APP_NAME", default="Postforge")
#: platforms an operator deliberately offers through the local sandbox outside development
#: (demos, staging): a platform without app credentials is otherwise not offered there, and a
#: connect answers 4xx naming the variables to set (in development every platform falls back
#: to the sandbox)
SANDBOX_PLATFORMS = env.list("SANDBOX_PLATFORMS", default=[])
#: Bluesky: where handles are resolved (any PDS or AppView answers resolveHandle) and the PLC
#: directory that holds did:plc documents (each account's PDS is read from its DID document)
BLUESKY_SERVICE_URL = env("BLUESKY_SERVICE_URL", default="https://bsky.social").rstrip("/")
BLUESKY_PLC_DIRECTORY_URL = env("BLUESKY_PLC_DIRECTORY_URL", default="https://plc.directory").rstrip("/")
#: Bluesky's video service: videos go there (app.bsky.video.uploadVideo), which puts the
#: processed video on the account's PDS as a blob for the post's app.bsky.embed.video
BLUESKY_VIDEO_SERVICE_URL = env("BLUESKY_VIDEO_SERVICE_URL", default="https://video.bsky.app").rstrip("/")

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"level": "ERROR"},
        # the filesystem broker has no host: kombu warns "No hostname was supplied" on
        # every connection of the embedded default
        "kombu.connection": {"level": "ERROR"},
    },
}

# --- Inbound provider webhooks (/webhook/<provider>); an unset secret answers 503 ----------
CLERK_WEBHOOK_SECRET = env("CLERK_WEBHOOK_SECRET", default="")
WORKOS_WEBHOOK_SECRET = env("WORKOS_WEBHOOK_SECRET", default="")
STRIPE_WEBHOOK_SECRET = env("STRIPE_WEBHOOK_SECRET", default="")
#: Meta's app secret (X-Hub-Signature-256, signed_request); defaults to the Facebook app's
META_APP_SECRET = env("META_APP_SECRET", default=globals().get("FACEBOOK_CLIENT_SECRET", ""))
META_WEBHOOK_VERIFY_TOKEN = env("META_WEBHOOK_VERIFY_TOKEN", default="")

# --- Tracked links (README "Tracked links") -------------------------------------------------
#: short-link redirects (`/l/<code>`) per client address per minute (the address is hashed and
#: kept only for the minute's window; clicks themselves store no address)
SHORT_LINK_RATE_LIMIT = env.int("SHORT_LINK_RATE_LIMIT", default=120)
#: the request header a CDN or proxy puts the visitor's country in (ISO 3166 alpha-2)
LINK_COUNTRY_HEADER = env("LINK_COUNTRY_HEADER", default="CF-IPCountry")
