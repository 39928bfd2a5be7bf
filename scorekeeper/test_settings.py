"""Settings for the test suite: production settings with a throwaway key and plain static storage."""

import os
import tempfile

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ["DEBUG"] = "0"

from .settings import *  # noqa: E402,F403

# Concurrency tests need a real file (not an in-memory database) to test SQLite's locking; one per test
# process, so that two runs (or xdist's workers) never share it.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": os.environ.get("TEST_SQLITE_FILE") or os.path.join(tempfile.mkdtemp(prefix="last-trick-db-"), "test.sqlite3")
    }

# The manifest storage needs collectstatic first; tests read static files from the source folders.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
SECURE_SSL_REDIRECT = False  # the test client speaks plain HTTP
# Tests that hammer taps and starts; the limits themselves are tested with low rates.
TAP_RATE_LIMIT = TAP_ADDRESS_RATE_LIMIT = START_RATE_LIMIT = START_ADDRESS_RATE_LIMIT = "100000/m"
# Each test run counts in its own folder (the servers that tests start get their own settings).
CACHES["ratelimit"] = {  # noqa: F405
    "BACKEND": "matches.web.counting_cache.CountingFileCache",
    "LOCATION": tempfile.mkdtemp(prefix="last-trick-ratelimit-"),
}
# The test process opens and drops its test database: no pool keeping connections to it (the servers
# that tests start use the pool, as production does).
DATABASES["default"].get("OPTIONS", {}).pop("pool", None)  # noqa: F405
LIVE_CHECK_SECONDS = 0.1
# Passwords hashed the quick way (Django's advice for tests): the admin's tests create operators and log
# in dozens of times, and production's hasher (PBKDF2, a million rounds each) is not what they check.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
