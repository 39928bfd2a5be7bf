"""The web manifest in the page's language: the name and description a phone shows when it installs
the app. static/manifest.webmanifest holds the English and everything else (colours, icons)."""

import json
from functools import cache

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.utils import translation
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_safe

SOURCE = settings.BASE_DIR / "static" / "manifest.webmanifest"
# The same English as static/manifest.webmanifest (a translation test checks): the msgids to translate.
NAME = gettext_noop("Last Trick: card game scores")
DESCRIPTION = gettext_noop("Keep the score of last-trick card games at the table: tap who won each hand.")


@cache
def english() -> dict:
    return json.loads(SOURCE.read_text(encoding="utf-8"))


@require_safe
def web_manifest(request: HttpRequest, language: str) -> HttpResponse:
    """/manifest.<language>.webmanifest: the language is in the address, since a browser fetches
    the manifest without cookies; the icons point to their static files."""
    if language not in dict(settings.LANGUAGES):
        raise Http404
    source = english()
    with translation.override(language):
        manifest = {
            **source,
            "lang": language,
            "name": translation.gettext(NAME),
            "description": translation.gettext(DESCRIPTION),
            "icons": [{**icon, "src": static(icon["src"])} for icon in source["icons"]],
        }
    response = HttpResponse(
        json.dumps(manifest, ensure_ascii=False, indent=1), content_type="application/manifest+json; charset=utf-8"
    )
    response["Cache-Control"] = "public, max-age=86400"
    return response


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers ask for whatever the page's <link rel="icon">: the app's icon,
    rather than a 404 in the console."""
    response = HttpResponsePermanentRedirect(static("icon-192.png"))
    response["Cache-Control"] = "public, max-age=86400"
    return response
