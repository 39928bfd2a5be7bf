"""Pushed updates through real servers (the ASGI server `make run` uses): a change reaches every phone
showing the table at once, in its language, across worker processes and app servers."""

import os
import re
import time

import pytest
import redis

from matches.models import Group, Sitting

from tests.servers import EventStream, Phone, gunicorn, redis_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.engine]
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]
REDIS_URL = redis_url()


def events_url(server, sitting, watching=False):
    return f"{server}/{'w' if watching else 's'}/{sitting.watch_token if watching else sitting.token}/events/"


def tap(server, sitting, number, winner):
    phone = Phone()
    phone.get(f"{server}/s/{sitting.token}/")
    answer = phone.post(f"{server}/s/{sitting.token}/tap/", {"number": number, "winner": winner})
    assert answer.status == 200, answer.body[:300]
    return time.monotonic()


def group_page_version(server, group):
    """The version the group page names to its stream, as a phone loads it."""
    body = Phone().get(f"{server}/g/{group.token}/").body
    return re.search(r'id="group" class="group" data-version="([^"]*)"', body)[1]


def test_a_tap_reaches_every_connected_phone_within_a_second_as_the_new_table(tmp_path):
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path, workers=2) as server:
        phones = [EventStream(f"{events_url(server, sitting)}?v={sitting.version}") for _ in range(4)]
        assert phones[0].headers["Content-Type"].startswith("text/event-stream")
        assert phones[0].headers["X-Accel-Buffering"] == "no" and "no-store" in phones[0].headers["Cache-Control"]
        answered = tap(server, sitting, 1, 3)
        for phone in phones[1:]:
            event = phone.next(timeout=5)
            assert time.monotonic() - answered < 1.0
            sitting.refresh_from_db()
            assert (event.name, event.id) == ("table", str(sitting.version))
            assert 'id="table"' in event.data and "Hand 2" in event.data and "Chaibou" in event.data
            assert "csrfmiddlewaretoken" not in event.data  # htmx sends the page's token
        for phone in phones:
            phone.close()


def test_a_phone_that_reconnects_gets_the_table_at_once_only_if_it_missed_a_change(tmp_path):
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path, LIVE_HEARTBEAT_SECONDS="0.5") as server:
        seen = str(sitting.version)
        with EventStream(events_url(server, sitting), last_event_id=seen) as current:
            assert current.next(timeout=20, heartbeats=2) is None  # nothing missed: heartbeats only
        tap(server, sitting, 1, 2)
        with EventStream(f"{events_url(server, sitting)}?v=1", last_event_id=seen) as behind:
            event = behind.next(timeout=2)  # Last-Event-ID wins over ?v=
            assert event.name == "table" and event.id == str(int(seen) + 1)


def test_the_stream_speaks_the_phones_language(tmp_path):
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path) as server:
        french = Phone()
        french.cookies.set_cookie(_cookie("django_language", "fr"))
        with EventStream(f"{events_url(server, sitting)}?v=0", phone=french) as stream:
            assert "Qui a gagné" in stream.next().data


def test_new_links_end_the_old_links_streams_and_an_unknown_link_has_none(tmp_path):
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path) as server:
        with EventStream(f"{events_url(server, sitting)}?v={sitting.version}") as old:
            sitting.rotate_links()
            event = old.next(timeout=3)
            assert (event.name, event.data) == ("gone", "")
        phone = Phone()
        for url in (events_url(server, sitting).replace(sitting.token, "A" * 22), f"{server}/s/%F0%9F/events/"):
            assert phone.get(url).status == 404


def test_the_watch_screen_is_live_without_member_controls_and_follows_a_rematch(tmp_path):
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path) as server:
        with EventStream(f"{events_url(server, sitting, watching=True)}?v={sitting.version}") as screen:
            tap(server, sitting, 1, 1)
            event = screen.next(timeout=3)
            assert event.name == "table" and "Boubacar" in event.data
            assert sitting.token not in event.data and "/tap/" not in event.data
            sitting.refresh_from_db()
            sitting.end_match(2)
            ended = screen.next(timeout=3)
            assert ended.name == "table" and "Who won?" not in ended.data and "Hand 2" not in ended.data
            new = sitting.rematch()
            event = screen.next(timeout=3)
            assert (event.name, event.data) == ("gone", f"/w/{new.watch_token}/")


