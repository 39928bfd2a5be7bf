"""Settings for the test suite: production settings with a throwaway key and plain static storage."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ["DEBUG"] = "0"

from .settings import *  # noqa: E402,F403

# The manifest storage needs collectstatic first; tests read static files from the source folders.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
