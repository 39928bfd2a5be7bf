"""Rate limits: per phone (its session) and, more generous, per client address; counted once for
every worker; every change to a sitting or a group and every new match (a rematch and a match from a
group included) counted; refusals name what was limited and change nothing."""

import ipaddress
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.cache import caches
from django.test import Client, override_settings

from matches.models import Sitting

from tests.conftest import shown, snapshot
from tests.groups import friday_group  # noqa: F401 - the fixture `group`
from tests.groups import ids, members, post_form, state
from tests.pages import HX, fresh_counts, g  # noqa: F401 - autouse
from tests.servers import Phone, gunicorn


def live_sittings() -> int:
    """Sittings not finished: the matches started (a demo's group also holds finished ones)."""
    return Sitting.objects.filter(finished_at__isnull=True).count()


def phone_at_the_table(sitting: Sitting) -> Client:
    """A phone that opened the table (so it has a session), as every tapping phone has."""
    client = Client()
    client.get(f"/s/{sitting.token}/")
    client.post(f"/s/{sitting.token}/me/", {"seat": ""})  # gives the phone its id
    return client


def tap(client: Client, sitting: Sitting, number: int, winner: int = 1):
    return client.post(f"/s/{sitting.token}/tap/", {"number": number, "winner": winner}, **HX)


@override_settings(TAP_RATE_LIMIT="5/m", TAP_ADDRESS_RATE_LIMIT="1000/m")  # a minute: what Retry-After says
def test_a_phone_over_its_limit_gets_429_naming_the_phone_and_nothing_changes(sitting, monkeypatch):
    now = time.time()
    frozen = SimpleNamespace(time=lambda: now)  # all six taps in one minute's window, whenever the test runs
    monkeypatch.setattr("django_ratelimit.core.time", frozen)
    phone = phone_at_the_table(sitting)
    caches["ratelimit"].clear()
    statuses = [tap(phone, sitting, n).status_code for n in range(1, 6)]
    before = snapshot(sitting)
    refused = tap(phone, sitting, 6)
    assert statuses == [200] * 5
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert "Too many taps from this phone: wait a minute" in refused.content.decode()
    assert snapshot(sitting) == before


@override_settings(TAP_RATE_LIMIT="5/h", TAP_ADDRESS_RATE_LIMIT="20/h")
def test_phone_c_at_the_same_address_is_never_refused_because_phones_a_and_b_flooded(sitting):
    a, b, c = (phone_at_the_table(sitting) for _ in range(3))
    caches["ratelimit"].clear()
    for flooder in (a, b):
        answers = [tap(flooder, sitting, 1000) for _ in range(40)]  # a hand that is not open: 409s, then 429s
        assert [r.status_code for r in answers].count(429) == 35
    open_number = sitting.table().open_number
    assert tap(c, sitting, open_number).status_code == 200


@override_settings(TAP_RATE_LIMIT="1000/h", TAP_ADDRESS_RATE_LIMIT="8/h")
def test_clients_without_a_session_share_their_address_ceiling(sitting):
    answers = [Client().post(f"/s/{sitting.token}/tap/", {"number": 1000, "winner": 1}, **HX) for _ in range(10)]
    assert [r.status_code for r in answers] == [409] * 8 + [429] * 2
    assert "Too many taps from this network" in answers[-1].content.decode()


@override_settings(TAP_RATE_LIMIT="3/h", TAP_ADDRESS_RATE_LIMIT="1000/h")
@pytest.mark.parametrize("path", ["undo/", "end/", "hands/1/", "chips/", "links/", "me/", "rematch/"])
def test_every_change_to_a_sitting_counts_against_the_phone(sitting, path):
    phone = phone_at_the_table(sitting)
    caches["ratelimit"].clear()
    for _ in range(3):
        tap(phone, sitting, 1000)
    before = snapshot(sitting)
    answer = phone.post(f"/s/{sitting.token}/{path}", {"number": 1, "winner": 1, "seen": 0, "seat": 1}, **HX)
    assert answer.status_code == 429
    assert snapshot(sitting) == before


@override_settings(START_RATE_LIMIT="3/h", START_ADDRESS_RATE_LIMIT="1000/h")
def test_a_phone_creating_matches_in_a_flood_gets_429_after_the_limit(db):
    phone = Client()
    phone.post("/demo/")  # a first visit: the phone gets its session here
    start = {"player_1": "A", "player_2": "B", "end_kind": "open"}
    created = [phone.post("/start/agram/", start).status_code for _ in range(4)]
    assert created == [302, 302, 302, 429]
    answer = phone.post("/start/agram/", start)
    assert answer.status_code == 429 and answer["Retry-After"] == "3600"
    assert shown("Too many new matches and groups from this phone: wait an hour") in shown(answer.content.decode())
    assert phone.post("/demo/").status_code == 302  # its demo again: nothing new is made, nothing counted
    assert live_sittings() == 4  # three started, one demo (which comes with its group's finished matches)