def test_the_group_page_hears_of_its_matches_and_its_own_changes(tmp_path):
    group = Group.create("Vendredi", NAMES)
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    with gunicorn(tmp_path) as server:
        with EventStream(f"{server}/g/{group.token}/events/?v={group_page_version(server, group)}") as page:
            tap(server, sitting, 1, 2)
            assert page.next(timeout=3).name == "changed"
            group.rename_player(group.members()[0].pk, "Aminata")
            assert page.next(timeout=3).name == "changed"
        with EventStream(f"{server}/gw/{group.watch_token}/events/?v=0") as behind:
            assert behind.next(timeout=3).name == "changed"  # it missed something: fetch the page


def test_a_group_page_opened_just_after_a_change_is_not_told_of_it_again(tmp_path):
    """The change is still among the recent ones the server looks at: the page shows it already."""
    group = Group.create("Vendredi", NAMES)
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    with gunicorn(tmp_path, LIVE_HEARTBEAT_SECONDS="0.5") as server:
        tap(server, sitting, 1, 2)
        with EventStream(f"{server}/g/{group.token}/events/?v={group_page_version(server, group)}") as page:
            assert page.next(timeout=20, heartbeats=2) is None  # heartbeats only
            group.rename_player(group.members()[0].pk, "Aminata")
            assert page.next(timeout=3).name == "changed"


def test_a_group_page_back_after_a_hand_recorded_while_it_was_away_is_told(tmp_path):
    """The group's own version did not move (a hand is its match's change), yet its standings did."""
    group = Group.create("Vendredi", NAMES)
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    with gunicorn(tmp_path) as server:
        shown = group_page_version(server, group)
        tap(server, sitting, 1, 2)  # the page's phone offline meanwhile: its stream reconnects with the same ?v=
        with EventStream(f"{server}/g/{group.token}/events/?v={shown}") as page:
            assert page.next(timeout=3).name == "changed"


@pytest.mark.parametrize("feed", ["database", "redis"])
def test_a_tap_on_one_app_server_reaches_a_phone_on_another(tmp_path, feed):
    settings = {}
    if feed == "redis":
        try:
            redis.Redis.from_url(REDIS_URL).ping()
        except redis.ConnectionError:
            pytest.skip(f"no Redis server answered at {REDIS_URL}")
        settings["CACHE_URL"] = REDIS_URL
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path, workers=2, **settings) as one, gunicorn(tmp_path, workers=2, **settings) as two:
        streams = [EventStream(f"{events_url(two, sitting)}?v={sitting.version}") for _ in range(3)]
        for number in (1, 2, 3):
            answered = tap(one, sitting, number, number)
            for stream in streams:
                event = stream.next(timeout=5)
                assert event.name == "table" and time.monotonic() - answered < 1.0
        sitting.refresh_from_db()
        assert event.id == str(sitting.version)
        for stream in streams:
            stream.close()


def _cookie(name, value):
    import http.cookiejar

    return http.cookiejar.Cookie(
        0, name, value, None, False, "127.0.0.1", True, False, "/", True, False, None, False, None, None, {}
    )


def test_held_streams_keep_no_thread_each(tmp_path):
    """4,000 phones on one worker must not mean 4,000 threads: a stream waits on the event loop."""
    sitting = Sitting.start("agram", NAMES)
    with gunicorn(tmp_path) as server:
        port = server.rsplit(":", 1)[1]
        streams = [EventStream(f"{events_url(server, sitting)}?v=0") for _ in range(40)]
        for stream in streams:
            assert stream.next().name == "table"
        threads = sum(_threads(pid) for pid in _pids_serving(port))
        assert threads < 20, f"{threads} threads for 40 streams"
        for stream in streams:
            stream.close()


def _pids_serving(port):
    for entry in os.listdir("/proc"):
        if entry.isdecimal():
            try:
                if f"127.0.0.1:{port}".encode() in open(f"/proc/{entry}/cmdline", "rb").read():
                    yield int(entry)
            except OSError:
                continue


def _threads(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


def test_a_renamed_player_reaches_the_tables_of_the_group_at_once(tmp_path):
    group = Group.create("Vendredi", NAMES)
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    sitting.refresh_from_db()
    with gunicorn(tmp_path) as server:
        with EventStream(f"{events_url(server, sitting)}?v={sitting.version}") as table:
            renamed = time.monotonic()
            group.rename_player(group.members()[0].pk, "Aminata")
            event = table.next(timeout=3)
            assert event.name == "table" and "Aminata" in event.data and time.monotonic() - renamed < 1.0
