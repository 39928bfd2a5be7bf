"""The night's settling up: one line a night, newest first, however many currencies and chips its
matches were played in; it counts every hand won that night, in the matches finished and in those
still being played (each Fapfap hand is paid when it is won): on the figures page, marked as still
playing, and on the group page while the night is on; its payments are those the match page says. A
property test over random open and finished matches."""

import datetime
import re

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.domain import stats
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.domain.settlement import settle
from matches.models import Group, Sitting
from matches.services.figures import read_group

from tests.conftest import examples
from tests.pages import FR, words
from tests.web.test_figures import friends, stats_url  # noqa: F401 - the hand-made group, as a fixture
from tests.web.test_settlement_views import settlements

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
NAMES = ["Mbarga", "Ngono", "Aïcha", "Djibo", "Boubacar"]
HAND = MatchEndKind.HANDS


def play(sitting: Sitting, taps) -> Sitting:
    """Record the next hands: (seat position, answers) each."""
    number = sitting.table(recent=1).open_number
    for seat, answers in taps:
        sitting.record_hand(number, seat, answers)
        number += 1
    return sitting


def x(multiplier: int) -> dict:
    return {"multiplier": str(multiplier)}


def night_section(page: str) -> str:
    found = re.findall(r'<section class="night">(.*?)</section>', page, re.S)
    assert len(found) == 1, found
    return words(found[0])


@pytest.fixture
def fapfap_night():
    """Mbarga, Ngono, Aïcha, Djibo at 100 FCFA a stake: one match finished, two rematches left open.
    Finished: Mbarga x1 then ended -> Mbarga +300, the others -100. Open: Ngono x2 (+600 / -200 each);
    open: Aïcha x4 twice (+2,400 / -800 each)."""
    group = Group.create("Jeudi", NAMES[:4])
    ids = [player.pk for player in group.players.order_by("pk")]

    def start():
        return group.start_match("fapfap", ids, None, stake_amount=100, stake_label="FCFA")

    finished = play(start(), [(0, x(1))])
    finished.end_match()
    play(start(), [(1, x(2))])
    play(start(), [(2, x(4)), (2, x(4))])
    return group


def test_the_figures_page_settles_the_night_with_the_matches_still_being_played(client, fapfap_night):
    page = client.get(f"/g/{fapfap_night.token}/stats/", **EN).content.decode()
    night = night_section(page)
    assert "3 matches · 2 still being played" in night
    # Mbarga 300 - 200 - 800 = -700; Ngono -100 + 600 - 800 = -300; Aïcha -100 - 200 + 2400 = 2100;
    # Djibo -100 - 200 - 800 = -1100: sums to 0.
    for name, net in (("Mbarga", "-700"), ("Ngono", "-300"), ("Aïcha", "+2,100"), ("Djibo", "-1,100")):
        assert re.search(rf"{name} {net.replace('+', '[+]')}", night.replace("−", "-")), (name, net, night)


def test_the_group_page_shows_tonights_settling_up_while_a_match_is_still_being_played(client, fapfap_night):
    page = client.get(f"/g/{fapfap_night.token}/", **EN).content.decode()
    assert "Tonight’s settling up" in page or "Tonight's settling up" in page
    night = night_section(page)
    assert "2 still being played" in night
    assert "Aïcha +2,100" in night.replace("−", "-")


def test_the_group_page_keeps_tonights_settling_up_after_the_last_match_ends_that_day(client, fapfap_night):
    for sitting in fapfap_night.sittings.filter(finished_at__isnull=True):
        sitting.end_match()
    night = night_section(client.get(f"/g/{fapfap_night.token}/", **EN).content.decode())
    assert "3 matches" in night and "still being played" not in night


def test_the_group_page_shows_no_settling_up_once_the_night_is_over(client, fapfap_night):
    for sitting in fapfap_night.sittings.filter(finished_at__isnull=True):
        sitting.end_match()
    fapfap_night.sittings.update(started_at=timezone.now() - datetime.timedelta(days=3))
    page = client.get(f"/g/{fapfap_night.token}/", **EN).content.decode()
    assert "settling up" not in page.lower()
    assert 'class="night"' in client.get(f"/g/{fapfap_night.token}/stats/", **EN).content.decode()


