"""How big a group may grow (matches.domain.capacity): the verbs and the forms that add players, start
matches and record hands refuse past each limit, saying it; and every page of a group at the limits
stays bounded in bytes and queries (times: `make bench`), its files too, and its archive imports again."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from matches.domain.capacity import ARCHIVE_BYTES, GROUP_HANDS, GROUP_MATCHES, GROUP_PLAYERS, MATCH_HANDS
from matches.domain.errors import Conflict
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Hand, Player, Seat, Sitting
from matches.services.archive import export_group, import_group
from matches.services.figures import RATE_LINES
from matches.web.refusals import refusal_text
from matches.web.views.figures import PAIRS_SHOWN, SETTLED_SHOWN, SHARES_SHOWN
from matches.web.views.groups import MATCHES_SHOWN

from tests.big_groups import big_group, fill
from tests.conftest import shown
from tests.pages import fresh_counts  # noqa: F401 - autouse
from tests.rows import rows

# The pages, files and archive of a group at the limits are the same ORM queries on either engine: on the SQLite
# leg. What a lock counts (the last hand a group or a match keeps, the last player) runs on PostgreSQL too.
pytestmark = [pytest.mark.django_db]

FULL_OF_PLAYERS = "This group is full: a group keeps at most 300 players, counting those who left."
FULL_OF_MATCHES = "This group is full: a group keeps at most 5,000 matches."
FULL_OF_HANDS = "This group is full: a group keeps at most 50,000 hands."
MATCH_FULL = "This match is full: a match keeps at most 11,000 hands. End it and start a new match."
SEATS = 7  # at every match of the group at the limits
PLAYING = 3  # matches of the group at the limits still being played
FORMER = 280  # of its players, those who left


@pytest.fixture(scope="module")
def at_limits(django_db_setup, django_db_blocker):
    """A group at every limit: 300 players of 40-character names (280 of them left), 5,000 matches of
    7 seats (the newest 3 still being played), 50,000 hands. Written once for the module, in bulk."""
    with django_db_blocker.unblock():
        group = big_group(
            GROUP_PLAYERS, GROUP_MATCHES, GROUP_HANDS // GROUP_MATCHES, SEATS, "long", playing=PLAYING, former=FORMER
        )
    yield group
    with django_db_blocker.unblock():
        wipe(group)


def wipe(group: Group) -> None:
    Hand.objects.filter(sitting__group=group).delete()
    Seat.objects.filter(sitting__group=group).delete()
    Sitting.objects.filter(group=group).delete()
    Player.objects.filter(group=group).delete()
    group.delete()


def get(path: str) -> tuple[bytes, int]:
    """The page's bytes (a streamed file's too) and the queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = Client().get(path)
        assert response.status_code == 200, path
        body = b"".join(response.streaming_content) if response.streaming else response.content
    return body, len(queries)


def said(response) -> str:
    return html.unescape(shown(response.content.decode()))


def newest_playing(group: Group) -> Sitting:
    return group.sittings.filter(finished_at__isnull=True).order_by("-started_at").first()


# --- pages of a group at the limits: bounded bytes, the queries of a small group ----------------------


@pytest.mark.slow
def test_the_group_page_at_the_limits_stays_under_200_kB_in_the_queries_of_a_small_group(at_limits):
    small = big_group(12, 60, 5, 4, "long", playing=1, former=2)
    page, queries = get(at_limits.get_absolute_url())
    assert len(page) < 200_000 and queries == get(small.get_absolute_url())[1]
    text = page.decode()
    assert len(re.findall(r'<a href="/s/[^"]+/">\s*<strong>', text)) == MATCHES_SHOWN
    assert re.search(rf"And {GROUP_MATCHES - MATCHES_SHOWN:,}\s*older matches.".replace(",", ",?"), text)
    assert f'/g/{at_limits.token}/matches/?page=2">See the older matches</a>' in text
    assert f"{FORMER} former players" in text and text.count("csrfmiddlewaretoken") < 10  # one form for them all


@pytest.mark.slow
def test_the_watch_page_at_the_limits_stays_under_200_kB_in_the_queries_of_a_small_group(at_limits):
    small = big_group(12, 60, 5, 4, "long", playing=1, former=2)
    page, queries = get(f"/gw/{at_limits.watch_token}/")
    assert len(page) < 200_000 and queries == get(f"/gw/{small.watch_token}/")[1]
    assert f'/gw/{at_limits.watch_token}/matches/?page=2"' in page.decode() and "/g/" not in page.decode()


