"""Settling up on the screens: Fapfap for a stake (each player's net money and the fewest payments, on
the table and at the match end), Cat Tê in chips, and the result a table shares at the end, in English
and French, with the watch link and never the member link. The share button in Debian's chromium:
tests/browser/test_share_result.py."""

import re
from html import unescape

import pytest
from django.template.loader import render_to_string
from django.utils import formats, timezone

from matches.models import Group, Sitting
from matches.web.presenters.table_state import TableState
from matches.domain.rules import MatchEnd, MatchEndKind

from tests.conftest import shown
from tests.web.test_table_words import start, tally, tap
from tests.web.test_views import url

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
SETTLE = re.compile(r'<div class="settle">(.*?)</div>', re.DOTALL)
NET = re.compile(r'<tr><th scope="row"><span class="name">(.*?)</span></th><td class="num">(.*?)</td></tr>')
PAYMENT = re.compile(r"<li>(.*?)</li>")
SENTENCE = re.compile(r"^(.+) pays (.+) ([\d,]+) FCFA\.$")
TEXT = re.compile(r'<textarea id="result-text"[^>]*>(.*?)</textarea>', re.DOTALL)
NAMES = ["Mbarga", "Ngono", "Ateba"]


def settlements(page: str) -> list[tuple[dict[str, str], list[str]]]:
    """Every settlement on a page: the nets by name as shown, and the payments as sentences (names
    without their isolation: test_bidi checks it)."""
    return [
        ({unescape(n): unescape(v) for n, v in NET.findall(block)}, [unescape(p) for p in PAYMENT.findall(block)])
        for block in SETTLE.findall(shown(page))
    ]


def signed(text: str) -> int:
    return int(text.replace("\u2212", "-").replace(",", "").replace("+", ""))


def paid(nets: dict[str, str], payments: list[str]) -> dict[str, int]:
    """The nets once every payment is made: what the payer gave comes back to zero."""
    left = {name: signed(net) for name, net in nets.items()}
    for sentence in payments:
        payer, payee, amount = SENTENCE.match(sentence).groups()
        left[payer] += int(amount.replace(",", ""))
        left[payee] -= int(amount.replace(",", ""))
    return left


def fapfap(client, **settings) -> Sitting:
    return start(client, "fapfap", {"stake_amount": "100", "stake_label": "FCFA", **settings}, NAMES)


# --- Fapfap for a stake ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_fapfap_nets_and_payments_at_any_time_during_the_match(client):
    """Ngono x2, Ngono x4, Mbarga x1 at 100 FCFA: every other player pays the winner 100 x multiplier.
    Stakes Mbarga 1, Ngono 6, Ateba 0 (T = 7, n = 3): nets 100 x (3 x own - 7) = -400, +1100, -700.
    Fewest payments: Mbarga pays Ngono 400, Ateba pays Ngono 700; listed by name, as the nets are."""
    sitting = fapfap(client)
    for number, (seat, multiplier) in enumerate([(2, "2"), (2, "4"), (1, "1")], start=1):
        tap(client, sitting, number, seat, {"multiplier": multiplier})
    response = client.get(url(sitting))
    state = TableState.of(sitting.table())
    # The score table's money column is the same net.
    assert tally(response.content.decode()) == (
        ["Stakes won", "FCFA", "Hands won"],
        {"Mbarga": [1, -400, 1], "Ngono": [6, 1100, 2], "Ateba": [0, -700, 0]},
    )
    # What the table offers to show (the one-line include in table.html renders it).
    settled = state.settling
    assert settled.nets == (("Ateba", -700), ("Mbarga", -400), ("Ngono", 1100))
    block = render_to_string("matches/_settlement.html", {"settling": settled})
    [(nets, payments)] = settlements(block)
    assert nets == {"Mbarga": "\u2212400", "Ngono": "+1,100", "Ateba": "\u2212700"}
    assert payments == ["Ateba pays Ngono 700 FCFA.", "Mbarga pays Ngono 400 FCFA."]
    assert set(paid(nets, payments).values()) == {0}
    assert "Settling up in FCFA" in block


