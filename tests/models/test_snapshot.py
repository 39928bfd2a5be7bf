"""Every answer that renders a sitting comes from one snapshot: its version, seats' totals and hand
rows agree, even while another phone taps (real threads, file SQLite or PostgreSQL)."""

import re
import threading
import time

import pytest
from django.db import connections
from django.test import Client

from matches.models import Sitting

from tests.pages import HX

pytestmark = pytest.mark.django_db(transaction=True)
# Poll and table answers checked per database: ANSWERS, or as many as SECONDS give on a busy machine,
# never fewer than FEWEST (a reader that stopped early). With no snapshot at all, about one answer in ten
# is torn on either engine, the first among the first ten: 200 untorn answers would then come once in 10^9.
ANSWERS, SECONDS, FEWEST = 400, 20, 200

VERSION = re.compile(r'hx-get="[^"]*\?v=(\d+)"')
TALLY = re.compile(r'<table class="tally">.*?</table>', re.S)
# Agram's one score column: hands won, grouped by thousands past 999 ("1,000")
TALLY_ROW = re.compile(r'<td class="num">([\d,]+)</td></tr>')
NEWEST_HAND = re.compile(r'<table class="hands">.*?<tbody>\s*<tr><td class="num">([\d,]+)</td>', re.S)


def torn(body: str) -> str | None:
    """Why this Agram table answer disagrees with itself, or None when it agrees.

    In Agram each hand gives its winner one win (the score table's one column), and each recorded
    hand bumps the version once (version 1 at the start): with N hands the four seats' wins add up
    to N, the newest hand row is hand N, and the version is N + 1.
    """
    version = int(VERSION.search(body)[1])
    rows = [int(won.replace(",", "")) for won in TALLY_ROW.findall(TALLY.search(body)[0])]
    newest = NEWEST_HAND.search(body)
    last = int(newest[1].replace(",", "")) if newest else 0
    if (len(rows), sum(rows), version) != (4, last, last + 1):
        return f"newest hand {last}, {len(rows)} seats' wins add up to {sum(rows)}, version {version}"
    return None


@pytest.mark.slow
def test_no_answer_is_torn_while_another_phone_taps():
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    pages = [f"/s/{sitting.token}/poll/", f"/w/{sitting.watch_token}/poll/", f"/s/{sitting.token}/"]
    done = threading.Event()
    failures: list[str] = []
    counts = {"answers": 0, "hands": 0}

    def tapping_phone() -> None:
        try:
            number = 1
            while not done.is_set():
                sitting.record_hand(number, number % 4)
                counts["hands"] = number
                number += 1
                time.sleep(0.0005)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(f"writer: {error!r}")
            done.set()
        finally:
            connections.close_all()

    def reading_phone(offset: int) -> None:
        client = Client()
        try:
            while not done.is_set() and counts["answers"] < ANSWERS and time.monotonic() < deadline:
                page = pages[(counts["answers"] + offset) % len(pages)]
                body = client.get(page, **HX).content.decode()
                counts["answers"] += 1
                if reason := torn(body):
                    failures.append(f"{page}: {reason}")
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(f"reader: {error!r}")
        finally:
            done.set()
            connections.close_all()

    deadline = time.monotonic() + SECONDS
    threads = [threading.Thread(target=tapping_phone)] + [
        threading.Thread(target=reading_phone, args=(i,)) for i in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert counts["answers"] >= FEWEST and counts["hands"] > 50, counts
    assert failures == [], f"{len(failures)} of {counts['answers']} answers torn, e.g. {failures[:3]}"
    assert Sitting.objects.get(pk=sitting.pk).check_totals() == []


def test_a_poll_that_read_an_older_version_shows_a_whole_newer_region(client, monkeypatch):
    """A poll reads the sitting outside a snapshot, then its table in one: when a tap lands between
    the two reads, the region it renders is the newer version's, whole."""
    from django.utils import translation

    sitting = Sitting.start("agram", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
    sitting.record_hand(1, 1)
    sitting.record_hand(2, 2)
    stale = Sitting.reached_by("token", sitting.token)  # version 3: what the poll's first read saw
    sitting.record_hand(3, 3)  # version 4, between the poll's two reads
    monkeypatch.setattr(Sitting, "reached_by", classmethod(lambda cls, link, token: stale))

    with translation.override("en"):
        body = client.get(f"/s/{sitting.token}/poll/", {"v": "1"}, **HX).content.decode()

    assert torn(body) is None and '?v=4"' in body
