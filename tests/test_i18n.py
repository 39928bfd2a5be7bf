"""French: a complete catalogue, the browser's language followed, a switcher, local numbers."""

import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import polib
import pytest
from django.test import Client
from django.utils import timezone

from matches.models import Sitting
from matches.rules import MatchEnd, MatchEndKind

from .conftest import WORKED, play

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "fr" / "LC_MESSAGES" / "django.po"
FR = {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9,en;q=0.5"}


def test_every_msgid_has_a_french_translation():
    catalogue = polib.pofile(str(PO))
    untranslated = [e.msgid for e in catalogue if not e.translated() or "fuzzy" in e.flags]
    assert untranslated == []
    assert PO.with_suffix(".mo").stat().st_mtime >= PO.stat().st_mtime - 1  # compiled after the last edit


def test_the_catalogue_holds_every_string_the_code_marks(tmp_path):
    """makemessages over a copy of the code finds no msgid that the committed catalogue lacks."""
    if not shutil.which("xgettext"):
        pytest.fail("xgettext is missing: `make test` installs Debian's gettext.")
    for name in ("matches", "templates", "scorekeeper", "manage.py"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    (tmp_path / "locale").mkdir()
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "fr", "--no-location"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={"DEBUG": "1", "PATH": "/usr/bin:/bin"},
    )
    fresh = {e.msgid for e in polib.pofile(str(tmp_path / "locale/fr/LC_MESSAGES/django.po"))}
    committed = {e.msgid for e in polib.pofile(str(PO))}
    assert sorted(fresh - committed) == []


@pytest.mark.django_db
def test_the_language_follows_the_browser(client):
    assert "Nouvelle partie" in client.get("/", **FR).content.decode()
    assert "New match" in Client().get("/", HTTP_ACCEPT_LANGUAGE="en-GB").content.decode()
    assert "Accept-Language" in client.get("/", **FR)["Vary"]


@pytest.mark.django_db
def test_the_switcher_changes_the_language(client):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<button name="language" value="fr" lang="fr">Français</button>' in page
    client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert "Nouvelle partie" in client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


ENGLISH = re.compile(
    r"\b(the|and|with|Hand|hands|won|wins|Tap|tap|players?|match|Winner|Undo|End|Start|Remove|Add|"
    r"deals|leads|Rematch|Correct|watch|Link|phone|Pack|Deal|Stake|Chips|Ranking)\b"
)


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
@pytest.mark.parametrize("game", ["agram", "fapfap", "cat-te", "eighty-three", "letzter-stich"])
def test_french_screens_show_no_english(client, game):
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
    client.get(sitting.get_absolute_url(), **FR)
    for path in pages:
        text = visible_text(client.get(path, **FR).content.decode())
        assert not ENGLISH.findall(text), (path, ENGLISH.findall(text), text[:3000])
    sitting.end_match()
    text = visible_text(client.get(sitting.get_absolute_url(), **FR).content.decode())
    assert not ENGLISH.findall(text) and "Partie terminée" in text


@pytest.mark.django_db
def test_refusals_come_in_french(client, sitting):
    play(sitting, [2])
    body = client.post(f"/s/{sitting.token}/tap/", {"number": 1, "winner": 1}, HTTP_HX_REQUEST="true", **FR)
    assert "La main 1 est déjà notée\u00a0: Chaibou." in body.content.decode()
    start = client.post("/start/agram/", {"action": "start", "end_kind": "open", "player_1": "Aïcha"}, **FR)
    assert "Agram demande au moins 2 joueurs\u00a0: ajoutez un nom." in start.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("language, money, date", [("en", "12,000", "%m/%d/%Y"), ("fr", "12\u00a0000", "%d/%m/%Y")])
def test_numbers_and_dates_follow_the_language(client, language, money, date):
    sitting = Sitting.start("fapfap", ["A", "B"], stake_amount=4000, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.record_hand(2, 0, {"multiplier": "1"})
    page = client.get(sitting.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<td class="num">{money}</td>' in page
    home = client.get("/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert timezone.localtime(sitting.started_at).strftime(date) in home


@pytest.mark.django_db
def test_name_refusals_come_in_french(client):
    data = {"action": "start", "end_kind": "open", "player_1": "Aïcha", "player_2": "aïcha ", "player_3": "x" * 41}
    page = client.post("/start/agram/", data, **FR).content.decode()
    assert "aïcha est déjà à la table (joueur 1)." in page
    assert "Les noms tiennent en 40 caractères au plus (celui-ci en a 41)." in page


@pytest.mark.django_db
def test_the_csv_speaks_the_readers_language(client, sitting):
    play(sitting, [2])
    english = client.get(f"/s/{sitting.token}/hands.csv", HTTP_ACCEPT_LANGUAGE="en").content.decode("utf-8-sig")
    french = client.get(f"/s/{sitting.token}/hands.csv", **FR).content.decode("utf-8-sig")
    assert english.startswith("hand,status,dealer,winner,how,") and "\n1,won,Aïcha,Chaibou," in english
    assert french.startswith("main;statut;donneur;gagnant;comment;") and "\n1;gagnée;Aïcha;Chaibou;" in french