@pytest.mark.slow
def test_every_match_of_a_group_at_the_limits_is_a_page_of_the_match_list_away(at_limits):
    last = -(-GROUP_MATCHES // MATCHES_SHOWN)
    first, queries = get(f"/g/{at_limits.token}/matches/")
    oldest, same = get(f"/g/{at_limits.token}/matches/?page={last}")
    assert queries == same and len(first) < 200_000 and len(oldest) < 200_000
    assert f"Matches, page {last} of {last}" in oldest.decode() and "Older matches" not in oldest.decode()
    assert f"?page={last - 1}" in oldest.decode()
    shown_tokens = set(re.findall(r'href="/s/([^/]+)/"', oldest.decode()))
    oldest_tokens = at_limits.sittings.order_by("started_at", "pk").values_list("token", flat=True)
    assert shown_tokens == set(oldest_tokens[: GROUP_MATCHES - (last - 1) * MATCHES_SHOWN])
    for asked in ("0", "-1", "abc", "9" * 5000, str(last + 1), "1e3"):
        answer = Client().get(f"/g/{at_limits.token}/matches/", {"page": asked})
        assert answer.status_code == 200 and len(answer.content) < 200_000
    watched = get(f"/gw/{at_limits.watch_token}/matches/?page=2")[0].decode()
    assert "Matches, page 2 of" in watched and "/s/" not in watched and "/w/" in watched


@pytest.mark.slow
@pytest.mark.parametrize("link", ["g", "gw"])
def test_the_figures_of_a_group_at_the_limits_stay_under_400_kB_in_three_queries(at_limits, link):
    token = at_limits.token if link == "g" else at_limits.watch_token
    page, queries = get(f"/{link}/{token}/stats/")
    text = page.decode()
    assert len(page) < 400_000 and queries == 3
    assert text.count('<tr><th scope="row"><span class="name"><bdi>') == PAIRS_SHOWN
    assert f"Head to head · the {PAIRS_SHOWN} pairs who played together most" in text
    assert text.count("<polyline ") == RATE_LINES and f"the {RATE_LINES} players with the most matches" in text
    assert f"the {SHARES_SHOWN} largest shares" in text


@pytest.mark.slow
def test_the_csv_of_a_group_at_the_limits_is_bounded_and_read_in_a_few_queries(at_limits):
    body, queries = get(f"/g/{at_limits.token}/hands.csv")
    lines = body.count(b"\r\n")
    assert lines == 1 + SEATS * (GROUP_HANDS + GROUP_MATCHES)  # header, a row per hand and player, their nets
    # Each player's row repeats its hand's facts (time, dealer, winner: 40-character names): about 91 MB here.
    assert len(body) < 100_000_000 and queries <= 30


@pytest.mark.slow
def test_the_archive_of_a_group_at_the_limits_fits_the_import_page_and_imports_again(at_limits):
    body, queries = get(f"/g/{at_limits.token}/group.json")
    assert len(body) < ARCHIVE_BYTES and queries < 12  # one per kind of row, not one per match
    phone = Client()
    upload = SimpleUploadedFile("group.json", body, content_type="application/json")
    answer = phone.post("/groups/import/", {"archive": upload})
    assert answer.status_code == 302
    copy = Group.objects.get(token=answer["Location"].split("/")[2])
    again = export_group(copy)
    assert {**again, "changed_at": None} == {**json.loads(body), "changed_at": None}  # (the body: the group's)


# --- the limits, where players join, matches start and hands are recorded ----------------------------


@pytest.mark.slow
def test_a_full_group_takes_no_newcomer_from_its_page_but_brings_back_a_former_player(at_limits):
    phone = Client()
    before = rows()
    answer = phone.post(f"/g/{at_limits.token}/players/", {"name": "Zeinab"})
    assert answer.status_code == 409 and FULL_OF_PLAYERS in said(answer) and rows() == before
    with pytest.raises(Conflict) as refused:
        at_limits.add_player("Zeinab")
    assert FULL_OF_PLAYERS in refusal_text(refused.value)
    former = at_limits.players.filter(left=True).first()
    assert phone.post(f"/g/{at_limits.token}/players/", {"name": former.name}).status_code == 302
    assert at_limits.players.get(pk=former.pk).left is False and rows() == before


@pytest.mark.slow
def test_a_full_group_seats_no_newcomer_on_its_new_match_form(at_limits):
    members = list(at_limits.members()[:2])
    seat = [f"m{player.pk}" for player in members]
    before = rows()
    data = {"seat": seat, "action": "newcomer", "newcomer": "Zeinab", "end_kind": "open"}
    answer = Client().post(f"/g/{at_limits.token}/new/agram/", data)
    assert answer.status_code == 400 and FULL_OF_PLAYERS in said(answer) and rows() == before


@pytest.mark.slow
def test_a_full_group_starts_no_match_rematch_or_saved_match(at_limits):
    phone = Client()
    members = list(at_limits.members()[:2])
    before = rows()
    data = {"seat": [f"m{player.pk}" for player in members], "action": "start", "end_kind": "open"}
    answer = phone.post(f"/g/{at_limits.token}/new/agram/", data)
    assert answer.status_code == 409 and FULL_OF_MATCHES in said(answer)
    finished = at_limits.sittings.filter(finished_at__isnull=False).first()
    answer = phone.post(f"/s/{finished.token}/rematch/")
    assert answer.status_code == 409 and FULL_OF_MATCHES in said(answer)
    outside = Sitting.start("agram", ["Ana", "Ben"])
    before = rows()
    answer = phone.post(f"/s/{outside.token}/group/", {"group": at_limits.token})
    assert answer.status_code == 409 and FULL_OF_MATCHES in said(answer)
    with pytest.raises(Conflict):
        at_limits.start_match("agram", [player.pk for player in members])
    outside.refresh_from_db()
    assert rows() == before and outside.group_id is None


@pytest.mark.slow
@pytest.mark.engine
def test_a_group_holding_50000_hands_records_no_more_and_its_last_hand_goes_in_under_its_lock(at_limits):
    sitting = newest_playing(at_limits)
    number = sitting.table(recent=1).open_number
    before = rows()
    answer = Client().post(f"/s/{sitting.token}/tap/", {"number": number, "winner": 1})
    assert answer.status_code == 409 and FULL_OF_HANDS in said(answer) and rows() == before
    sitting.undo_hand(number - 1)  # 49,999 hands: room for one
    with CaptureQueriesContext(connection) as queries:
        sitting.record_hand(number - 1, 2)
    assert any("FOR UPDATE" in query["sql"] for query in queries) or connection.vendor == "sqlite"
    assert Hand.objects.filter(sitting__group=at_limits).count() == GROUP_HANDS
    with pytest.raises(Conflict) as refused:
        sitting.record_hand(number, 0)
    assert FULL_OF_HANDS in refusal_text(refused.value)


@pytest.mark.engine
def test_a_full_match_records_no_more_hands_and_ends_into_an_archive_that_imports(client):
    group = Group.create("Marathon", ["Ana", "Ben", "Cyr"])
    sitting = group.start_match("agram", [p.pk for p in group.members()], MatchEnd(MatchEndKind.OPEN))
    fill(sitting, MATCH_HANDS - 1)
    sitting.record_hand(MATCH_HANDS, 1)  # the last a match keeps
    before = rows()
    answer = client.post(f"/s/{sitting.token}/tap/", {"number": MATCH_HANDS + 1, "winner": 1})
    assert answer.status_code == 409 and MATCH_FULL in said(answer) and rows() == before
    with pytest.raises(Conflict) as refused:
        sitting.record_hand(MATCH_HANDS + 1, 0)
    assert MATCH_FULL in refusal_text(refused.value)
    sitting.end_match()  # the next hand abandoned: the archive keeps it after the won ones
    archive = export_group(group)
    assert len(archive["sittings"][0]["hands"]) == MATCH_HANDS + 1
    assert len(export_group(import_group(archive))["sittings"][0]["hands"]) == MATCH_HANDS + 1


@pytest.mark.engine
def test_a_group_is_made_with_300_players_at_most_and_saves_no_match_past_them(client):
    before = rows()
    with pytest.raises(Conflict) as refused:
        Group.create("Too many", [f"P{n}" for n in range(GROUP_PLAYERS + 1)])
    assert FULL_OF_PLAYERS in refusal_text(refused.value) and rows() == before
    group = Group.create("Almost", [f"P{n}" for n in range(GROUP_PLAYERS - 1)])
    outside = Sitting.start("agram", ["Ana", "Ben"])
    outside.record_hand(1, 0)
    before = rows()
    answer = client.post(f"/s/{outside.token}/group/", {"group": group.token})
    assert answer.status_code == 409 and FULL_OF_PLAYERS in said(answer) and rows() == before
    group.add_player("Ana")  # the 300th
    assert group.players.count() == GROUP_PLAYERS


def test_a_night_of_many_currencies_shows_eight_and_says_how_many_more(client):
    group = Group.create("Money", ["Ana", "Ben"])
    a, b = (p.pk for p in group.members())
    for number in range(SETTLED_SHOWN + 4):
        match = group.start_match("fapfap", [a, b], stake_amount=100, stake_label=f"C{number}")
        match.record_hand(1, 0, {"multiplier": "1"})
    page = client.get(group.get_absolute_url()).content.decode()
    assert page.count('<table class="nets">') == SETTLED_SHOWN  # tonight's
    assert "And 4 more currencies: see every hand (CSV)." in page
    figures = client.get(f"/g/{group.token}/stats/").content.decode()
    assert figures.count('<table class="nets">') == SETTLED_SHOWN and "And 4 more currencies" in figures


@pytest.mark.parametrize("path", ["/g/{token}/", "/g/{token}/stats/"])
def test_the_pages_of_300_players_of_the_widest_names_stay_under_400_kB(path):
    group = big_group(GROUP_PLAYERS, 120, 3, 7, "widest", playing=1, former=FORMER)
    page, _queries = get(path.format(token=group.token))
    assert len(page) < 400_000
