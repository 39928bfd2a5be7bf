"""The service worker (/sw.js), which keeps every script and style the pages load, and the page it shows
offline for a page never opened (/offline/)."""

import json
import re

import pytest
from django.templatetags.static import static

from matches.models import Sitting
from matches.web.views import offline

pytestmark = pytest.mark.django_db


def kept_urls(script: str) -> list[str]:
    return json.loads(re.search(r"var KEPT = (\[.*?\]);", script).group(1))


def test_the_service_worker_is_served_at_the_root_as_javascript_and_checked_at_each_visit(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Cache-Control"] == "no-cache"
    script = response.content.decode()
    assert "<" not in script.split("\n", 1)[1].split("var KEPT")[0]  # nothing HTML-escaped or templated left
    assert "{{" not in script and "{%" not in script


def test_the_service_worker_keeps_this_deploys_static_files_by_their_served_names(client):
    script = client.get("/sw.js").content.decode()
    urls = kept_urls(script)
    for name in ["app.css", "app.js", "offline.js", "django_htmx/htmx-2.min.js", "icon.svg", "icon-192.png"]:
        assert static(name) in urls
    for url in urls:  # every one is there to fetch, or the worker would not install
        assert client.get(url).status_code == 200


def test_the_service_worker_version_changes_with_the_files_it_keeps(client, monkeypatch):
    first = re.search(r'var VERSION = "(\w+)"', client.get("/sw.js").content.decode()).group(1)
    offline.kept_files.cache_clear()
    monkeypatch.setattr(offline, "STATIC_FILES", (*offline.STATIC_FILES[:-1],))  # a deploy without one icon
    try:
        second = re.search(r'var VERSION = "(\w+)"', client.get("/sw.js").content.decode()).group(1)
    finally:
        offline.kept_files.cache_clear()
    assert len(first) == 16 and first != second


def test_the_content_security_policy_lets_the_app_register_its_own_worker_only(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "worker-src 'self'" in policy and "unsafe-inline" not in policy


def test_only_get_and_head(client):
    assert client.post("/sw.js").status_code == 405
    assert client.head("/sw.js").status_code == 200


def test_the_offline_page_is_in_the_phones_language(client):
    response = client.get("/offline/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200 and response["Content-Language"] == "fr"
    assert "Pas de réseau" in response.content.decode()
    # Shown for any page but the tables this phone showed, opened here or not: it does not say "never opened".
    assert "ce téléphone ne garde que les tables" in response.content.decode()
    assert "Kein Netz" in client.get("/offline/", HTTP_ACCEPT_LANGUAGE="de").content.decode()


def test_every_page_loads_the_offline_script_after_app_js(client):
    page = client.get("/").content.decode()
    assert page.index(static("app.js")) < page.index(static("offline.js"))
    assert re.search(r'<script src="[^"]*offline\.js" defer>', page)


def test_the_table_says_its_fingerprint_and_gives_offline_js_its_words(client):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    sitting.record_hand(1, 2)
    sitting.record_hand(2, 0)
    sitting.refresh_from_db()
    page = client.get(f"/s/{sitting.token}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    fingerprint = re.search(r'<p class="fingerprint" data-fingerprint>(.*?)</p>', page, re.S).group(1)
    text = re.sub(r"[ \n]+", " ", re.sub(r"<[^>]+>", "", fingerprint)).strip()
    assert text == f"2 mains · dernière\u00a0: Aïcha · modification {sitting.version}"  # a word, not a bare "#5"
    for word in ["data-offline-since", "data-offline-waiting", "data-offline-refused", "data-offline-hand"]:
        assert word in page
    assert 'data-offline-waiting="Main {number}\u00a0: {name}, en attente d’envoi"' in page
    # The count of what waits counts undos too: taps ("appuis"), not hands.
    assert 'data-offline-one="1 appui en attente d’envoi"' in page
    assert 'data-offline-many="{count} appuis en attente d’envoi"' in page
    region = client.get(f"/s/{sitting.token}/", HTTP_HX_REQUEST="true").content.decode()
    assert "data-fingerprint" in region and "2 hands" in region and "last: <bdi>Aïcha</bdi>" in region


def test_the_watch_link_shows_the_same_fingerprint(client):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    sitting.record_hand(1, 3)
    sitting.refresh_from_db()
    member = client.get(f"/s/{sitting.token}/").content.decode()
    watch = client.get(f"/w/{sitting.watch_token}/").content.decode()

    def fingerprint(page):
        return re.search(r"<p class=\"fingerprint\" data-fingerprint>(.*?)</p>", page, re.S).group(1)

    assert fingerprint(member) == fingerprint(watch) and f"change {sitting.version}" in fingerprint(watch)


@pytest.mark.engine
def test_the_service_worker_keeps_every_script_and_style_the_pages_load(client, sitting):
    kept = client.get("/sw.js").content.decode()
    page = client.get(f"/s/{sitting.token}/").content.decode()
    loaded = re.findall(r'<(?:script src|link rel="stylesheet" href)="([^"]+)"', page)
    assert any("django_htmx/htmx-2" in url for url in loaded)
    assert loaded and all(f'"{url}"' in kept for url in loaded)