@pytest.mark.django_db
def test_the_home_list_shows_a_stake_match_in_money_not_stakes_won(client):
    """The same three hands as above: the home list says each player's net money, as the table's
    money column does (Mbarga 1 stake won is -400 FCFA), and a plain match keeps its stakes."""
    sitting = fapfap(client)
    for number, (seat, multiplier) in enumerate([(2, "2"), (2, "4"), (1, "1")], start=1):
        tap(client, sitting, number, seat, {"multiplier": multiplier})
    plain = start(client, "fapfap", {}, ["Eto", "Foe"])
    tap(client, plain, 1, 2, {"multiplier": "4"})
    home = re.sub(r"[ \n]+", " ", shown(client.get("/").content.decode()))  # keeps the no-break spaces
    assert "Mbarga \u2212400\u00a0FCFA, Ngono +1,100\u00a0FCFA, Ateba \u2212700\u00a0FCFA" in home
    assert "Eto 0, Foe 4" in home


@pytest.mark.django_db
def test_the_match_table_page_shows_the_settlement_while_playing(client):
    sitting = fapfap(client)
    tap(client, sitting, 1, 2, {"multiplier": "4"})  # Ngono x4: +800, the others -400 each
    for page in (
        client.get(url(sitting)).content.decode(),
        tap(client, sitting, 2, 1, {"multiplier": "1"}).content.decode(),
    ):
        [(nets, payments)] = settlements(page)
        assert set(paid(nets, payments).values()) == {0} and payments
    # After hand 2 (Mbarga x1): Mbarga -400 + 200, Ngono 800 - 100, Ateba -400 - 100.
    assert nets == {"Mbarga": "\u2212200", "Ngono": "+700", "Ateba": "\u2212500"}


BEFORE_PAYMENTS = "This match alone, before any payment: what is still owed is in the group’s tab."


@pytest.mark.django_db
def test_a_group_matchs_settlement_says_the_group_tab_holds_what_is_still_owed(client):
    sitting = fapfap(client)
    tap(client, sitting, 1, 2, {"multiplier": "4"})
    assert BEFORE_PAYMENTS not in shown(client.get(url(sitting)).content.decode())  # no group, no tab
    Group.create("Vendredi", NAMES).save_sitting(sitting)
    answer = tap(client, sitting, 2, 1, {"multiplier": "1"}).content.decode()
    assert [len(settlements(answer)), shown(answer).count(BEFORE_PAYMENTS)] == [1, 1]
    sitting.refresh_from_db()
    sitting.end_match(3)
    for page in (client.get(url(sitting)).content.decode(), client.get(f"/w/{sitting.watch_token}/").content.decode()):
        assert "Match over" in page and shown(page).count(BEFORE_PAYMENTS) == 1


@pytest.mark.django_db
def test_fapfap_nets_and_payments_at_the_match_end(client):
    """First to 7 stakes: Ngono x2, x4, Mbarga x1, Ngono x1 ends it. Stakes 1, 7, 0 (T = 8): nets
    100 x (3 x own - 8) = -500, +1300, -800: Mbarga pays Ngono 500, Ateba pays Ngono 800."""
    sitting = fapfap(client, end_kind="points", end_target="7")
    for number, (seat, multiplier) in enumerate([(2, "2"), (2, "4"), (1, "1"), (2, "1")], start=1):
        answer = tap(client, sitting, number, seat, {"multiplier": multiplier})
    sitting.refresh_from_db()
    assert sitting.is_finished
    for page in (
        answer.content.decode(),
        client.get(url(sitting)).content.decode(),
        client.get(f"/w/{sitting.watch_token}/").content.decode(),
    ):
        assert "Match over" in page
        [(nets, payments)] = settlements(page)  # once: in the standings
        assert nets == {"Mbarga": "\u2212500", "Ngono": "+1,300", "Ateba": "\u2212800"}
        assert payments == ["Ateba pays Ngono 800 FCFA.", "Mbarga pays Ngono 500 FCFA."]  # by name
        assert set(paid(nets, payments).values()) == {0}


@pytest.mark.django_db
def test_without_a_currency_the_payments_name_none(client):
    sitting = start(client, "fapfap", {"stake_amount": "50"}, ["A", "B"])
    tap(client, sitting, 1, 2, {"multiplier": "2"})
    sitting.refresh_from_db()
    sitting.end_match(2)
    [(nets, payments)] = settlements(client.get(url(sitting)).content.decode())
    # Two seats: A pays B 50 x 2; B nets 50 x (2 x 2 - 2).
    assert (nets, payments) == ({"A": "\u2212100", "B": "+100"}, ["A pays B 100."])


@pytest.mark.django_db
def test_games_without_money_or_chips_settle_nothing(client, sitting):
    sitting.record_hand(1, 2)
    sitting.end_match(2)
    page = client.get(url(sitting)).content.decode()
    assert settlements(page) == [] and "Settling up" not in page
    fapfap_for_nothing = Sitting.start("fapfap", ["A", "B"])
    fapfap_for_nothing.record_hand(1, 0, {"multiplier": "4"})
    assert TableState.of(fapfap_for_nothing.table()).settling is None


