"""Languages: every catalogue complete and compiled, the browser's language followed, a switcher,
local numbers, refusals, CSV and the installed app's name in the reader's language."""

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from html import unescape
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.utils import formats, timezone, translation

from matches.models import Sitting
from matches.domain.rules import MatchEnd, MatchEndKind
from scorekeeper import manifest

from tests.conftest import WORKED, play, shown

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
# Every language but the source language has a catalogue: fr, de, vi.
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
HEADERS = {
    "fr": {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9,en;q=0.5"},
    "de": {"HTTP_ACCEPT_LANGUAGE": "de-DE,de;q=0.9,en;q=0.5"},
    "vi": {"HTTP_ACCEPT_LANGUAGE": "vi-VN,vi;q=0.9,en;q=0.5"},
}
FR = HEADERS["fr"]
PO = LOCALE / "fr" / "LC_MESSAGES" / "django.po"  # the French catalogue, which other tests read


def plain(page) -> str:
    """A response's text without what isolates names (<bdi>, or U+2068 ... U+2069): conftest.shown."""
    return shown(page.content.decode())


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


def placeholders(text: str) -> Counter:
    """%(name)s, %d and %% (python-format) and {name} (python-brace-format), counted."""
    return Counter(re.findall(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifr%]|\{[^{}]*\}", text))


def test_every_language_has_a_catalogue():
    assert sorted(path.parent.parent.name for path in LOCALE.glob("*/LC_MESSAGES/django.po")) == sorted(TRANSLATED)
    assert dict(settings.LANGUAGES).items() >= {"fr": "Français", "de": "Deutsch", "vi": "Tiếng Việt"}.items()


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_msgid_has_a_checked_translation(language):
    """No msgstr missing, none fuzzy (makemessages' guess after a text changed), the placeholders of
    the English kept, one form per plural the language has."""
    catalogue = polib.pofile(str(po_path(language)))
    assert catalogue.metadata["Language"] == language and not catalogue.metadata_is_fuzzy
    plurals = int(re.search(r"nplurals=(\d+)", catalogue.metadata["Plural-Forms"])[1])
    problems = []
    for entry in (e for e in catalogue if not e.obsolete):
        if "fuzzy" in entry.flags or not entry.translated():
            problems.append(("untranslated or fuzzy", entry.msgid))
            continue
        english = placeholders(entry.msgid)
        for form, text in sorted(entry.msgstr_plural.items()) if entry.msgid_plural else [(0, entry.msgstr)]:
            # The singular may say "one" instead of %(n)s; every other form keeps every placeholder.
            expected = placeholders(entry.msgid_plural) if entry.msgid_plural else english
            if placeholders(text) != expected and not (
                entry.msgid_plural and form == 0 and placeholders(text) <= expected
            ):
                problems.append(("placeholders", entry.msgid, text))
        if entry.msgid_plural and len(entry.msgstr_plural) != plurals:
            problems.append(("plural forms", entry.msgid, len(entry.msgstr_plural)))
    assert problems == []
    if shutil.which("msgfmt"):  # GNU gettext's own check of the formats, as compilemessages runs it
        subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", str(po_path(language))], check=True)


def test_german_speaks_to_the_reader_as_du_throughout():
    """The screens say "Tippe", "Gib": no refusal switches to the formal "Tippen Sie"."""
    formal = re.compile(r"\b\w+en Sie\b(?! (?:ist|kann|lässt|bleibt|wurde|wird))|\bSie bitte\b")
    said = [text for e in polib.pofile(str(po_path("de"))) for text in [e.msgstr, *e.msgstr_plural.values()]]
    assert [text for text in said if formal.search(text)] == []

def test_french_keeps_a_no_break_space_before_its_colons_and_other_high_marks():
    """French writes "Main 2 : Aïcha" with the space held to the word before (never left alone at a line start)."""
    said = [text for e in polib.pofile(str(PO)) if not e.obsolete for text in [e.msgstr, *e.msgstr_plural.values()]]
    assert [text for text in said if re.search(r" [:;?!]", text)] == []



@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_matches_the_po(language):
    """django.mo (committed; `manage.py compilemessages` writes it) says what django.po says."""
    po = polib.pofile(str(po_path(language)))
    mo = polib.mofile(str(po_path(language).with_suffix(".mo")))

    def texts(catalogue, translated_only):
        return {
            (e.msgctxt, e.msgid): (e.msgstr, tuple(sorted(e.msgstr_plural.items())))
            for e in catalogue
            if e.msgid and not e.obsolete and (not translated_only or (e.translated() and "fuzzy" not in e.flags))
        }

    assert texts(mo, False) == texts(po, True), "run `.venv/bin/python manage.py compilemessages --ignore=.venv`"


def test_the_catalogues_hold_every_string_the_code_marks(tmp_path):
    """makemessages over a copy of the code finds no msgid that a committed catalogue lacks."""
    if not shutil.which("xgettext"):
        pytest.fail("xgettext is missing: `make test` installs Debian's gettext.")
    for name in ("matches", "templates", "scorekeeper", "manage.py"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    (tmp_path / "locale").mkdir()
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "en", "--no-location"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={"DEBUG": "1", "PATH": "/usr/bin:/bin"},
    )
    fresh = {(e.msgctxt, e.msgid) for e in polib.pofile(str(tmp_path / "locale/en/LC_MESSAGES/django.po"))}
    assert len(fresh) > 500
    for language in TRANSLATED:
        committed = {(e.msgctxt, e.msgid) for e in polib.pofile(str(po_path(language))) if not e.obsolete}
        assert (language, sorted(fresh - committed, key=str)) == (language, [])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, words", [("fr", "Nouvelle partie"), ("de", "Neue Partie"), ("vi", "Trận mới"), ("en", "New match")]
)
def test_the_language_follows_the_browser(client, language, words):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE=f"{language}-XX,{language};q=0.9,en;q=0.5")
    assert words in page.content.decode() and f'<html lang="{language}">' in page.content.decode()
    assert "Accept-Language" in page["Vary"]