@override_settings(START_RATE_LIMIT="1000/h", START_ADDRESS_RATE_LIMIT="4/h")
def test_new_matches_from_one_address_have_a_ceiling(db):
    statuses = [Client().post("/demo/").status_code for _ in range(6)]
    assert statuses == [302] * 4 + [429] * 2
    assert live_sittings() == 4


@pytest.mark.django_db(transaction=True)
@pytest.mark.servers
def test_the_limit_is_counted_once_across_gunicorn_workers(tmp_path):
    sitting = Sitting.start("agram", ["A", "B", "C", "D"])
    # Counted per hour, not per minute: a flood that straddles the end of a one-minute window would
    # start counting again and pass more than the limit.
    with gunicorn(tmp_path, workers=3, TAP_RATE_LIMIT="30/h", TAP_ADDRESS_RATE_LIMIT="600/h") as url:
        table = f"{url}/s/{sitting.token}/"
        flooder, other = Phone(), Phone()
        for phone in (flooder, other):
            phone.get(table)
            phone.post(table + "me/", {"seat": ""}, htmx=False)  # the phone's id, as a tapping phone has
        statuses: list[int] = []

        def flood() -> None:
            for _ in range(20):
                statuses.append(flooder.post(table + "tap/", {"number": 1000, "winner": 1}).status)

        threads = [threading.Thread(target=flood) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        # 1 request (the seat claim) + 29 taps pass; every other tap is refused, whichever worker took it.
        assert statuses.count(409) == 29 and statuses.count(429) == 31, sorted(statuses)
        assert other.post(table + "tap/", {"number": 1, "winner": 2}).status == 200
    assert sitting.hands.count() == 1


@override_settings(START_RATE_LIMIT="2/h", START_ADDRESS_RATE_LIMIT="1000/h")
def test_a_rematch_counts_as_a_new_match(db):
    phone = Client()
    demo = phone.post("/demo/")["Location"]  # a first visit: counted by address only
    first = Sitting.objects.get(finished_at__isnull=True)
    first.end_match()
    phone.get(demo)
    rematches = [phone.post(f"/s/{first.token}/rematch/").status_code]
    second = Sitting.objects.latest("pk")
    second.end_match()
    phone.post(f"/s/{second.token}/rematch/")  # the phone's second new match: at its limit
    third = Sitting.objects.latest("pk")
    third.end_match()
    rematches.append(phone.post(f"/s/{third.token}/rematch/").status_code)
    assert rematches == [302, 429] and Sitting.objects.count() == 4 + 2  # the demo (and its group) and 2
    assert phone.post(f"/s/{first.token}/rematch/").status_code == 302  # joining one already started is free


@override_settings(TRUSTED_PROXIES=[ipaddress.ip_network("127.0.0.1")], START_ADDRESS_RATE_LIMIT="2/h")
@pytest.mark.parametrize("header", [None, "garbage", "1.2.3.4, 5.6.7.8", "2001:db8::1", "fe80::1%eth0"])
def test_a_missing_or_odd_client_address_header_is_never_a_500(db, header):
    extra = {} if header is None else {"HTTP_X_FORWARDED_FOR": header}
    statuses = [Client().post("/demo/", **extra).status_code for _ in range(3)]
    assert statuses == [302, 302, 429]


def test_clients_that_drop_their_cookies_leave_no_counter_behind(sitting):
    for _ in range(5):
        Client().post(f"/s/{sitting.token}/tap/", {"number": 99, "winner": 1}, **HX)
    keys = [path.name for path in Path(caches["ratelimit"]._dir).glob("*.djcache")]
    assert len(keys) == 1  # the address's counter only, not one per request


@pytest.mark.engine
@override_settings(START_RATE_LIMIT="2/h", START_ADDRESS_RATE_LIMIT="1000/h")
def test_starting_from_the_group_counts_against_the_new_match_limit(group):
    caches["ratelimit"].clear()
    phone = Client()
    phone.get(g(group))  # the phone gets its id
    i = ids(group)
    seat = [f"m{i['Aïcha']}", f"m{i['Djibo']}"]
    answers = [post_form(phone, group, seat, "start").status_code for _ in range(2)]
    tapping = post_form(phone, group, seat, f"seat-{i['Chaibou']}")  # rearranging is not a start
    before = state(group)
    refused = post_form(phone, group, seat, "start")
    caches["ratelimit"].clear()
    assert answers == [302, 302] and tapping.status_code == 200
    assert refused.status_code == 429 and "Too many new matches and groups from this phone" in refused.content.decode()
    assert state(group) == before


@pytest.mark.engine
@override_settings(TAP_RATE_LIMIT="3/h", TAP_ADDRESS_RATE_LIMIT="1000/h")
def test_changes_to_a_group_count_against_the_tap_limit(group):
    caches["ratelimit"].clear()
    phone = Client()
    phone.get(g(group))
    statuses = [phone.post(g(group, "players/"), {"name": f"P{n}"}).status_code for n in range(4)]
    caches["ratelimit"].clear()
    assert statuses == [302, 302, 302, 429]
    assert "P3" not in members(group)