# --- Cat Tê in chips --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_cat_te_settles_in_chips_against_the_stacks_and_the_re_issues(client):
    """2 chips each (Ben, Cal, Dia): Dia's dealt flush takes 2 from each (Ben and Cal run out); a batch
    of 2 to everyone; Ben wins two last tricks (1 from each). Chips in front: 2 x 2 + total:
    Ben 6, Cal 0, Dia 6; nets (the totals) +2, -4, +2: Cal gives Ben 2 and Dia 2."""
    sitting = Sitting.start("cat-te", ["Ben", "Cal", "Dia"], MatchEnd(MatchEndKind.HANDS, 3), starting_chips=2)
    sitting.record_hand(1, 2, {"how": "flush"})
    sitting.reissue_chips(0)
    sitting.record_hand(2, 0, {"how": "last"})
    sitting.record_hand(3, 0, {"how": "last"})
    page = client.get(url(sitting)).content.decode()
    assert tally(page)[1] == {"Ben": [6, 2], "Cal": [0, 0], "Dia": [6, 1]}
    [(nets, payments)] = settlements(page)
    assert nets == {"Ben": "+2", "Cal": "\u22124", "Dia": "+2"}
    assert payments == ["Cal owes Ben the worth of 2 chips.", "Cal owes Dia the worth of 2 chips."]
    assert "Settling up in chips" in page
    french = client.get(url(sitting), **FR).content.decode()
    assert settlements(french)[0][1] == [
        "Cal doit à Ben la valeur de 2 jetons.",
        "Cal doit à Dia la valeur de 2 jetons.",
    ]


@pytest.mark.django_db
def test_one_chip_is_said_in_the_singular(client):
    sitting = Sitting.start("cat-te", ["Ben", "Cal", "Dia"], MatchEnd(MatchEndKind.HANDS, 1))
    sitting.record_hand(1, 0, {"how": "last"})
    assert settlements(client.get(url(sitting)).content.decode())[0][1] == [
        "Cal owes Ben the worth of 1 chip.",
        "Dia owes Ben the worth of 1 chip.",
    ]


# --- the shared result ------------------------------------------------------------------------------


def shared_text(page: str) -> str:
    return unescape(TEXT.search(page)[1])


@pytest.mark.django_db
def test_the_shared_result_in_english(client):
    sitting = fapfap(client, end_kind="points", end_target="7")
    for number, (seat, multiplier) in enumerate([(2, "2"), (2, "4"), (1, "1"), (2, "1")], start=1):
        answer = tap(client, sitting, number, seat, {"multiplier": multiplier})
    sitting.refresh_from_db()
    day = timezone.localtime(sitting.started_at)
    expected = "\n".join(
        [
            f"Fapfap · {formats.date_format(day, 'DATE_FORMAT')}",  # Nov. 30, 2026
            "1. Ngono: +1,300\u00a0FCFA (7 stakes won)",  # at a stake, the money first (issue 10)
            "2. Mbarga: \u2212500\u00a0FCFA (1 stake won)",  # a Latin name bare: FSI and PDI only around right-to-left ones
            "3. Ateba: \u2212800\u00a0FCFA (0 stakes won)",
            "Ngono wins the match with +1,300\u00a0FCFA (7 stakes won).",
            "Settling up in FCFA:",
            "Ateba pays Ngono 800 FCFA.",
            "Mbarga pays Ngono 500 FCFA.",
            f"Follow the score: http://testserver/w/{sitting.watch_token}/",
        ]
    )
    for page in (answer.content.decode(), client.get(url(sitting)).content.decode()):  # the tap's answer, the page
        assert shared_text(page) == expected
        assert sitting.token not in shared_text(page)
    watched = client.get(f"/w/{sitting.watch_token}/").content.decode()
    assert shared_text(watched) == expected and sitting.token not in watched