@pytest.mark.django_db
def test_the_switcher_offers_every_language(client):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    menu = re.search(r'<form action="/i18n/setlang/" method="post" class="language">.*?</form>', page, re.S)[0]
    assert '<summary><svg class="globe"' in menu and '<span class="visually-hidden">Language: </span>' in menu
    assert re.findall(
        r'<button name="language" value="(\w+)" lang="\1"( aria-current="true")?>([^<]+)</button>', menu
    ) == [
        ("en", ' aria-current="true"', "English"),
        ("fr", "", "Français"),
        ("de", "", "Deutsch"),
        ("vi", "", "Tiếng Việt"),
    ]
    client.post("/i18n/setlang/", {"language": "vi", "next": "/"})
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Trận mới" in page and '<button name="language" value="vi" lang="vi" aria-current="true">' in page
    assert re.search(  # the summary is a flex box: the line breaks between its items do not show
        r'<span class="visually-hidden">Ngôn ngữ: </span>\s*<abbr title="Tiếng Việt" lang="vi">VI</abbr>\s*</summary>', page
    )


ENGLISH_WORDS = (
    r"the|and|with|Hand|hands|won|wins|Tap|tap|players?|match|Winner|Undo|End|Start|Remove|Add|deals|leads|"
    r"Rematch|Correct|watch|Link|phone|Pack|Deal|Stake|Chips|Ranking|Score|Who|Save|Share|Players"
).split("|")
# English words that are also words of the language ("Start" and "Link" in German).
NATIVE = {"fr": {"Score"}, "de": {"Hand", "Start", "Link", "Chips"}, "vi": set()}


def english_words(text: str, language: str) -> list[str]:
    words = "|".join(word for word in ENGLISH_WORDS if word not in NATIVE[language])
    return re.findall(rf"\b({words})\b", text)


ENGLISH = re.compile(rf"\b({'|'.join(word for word in ENGLISH_WORDS if word not in NATIVE['fr'])})\b")  # French


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'<meta[^>]*>|<form[^>]*class="language".*?</form>', " ", html, flags=re.S)
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    for name in WORKED + [
        "Last Trick",
        "Letzter Stich",
        "Eighty Three",
        "Cat Tê",
        "Sink-Sink",
        "Spar",
        "Sipa",
        "Agram",
        "Fapfap",
        "CSV",
        "FCFA",
    ]:
        text = text.replace(name, " ")
    return text