def test_a_night_that_goes_past_midnight_is_one_night(client, fapfap_night):
    """Started at 23:41, 23:58 and 00:10 in Yaoundé: one night, the evening's, on the figures page."""
    douala = datetime.timedelta(hours=1)  # Africa/Douala is UTC+1
    starts = ["23:41", "23:58", "00:10"]
    for sitting, start in zip(fapfap_night.sittings.order_by("pk"), starts, strict=True):
        hour, minute = map(int, start.split(":"))
        local = datetime.datetime(2026, 12, 5 if hour else 6, hour, minute, tzinfo=datetime.UTC)
        Sitting.objects.filter(pk=sitting.pk).update(started_at=local - douala, time_zone="Africa/Douala")
    night = night_section(client.get(f"/g/{fapfap_night.token}/stats/", **EN).content.decode())
    assert "3 matches" in night and "5 Dec" in night  # (night_section: exactly one night)


def test_a_match_still_being_played_counts_in_the_night_and_nowhere_in_the_figures(fapfap_night):
    read = read_group(fapfap_night)
    assert len(read.matches) == 1 and len(read.playing) == 2
    assert all(not match.counts for match in read.playing)
    assert sum(figure.matches_played for figure in stats.player_stats(read.every_match).values()) == 4


# --- one line a night -----------------------------------------------------------------------------

NIGHT = re.compile(r'<section class="night">(.*?)</section>', re.DOTALL)


@pytest.mark.parametrize("headers", [{}, FR], ids=["en", "fr"])
def test_a_night_with_money_and_chips_is_one_night(client, friends, headers):  # noqa: F811
    """The 8th: two Fapfap matches in FCFA and a Cat Tê match in chips: one heading, both settlements."""
    group, _, _ = friends
    page = client.get(stats_url(group), **headers).content.decode()
    nights = [words(night) for night in NIGHT.findall(page)]
    assert len(nights) == 1, nights
    day = "8 mars 2025 · 3 parties" if headers else "8 Mar 2025 · 3 matches"
    assert nights[0].startswith(day)
    assert page.count(day) == 1
    assert len(re.findall(r'<div class="settle">', NIGHT.search(page)[1])) == 2


def test_each_day_is_one_night_newest_first_and_counts_its_matches_once():
    day = datetime.date(2025, 3, 8)

    def match(key, game, when, **rest):
        return stats.MatchRecord(key, game, when, (1, 2), (1, 0), (1, 0), (1, 0), (1, 0), **rest)

    matches = [
        match(1, "fapfap", day, money=(100, -100), currency="FCFA"),
        match(2, "fapfap", day, money=(-50, 50), currency="CFA"),
        match(3, "cat-te", day, chips_net=(2, -2)),
        match(4, "cat-te", day + datetime.timedelta(days=1), chips_net=(1, -1)),
    ]
    from matches.web.views.figures import nights

    found = nights(matches, {1: "Ana", 2: "Ben"})
    assert [(night.matches, [(s.unit, s.chips) for s in night.settled]) for night in found] == [
        (1, [("", True)]),
        (3, [("CFA", False), ("FCFA", False), ("", True)]),
    ]


