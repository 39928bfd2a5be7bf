"""What a phone keeps for when the network drops: the service worker (/sw.js) and the small page it
shows for a table it never saw (/offline/). The taps themselves wait in static/offline.js."""

from __future__ import annotations

import hashlib
import json
from functools import cache

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.http import require_safe

# What a table page needs to show and tap with no network. live.js comes with the push updates.
STATIC_FILES = (
    "app.css",
    "app.js",
    "live.js",
    "offline.js",
    "django_htmx/htmx-2.min.js",  # htmx 2 as django-htmx ships it
    "icon.svg",
    "icon-192.png",
    "icon-512.png",
)


@cache
def kept_files() -> tuple[list[str], str]:
    """The static URLs the worker keeps, and a version that changes with any of them (hashed names in
    production; the files' bytes where the names carry no hash): a deploy installs a new worker."""
    digest = hashlib.sha256()
    urls = []
    for name in STATIC_FILES:
        found = finders.find(name)
        if name == "live.js" and not found:
            continue  # not there before the push updates land
        urls.append(static(name))
        digest.update(urls[-1].encode())
        if found:
            with open(found, "rb") as source:
                digest.update(source.read())
    digest.update(render_to_string("offline/sw.js", {"urls": "[]", "version": ""}).encode())
    return urls, digest.hexdigest()[:16]


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """/sw.js at the root, so that its scope is every page. Checked by the browser at each visit (no-cache)."""
    urls, version = kept_files()
    script = render_to_string("offline/sw.js", {"urls": json.dumps(urls), "version": version})
    response = HttpResponse(script, content_type="application/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def offline_page(request: HttpRequest) -> HttpResponse:
    """Shown by the worker, with no network, for a page this phone never opened; in the phone's language."""
    response = render(request, "offline/offline.html")
    response["Cache-Control"] = "no-cache"
    return response