@pytest.mark.django_db
def test_the_shared_result_in_french(client):
    sitting = Sitting.start("cat-te", ["Ben", "Cal", "Dia"], MatchEnd(MatchEndKind.HANDS, 2), starting_chips=10)
    sitting.record_hand(1, 0, {"how": "last"})
    sitting.record_hand(2, 2, {"how": "last"})  # Ben and Dia level at 11: a shared first place
    text = shared_text(client.get(url(sitting), **FR).content.decode())
    day = timezone.localtime(sitting.started_at)
    months = ["jan.", "fév.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."]
    ben, cal, dia = "Ben", "Cal", "Dia"  # bare in text for other apps (names.shared)
    assert text.split("\n") == [
        f"Cat Tê · {day.day} {months[day.month - 1]} {day.year}",  # the month abbreviated: nobody misreads it
        f"1. {ben}\u00a0: 11 jetons (+1)",  # against the 10 each was given
        f"1. {dia}\u00a0: 11 jetons (+1)",
        f"3. {cal}\u00a0: 8 jetons (\u22122)",
        f"Première place partagée\u00a0: {ben} et {dia}, avec 11 jetons (+1) chacun.",
        "Comptes à régler, en jetons\u00a0:",
        f"{cal} doit à {ben} la valeur de 1 jeton.",
        f"{cal} doit à {dia} la valeur de 1 jeton.",
        f"Suivre le score\u00a0: http://testserver/w/{sitting.watch_token}/",
    ]


@pytest.mark.django_db
def test_a_match_with_no_hand_won_shares_that(client, sitting):
    sitting.end_match(1)
    text = shown(shared_text(client.get(url(sitting)).content.decode()))
    assert text.split("\n")[1:] == [
        "1. Aïcha: 0 hands won",
        "1. Boubacar: 0 hands won",
        "1. Chaibou: 0 hands won",
        "1. Djibo: 0 hands won",
        "No hand was won.",
        "Ended before its first hand.",  # an open match: said where anyone who reads it later sees it
        f"Follow the score: http://testserver/w/{sitting.watch_token}/",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("played, said", [(3, "Ended after hand 3."), (0, "Ended before its first hand.")])
def test_an_open_match_ended_by_a_member_says_when_not_that_it_ended_early(client, played, said):
    sitting = Sitting.start("agram", ["Aïcha", "Boubacar"], MatchEnd(MatchEndKind.OPEN))
    for number in range(1, played + 1):
        sitting.record_hand(number, number % 2)
    sitting.end_match(played + 1)
    page = shown(client.get(url(sitting)).content.decode())
    assert said in page and said in shown(shared_text(page))
    assert "Ended early" not in page


# The share button in a phone's browser (the share sheet, the clipboard): tests/browser/test_share_result.py;
# the result's box without JavaScript: tests/web/test_without_javascript.py.


@pytest.mark.django_db
def test_cat_te_chips_with_a_worth_settle_in_money_in_the_phones_language(client):
    """Each chip a hand moved is worth the stake: Đức, who lost 2 chips at 5,000 đ each, pays 10,000 đ."""
    worth = {"end_kind": "hands", "end_target_hands": "12", "starting_chips": "20", "stake_amount": "5.000", "stake_label": "đ"}
    sitting = start(client, "cat-te", worth, ["Lan", "Minh", "Đức"])
    assert sitting.stake_amount == 5000
    tap(client, sitting, 1, 1, {"how": "last"})  # Lan: 1 chip from each
    tap(client, sitting, 2, 2, {"how": "last"})  # Minh: 1 chip from each
    english = unescape(client.get(url(sitting)).content.decode())
    assert "Settling up in đ" in english
    assert "<bdi>Đức</bdi> pays <bdi>Lan</bdi> 5,000 đ." in english and "<bdi>Đức</bdi> pays <bdi>Minh</bdi> 5,000 đ." in english
    vietnamese = unescape(client.get(url(sitting), HTTP_ACCEPT_LANGUAGE="vi").content.decode())
    assert "<bdi>Đức</bdi> trả <bdi>Lan</bdi> 5.000 đ." in vietnamese, re.findall(r"[^>]{0,40}5.000[^<]{0,20}", vietnamese)


@pytest.mark.django_db
def test_cat_te_with_a_chip_worth_says_it_and_shows_each_players_chips_in_money(client):
    worth = {"end_kind": "hands", "end_target_hands": "12", "starting_chips": "20", "stake_amount": "0,50", "stake_label": "€"}
    sitting = start(client, "cat-te", worth, ["Lan", "Minh", "Đức"])
    tap(client, sitting, 1, 1, {"how": "flush"})  # Lan: 2 chips from each
    page = unescape(client.get(url(sitting), **FR).content.decode())
    assert "Un jeton vaut 0,50\u00a0€" in page
    assert tally(client.get(url(sitting)).content.decode())[1]["Lan"] == [24, 200, 1]  # chips, 2.00 € (read as digits), won
