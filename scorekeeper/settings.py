"""Settings for Last Trick, read from the environment.

DEBUG is off unless DEBUG=1 (`make dev` sets it, bound to 127.0.0.1). DATABASE_URL picks the database (a
SQLite file beside manage.py by default; postgres://... in production). Without SECRET_KEY in the
environment, this install makes one once and keeps it in `.env`. `make run` sets PLAIN_HTTP=1:
served to phones on a local network without HTTPS.
"""

import ipaddress
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_noop
from dotenv import load_dotenv

from .secret_key import kept_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent
# `.env` (git-ignored) keeps this install's secret key; real environment variables win over it.
ENV_FILE = Path(os.environ.get("ENV_FILE") or BASE_DIR / ".env")
load_dotenv(ENV_FILE, override=False)


def env_flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, "1" if default else "0").lower() in {"1", "true", "yes", "on"}


def env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, str(default))
    if not value.strip().isdecimal():
        raise ImproperlyConfigured(f"{name} must be a whole number of 0 or more, not {value!r}.")
    return int(value)


def env_networks(name: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Comma-separated addresses and networks (10.0.0.5, 10.0.0.0/24, ::1); none when unset."""
    networks = []
    for item in env_list(name):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not an address or a network: write e.g. 10.0.0.5,10.0.0.0/24,::1"
            ) from None
    return networks


DEBUG = env_flag("DEBUG")

# Several app servers must share one: set SECRET_KEY on each (README, "Growing past one machine").
SECRET_KEY = os.environ.get("SECRET_KEY") or kept_secret_key(ENV_FILE)

# `make run` lists the laptop's own names and LAN address; `make dev` answers only on 127.0.0.1.
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or (["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",  # for the operator, behind a superuser login
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "csp",
    "template_partials",
    "matches",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before CommonMiddleware: its refusals (a Host not served) are answered with the header too.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "matches.web.middleware.explain_refusals",
    "matches.web.middleware.never_store_sittings",
    "matches.web.outages.ServeThroughOutages",  # last: it runs the view (again on a lost connection)
]

ROOT_URLCONF = "scorekeeper.urls"
WSGI_APPLICATION = "scorekeeper.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csrf",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # The app's template tags live in its web layer, not in matches/templatetags.
            "libraries": {
                "last_trick": "matches.web.templatetags.last_trick",
                "figures": "matches.web.templatetags.figures",
            },
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Requests run in a fixed pool of threads per process (scorekeeper/asgi.py): on SQLite each keeps
        # its connection (a tap does not pay for opening one); PostgreSQL's come from a pool (below).
        conn_max_age=env_int("CONN_MAX_AGE", 600 if os.environ.get("DATABASE_URL", "sqlite").startswith("sqlite") else 0),
        # A health check costs every request a `SELECT 1` round trip; without it, a request whose kept
        # connection the database dropped (a restart) runs again on a new one, or answers 503 "try again",
        # which the phone retries (matches/web/outages.py). CONN_HEALTH_CHECKS=1 turns the checks on.
        conn_health_checks=env_flag("CONN_HEALTH_CHECKS"),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # select_for_update does nothing on SQLite: take the write lock when a
    # transaction starts, and wait for it rather than fail at once.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_TIMEOUT", 10),  # seconds a write waits for the lock, then "try again"
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }

if (
    DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    and env_flag("DATABASE_POOL", default=True)
    and not DATABASES["default"]["CONN_MAX_AGE"]
):
    # One pool per worker process, shared by its request threads (psycopg_pool, Django's own support).
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DATABASE_POOL_MIN", 2),
        "max_size": env_int("DATABASE_POOL_MAX", 20),
        "timeout": 5,  # seconds a request waits for a connection (then "try again", well before the phone's 20 s)
        "max_idle": 60,  # seconds a connection beyond min_size stays idle: the pool shrinks back after a rush
        # After this long failing to connect, the pool stops backing off (its waits double) and tries again as
        # soon as a request asks: the phones are served within seconds of the database's return.
        "reconnect_timeout": 10,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Notices that follow a plain form's redirect ride in a cookie.
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"

# Which sittings this phone started or opened: a signed cookie, no table to query (Django's signed_cookies,
# its values checked as read: matches/web/sessions.py).
SESSION_ENGINE = "matches.web.sessions"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

# The language follows the browser (Accept-Language) until the switcher sets a cookie. Each language
# is named in its own words; the switcher translates these names, so "English" is marked for our
# catalogues to keep it English (Django's own would make it "Englisch"). Adding one: README, Languages.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", gettext_noop("English")), ("fr", "Français"), ("de", "Deutsch"), ("vi", "Tiếng Việt")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Africa/Niamey")  # for sittings whose phone did not say its own
# Dates nobody misreads ("5 Dec 2026"), 24-hour times, thousands grouped per language: scorekeeper/formats.
FORMAT_MODULE_PATH = ["scorekeeper.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# Links carry the tokens that open a sitting: no page's address goes to another site. Requests to this
# site keep their Origin and Referer, which Django's CSRF check compares with the host.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Only the app's own scripts and styles; no third-party request.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        # NoSleep.js's tiny video (a data: URL), which keeps the screen on where there is no Wake Lock API
        "media-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],  # /sw.js, the service worker that keeps the table offline
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Production runs behind a proxy that terminates HTTPS and sets X-Forwarded-Proto. A table's
# laptop (`make run`) serves plain HTTP to phones on its Wi-Fi: PLAIN_HTTP=1.
PLAIN_HTTP = env_flag("PLAIN_HTTP")
# The laptop's LAN address (set by `make run`): links and QR codes shown on the laptop itself
# (opened as 127.0.0.1 or localhost) give phones this address instead.
LAN_HOST = os.environ.get("LAN_HOST", "")
if PLAIN_HTTP:  # chromium ignores COOP on an http:// LAN address, and says so in the console on every page
    SECURE_CROSS_ORIGIN_OPENER_POLICY = None
if not DEBUG and not PLAIN_HTTP:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_flag("SECURE_HSTS_PRELOAD", default=True)

# Seconds any one Redis call waits (a tap makes three at most: two for the limits, one to publish).
REDIS_TIMEOUT = 0.3

# Rate limits (django-ratelimit), counted in the "ratelimit" cache: files that every worker on this
# machine shares (counted under a lock), or Redis at CACHE_URL, which several app servers share.

CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "ratelimit": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ["CACHE_URL"],
        # A Redis that does not answer costs a tap a second at most (the limits' two reads and the push's
        # publish): then nothing is counted.
        "OPTIONS": {"socket_connect_timeout": REDIS_TIMEOUT, "socket_timeout": REDIS_TIMEOUT},
    }
    if os.environ.get("CACHE_URL")
    else {
        "BACKEND": "matches.web.counting_cache.CountingFileCache",
        "LOCATION": os.environ.get("RATELIMIT_DIR") or BASE_DIR / ".ratelimit",
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    },
}
RATELIMIT_USE_CACHE = "ratelimit"
TAP_RATE_LIMIT = os.environ.get("TAP_RATE_LIMIT", "60/m")  # changes to a sitting, per phone
TAP_ADDRESS_RATE_LIMIT = os.environ.get("TAP_ADDRESS_RATE_LIMIT", "600/m")  # per client address
START_RATE_LIMIT = os.environ.get("START_RATE_LIMIT", "20/h")  # new matches and demos, per phone
START_ADDRESS_RATE_LIMIT = os.environ.get("START_ADDRESS_RATE_LIMIT", "100/h")  # per client address
# The proxies whose X-Forwarded-For names the client (matches/web/client_address.py): none by default,
# then the connection's own address is the client whatever the headers say. The app server never reads
# the header itself (scorekeeper/workers.py).
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")
if os.environ.get("RATELIMIT_IP_META_KEY"):  # an older setting, which trusted any client's header
    raise ImproperlyConfigured(
        "RATELIMIT_IP_META_KEY is no longer read: set TRUSTED_PROXIES to your proxies' addresses instead "
        "(the proxy sets X-Forwarded-For)."
    )
# Wrong admin passwords per client address and per username (the admin's login form refuses tries past it)
ADMIN_LOGIN_RATE_LIMIT = os.environ.get("ADMIN_LOGIN_RATE_LIMIT", "5/15m")

# Live updates (matches.web.live): how each app process hears of a change made in another process or on
# another app server. "redis" where CACHE_URL is set, else "postgres" (LISTEN/NOTIFY) on PostgreSQL,
# else "versions": on SQLite (one machine) each process reads the versions it shows every LIVE_CHECK_SECONDS.
CACHE_URL = os.environ.get("CACHE_URL", "")
LIVE_FEED = os.environ.get("LIVE_FEED") or (
    "redis" if CACHE_URL else "postgres" if DATABASES["default"]["ENGINE"].endswith("postgresql") else "versions"
)
LIVE_CHECK_SECONDS = float(os.environ.get("LIVE_CHECK_SECONDS", "0.25"))
LIVE_SWEEP_SECONDS = float(os.environ.get("LIVE_SWEEP_SECONDS", "15"))  # with a feed: a lost message is caught
# Half of nginx's 60 s proxy_read_timeout; each comment wakes an idle phone's radio, so not more often.
LIVE_HEARTBEAT_SECONDS = float(os.environ.get("LIVE_HEARTBEAT_SECONDS", "30"))
LIVE_COALESCE_SECONDS = float(os.environ.get("LIVE_COALESCE_SECONDS", "0.05"))  # a woken stream waits for the tap's render
# Threads per app process for every request but the live streams (scorekeeper/asgi.py): the most that
# wait on the database at once; the CPU is one core's either way.
REQUEST_THREADS = env_int("REQUEST_THREADS", 10)

# `manage.py forget_old_sittings` deletes sittings untouched for this many days (0: keep all).
RETENTION_DAYS = env_int("RETENTION_DAYS", 365)

# Every log line names a link by a label, never by its token (scorekeeper/logs.py).
LOGGING_CONFIG = "scorekeeper.logs.configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "filters": {"without_traceback": {"()": "scorekeeper.logs.WithoutTraceback"}},
    "loggers": {  # Django's lines for a request it refused as too big: one line each
        **{
            f"django.security.{refused}": {"filters": ["without_traceback"]}
            for refused in ("RequestDataTooBig", "TooManyFieldsSent", "TooManyFilesSent")
        },
        # The pool's line for each connection it drops or fails to open would bury the app's own: a request
        # that lost its connection says so (matches.web.outages), with each "try again" it answers.
        "psycopg.pool": {"level": "ERROR"},
    },
}
CSRF_FAILURE_VIEW = "matches.web.views.errors.csrf_failure"