def test_a_cat_te_night_settles_as_its_match_page_says(client):
    """Djibo, Aïcha, Chaibou, Mariam at Cat Tê, 3 hands (Chaibou, Chaibou, Mariam, each by the last
    trick): chips Djibo -3, Aïcha -3, Chaibou +5, Mariam +1. Djibo sits first, Aïcha joined the group
    first: a tie-break by seat or by id gives two different sets of payments; by name, one."""
    group = Group.create("Samedi", ["Aïcha", "Chaibou", "Djibo", "Mariam"])
    ids = {p.name: p.pk for p in group.members()}
    seating = [ids[name] for name in ("Djibo", "Aïcha", "Chaibou", "Mariam")]
    sitting = group.start_match("cat-te", seating, MatchEnd(HAND, 3), starting_chips=20)
    for number, seat in enumerate([2, 2, 3], start=1):
        sitting.record_hand(number, seat, {"how": "last"})
    assert Sitting.objects.get(pk=sitting.pk).is_finished
    [(nets, on_match_page)] = settlements(client.get(sitting.get_absolute_url()).content.decode())
    assert nets == {"Djibo": "\u22123", "Aïcha": "\u22123", "Chaibou": "+5", "Mariam": "+1"}
    [(_, on_figures_page)] = settlements(client.get(stats_url(group)).content.decode())
    assert (
        set(on_match_page)
        == set(on_figures_page)
        == {
            "Aïcha owes Chaibou the worth of 3 chips.",
            "Djibo owes Chaibou the worth of 2 chips.",
            "Djibo owes Mariam the worth of 1 chip.",
        }
    )
    assert on_match_page == on_figures_page == [  # both by name (payer, then payee), not by seat
        "Aïcha owes Chaibou the worth of 3 chips.",
        "Djibo owes Chaibou the worth of 2 chips.",
        "Djibo owes Mariam the worth of 1 chip.",
    ]


# --- the property: a night over random open and finished matches ---------------------------------------

CAT_TE_PAYS = {"last": 1, "flush": 2}  # RULES.md, Cat Tê: each opponent pays the winner this many chips

a_match = st.fixed_dictionaries(
    {
        "game": st.sampled_from(["fapfap", "cat-te"]),
        "seats": st.lists(st.integers(0, 4), min_size=3, max_size=4, unique=True),  # Cat Tê: 3 or more
        "stake": st.sampled_from([25, 100, 500]),
        "hands": st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1, 2, 4]), st.booleans()), max_size=6),
        "finished": st.booleans(),
    }
)


def expected_gains(match: dict, ids: list[int]) -> tuple[dict, dict]:
    """Each player's gains over the match's hands, worked out hand by hand: (money, chips)."""
    money, chips = {}, {}
    seated = [ids[seat] for seat in match["seats"]]
    for winner, multiplier, flush in match["hands"]:
        winner = seated[winner % len(seated)]
        if match["game"] == "fapfap":
            each, total = match["stake"] * multiplier, money
        else:
            each, total = CAT_TE_PAYS["flush" if flush else "last"], chips
        for player in seated:
            total[player] = total.get(player, 0) + (each * (len(seated) - 1) if player == winner else -each)
    return money, chips


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(a_match, min_size=1, max_size=5))
def test_the_nights_settlement_sums_to_zero_and_to_every_hand_won_that_night(matches):
    group = Group.create("Nuit", NAMES)
    ids = [player.pk for player in group.players.order_by("pk")]
    want_money: dict[int, int] = {}
    want_chips: dict[int, int] = {}
    playing = set()
    for match in matches:
        seated = [ids[seat] for seat in match["seats"]]
        if match["game"] == "fapfap":
            sitting = group.start_match("fapfap", seated, None, stake_amount=match["stake"], stake_label="FCFA")
            taps = [(w % len(seated), x(m)) for w, m, _ in match["hands"]]
        else:
            sitting = group.start_match("cat-te", seated, None, starting_chips=50)
            taps = [(w % len(seated), {"how": "flush" if f else "last"}) for w, _, f in match["hands"]]
        play(sitting, taps)
        if match["finished"]:
            sitting.end_match()
        elif taps:
            playing.add(sitting.pk)
        money, chips = expected_gains(match, ids)
        for want, gains in ((want_money, money), (want_chips, chips)):
            for player, gain in gains.items():
                want[player] = want.get(player, 0) + gain

    nights = stats.nightly_nets(read_group(group).every_match)
    assert len({night.day for night in nights}) <= 1
    found = {night.chips: night for night in nights}
    for chips, want in ((False, want_money), (True, want_chips)):
        nets = found[chips].nets if chips in found else {}
        assert sum(nets.values()) == 0
        assert {p: n for p, n in nets.items() if n} == {p: n for p, n in want.items() if n}
        balance = dict(nets)
        for transfer in settle(nets):
            balance[transfer.payer] += transfer.amount
            balance[transfer.payee] -= transfer.amount
        assert set(balance.values()) <= {0}
    assert {key for night in nights for key in night.playing} == playing
