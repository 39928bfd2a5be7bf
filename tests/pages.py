"""The app as a phone meets it, through Django's test client: the htmx header, the addresses of a sitting
and a group, starting a match and tapping through the forms, and reading what a page says (its words,
its score table, its chart)."""

import re
from html import unescape

import pytest
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile

from matches.models import Sitting

from tests.conftest import shown

HX = {"HTTP_HX_REQUEST": "true"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
NAMES = ["Ana", "Ben", "Chloé", "Dia"]  # a table of four, for the tests of what the screens say


def url(sitting, name: str = "") -> str:
    """An address of a sitting's member link: url(sitting, "tap/")."""
    return f"/s/{sitting.token}/{name}"


def stamped(sitting, number: int, **data) -> dict:
    """A correction's or an undo's fields for hand `number`, with its stamp as the page shows it now."""
    return {"number": number, "stamp": sitting.hands.get(number=number).stamp, **data}


def watch_url(sitting, name: str = "") -> str:
    return f"/w/{sitting.watch_token}/{name}"


def g(group, path: str = "") -> str:
    """An address of a group's member link: g(group, "players/")."""
    return f"/g/{group.token}/{path}"


def is_full_page(response) -> bool:
    return response.content.lstrip().startswith(b"<!doctype html>")


def words(page) -> str:
    """What a page, a response or a piece of markup says, as read: tags as spaces, entities unescaped,
    without what isolates names (conftest.shown), spaces folded."""
    html = page if isinstance(page, str) else page.content.decode()
    return re.sub(r"\s+", " ", shown(unescape(re.sub(r"<[^>]+>", " ", html)))).strip()


def start_data(names, **extra) -> dict:
    """The start form of an open match seating `names`, as posted, with `extra` fields."""
    data = {"action": "start", "end_kind": "open"}
    data.update({f"player_{row}": name for row, name in enumerate(names, start=1)})
    data.update(extra)
    return data


def start(client, slug: str, settings: dict, names: list[str]) -> Sitting:
    """A sitting started through the start form, as a phone does."""
    response = client.post(f"/start/{slug}/", start_data(names, **settings))
    assert response.status_code == 302, response.content.decode()
    return Sitting.objects.get(token=response["Location"].split("/")[2])


def tap(client, sitting: Sitting, number: int, winner: int, answers: dict, **headers):
    """An htmx tap that must be recorded: its answer."""
    response = client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **answers}, **HX, **headers)
    assert response.status_code == 200, response.content.decode()
    return response


def tapped(client, sitting: Sitting, number: int, winner: int, **answers) -> str:
    """The markup answering an htmx tap, whatever its status."""
    return client.post(url(sitting, "tap/"), {"number": number, "winner": winner, **answers}, **HX).content.decode()


TALLY = re.compile(r'<table class="tally">(.*?)</table>', re.S)
HEADING = re.compile(r'<th scope="col" class="num">(.*?)</th>')
ROW = re.compile(r'<tr[^>]*><th scope="row"><span class="name">(.*?)</span>.*?</th>(.*?)</tr>', re.S)
CELL = re.compile(r'<td class="num">(.*?)</td>')
FIGURE = re.compile(r'<figure class="chart">.*?</figure>', re.S)


def number(text: str) -> int:
    """A number as a page shows it ("1,200", "1\u00a0200", "\u22123" with the minus sign, "+400")."""
    return int(re.sub(r"[^\d-]", "", unescape(text).replace("\u2212", "-")))


def tally(page: str) -> tuple[list[str], dict[str, list[int]]]:
    """The score table of a page: its numeric columns' headings and, per player, their numbers."""
    table = TALLY.search(page)[1]
    headings = [unescape(h) for h in HEADING.findall(table)]
    rows = {unescape(name): [number(c) for c in CELL.findall(cells)] for name, cells in ROW.findall(table)}
    return headings, rows


def chart_of(body: str) -> str:
    """The score chart's figure in a page or a region, or "" when it has none."""
    found = FIGURE.search(body)
    return found[0] if found else ""


def upload(data: bytes, name: str = "group.json") -> dict:
    """The import page's form with `data` as the chosen file."""
    return {"archive": SimpleUploadedFile(name, data, content_type="application/json")}


@pytest.fixture(autouse=True)
def fresh_counts():
    """The rate limits' counts cleared before and after each test of a module that imports this."""
    caches["ratelimit"].clear()
    yield
    caches["ratelimit"].clear()
