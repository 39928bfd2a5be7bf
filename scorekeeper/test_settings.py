"""Settings for the test suite: production settings with a throwaway key and plain static storage."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ["DEBUG"] = "0"

from .settings import *  # noqa: E402,F403

# Concurrency tests need a real file (not an in-memory database) to test SQLite's locking.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / ".test-db.sqlite3")}  # noqa: F405

# The manifest storage needs collectstatic first; tests read static files from the source folders.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
SECURE_SSL_REDIRECT = False  # the test client speaks plain HTTP
TAP_RATE_LIMIT = "100000/m"  # tests that hammer taps; the limit itself is tested with a low rate