@pytest.mark.django_db
@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("game", ["agram", "fapfap", "cat-te", "eighty-three", "letzter-stich"])
def test_screens_show_no_english(client, game, language):
    end = {"cat-te": MatchEnd(MatchEndKind.HANDS, 2), "letzter-stich": MatchEnd(MatchEndKind.HANDS, 3)}.get(game)
    sitting = Sitting.start(game, ["Aïcha", "Boubacar", "Chaibou"], end)
    extras = {
        "fapfap": {"multiplier": "2"},
        "cat-te": {"how": "sweep", "aces": ["2"]},
        "eighty-three": {"bonus": ["1"]},
    }.get(game, {})
    sitting.record_hand(1, 0, extras)
    pages = [
        "/",
        "/start/",
        f"/start/{game}/",
        sitting.get_absolute_url(),
        f"/s/{sitting.token}/hands/",
        f"/s/{sitting.token}/hands/1/",
        f"/s/{sitting.token}/end/",
        f"/w/{sitting.watch_token}/",
        "/nowhere/",
    ]
    headers = HEADERS[language]
    client.get(sitting.get_absolute_url(), **headers)
    for path in pages:
        text = visible_text(client.get(path, **headers).content.decode())
        assert not english_words(text, language), (path, english_words(text, language), text[:3000])
    sitting.end_match()
    text = visible_text(client.get(sitting.get_absolute_url(), **headers).content.decode())
    assert not english_words(text, language)
    assert {"fr": "Partie terminée", "de": "Partie vorbei", "vi": "Hết trận"}[language] in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, taken, too_few",
    [
        ("fr", "La main 1 est déjà notée\u00a0: Chaibou.", "Agram demande au moins 2 joueurs\u00a0: ajoutez un nom."),
        (
            "de",
            "Runde 1 ist schon eingetragen: Chaibou.",
            "Agram braucht mindestens 2 Spieler: Füge einen Namen hinzu.",
        ),
        ("vi", "Ván 1 đã được ghi: Chaibou.", "Agram cần ít nhất 2 người chơi: hãy thêm một tên."),
    ],
)
def test_refusals_come_in_the_readers_language(client, sitting, language, taken, too_few):
    play(sitting, [2])
    headers = HEADERS[language]
    body = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 1}, HTTP_HX_REQUEST="true", **headers)
    assert taken in plain(body)
    start = client.post("/start/agram/", {"action": "start", "end_kind": "open", "player_1": "Aïcha"}, **headers)
    assert too_few in plain(start)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, money", [("en", "+12,000"), ("fr", "+12\u00a0000"), ("de", "+12.000"), ("vi", "+12.000")]
)
def test_numbers_and_dates_follow_the_language(client, language, money):
    sitting = Sitting.start("fapfap", ["A", "B"], stake_amount=4000, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 0, {"multiplier": "1"})
    page = client.get(sitting.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<td class="num">{money}</td>' in page
    home = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    with translation.override(language):
        day = formats.date_format(timezone.localtime(sitting.started_at, sitting.zone), "SHORT_DATE_FORMAT")
    assert day in unescape(home)


@pytest.mark.django_db
def test_name_refusals_come_in_french(client):
    data = {"action": "start", "end_kind": "open", "player_1": "Aïcha", "player_2": "aïcha ", "player_3": "x" * 41}
    page = plain(client.post("/start/agram/", data, **FR))
    assert "Aïcha est déjà à la table (joueur 1)." in page  # named as first typed
    assert "Les noms tiennent en 40 caractères au plus (celui-ci en a 41)." in page


@pytest.mark.django_db
def test_the_csv_keeps_its_keys_and_commas_in_every_language(client, sitting):
    """A script reads every phone's file alike: the same English keys, commas, codes ("won") and numbers."""
    play(sitting, [2])
    url = f"/s/{sitting.token}/hands.csv"

    def csv(language):
        response = client.get(url, **HEADERS.get(language, {"HTTP_ACCEPT_LANGUAGE": language}))
        return b"".join(response.streaming_content).decode("utf-8-sig")

    english = csv("en")
    assert english.startswith("row_type,hand,time,status,dealer,winner,how,seat,player,unit,points,")
    assert ",won,Aïcha,Chaibou,,3,Chaibou,wins,1," in english
    for language in TRANSLATED:
        assert csv(language) == english  # an Agram hand has no words to translate


@pytest.mark.django_db
@pytest.mark.parametrize(
    "language, name",
    [
        ("en", "Last Trick: card game scores"),
        ("de", "Last Trick: Punkte beim Kartenspiel"),
        ("vi", "Last Trick: ghi điểm chơi bài"),
    ],
)
def test_the_installed_app_is_named_in_the_readers_language(client, language, name):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    link = re.search(r'<link rel="manifest" href="([^"]+)">', page)[1]
    assert link == f"/manifest.{language}.webmanifest"
    response = client.get(link)
    assert response["Content-Type"].startswith("application/manifest+json")
    data = json.loads(response.content)
    assert data["name"] == name and data["lang"] == language and data["short_name"] == "Last Trick"
    assert data["description"] != manifest.DESCRIPTION or language == "en"
    for icon in data["icons"]:
        assert icon["src"].startswith("/static/") and client.get(icon["src"]).status_code == 200


def test_the_static_manifest_holds_the_english_that_is_translated():
    static = json.loads((ROOT / "static" / "manifest.webmanifest").read_text())
    assert (static["name"], static["description"]) == (manifest.NAME, manifest.DESCRIPTION)


@pytest.mark.django_db
def test_no_manifest_for_a_language_the_app_lacks(client):
    assert client.get("/manifest.xx.webmanifest").status_code == 404


@pytest.mark.django_db
def test_the_favicon_browsers_ask_for_is_the_apps_icon_not_a_404(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and "icon-192" in response["Location"]
    assert client.get(response["Location"]).status_code == 200
