"""WSGI entry point (gunicorn scorekeeper.wsgi)."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorekeeper.settings")
django_application = get_wsgi_application()

from matches.web.middleware import answer_polls_before_django  # noqa: E402 - needs the apps loaded above

application = answer_polls_before_django(django_application)


def freeze_loaded_code() -> None:
    """Load what every request needs (the URLconf, its views), then move every object alive now to
    the collector's permanent generation: the code, settings and catalogues of a worker live as long
    as it does, so a full collection need not walk them again (one took 20-25 ms per tap, every few
    hundred taps; frozen, about 2 ms). Objects made later are collected as usual."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports the views and their modules
    gc.freeze()


freeze_loaded_code()
