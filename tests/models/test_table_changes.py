"""The table changing mid-match: who plays, who deals, what each is owed, and what stays refused."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matches.domain.errors import BadInput, Conflict
from matches.domain.rules import MatchEnd, MatchEndKind
from matches.domain.settlement import settle
from matches.models import Group, Sitting, TableChange
from matches.web.refusals import refusal_text

from tests.conftest import examples

pytestmark = pytest.mark.django_db
SETTINGS = settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(st.data())
def test_a_fapfap_night_with_players_coming_and_going_settles_to_exactly_zero(data):
    """Every hand paid by those who played it (each other player pays the winner stake x multiplier),
    corrections included; the nets sum to 0 and the suggested payments settle them."""
    stake = data.draw(st.integers(1, 1000))
    sitting = Sitting.start("fapfap", ["A", "B", "C"], stake_amount=stake, stake_label="CFA")
    played = {}  # hand number -> (positions playing, winner, multiplier)
    newcomers = iter("DEFGHIJK")
    for _ in range(data.draw(st.integers(1, 12))):
        table = sitting.table()
        step = data.draw(st.sampled_from(["tap", "tap", "join", "leave", "correct"]))
        if step == "join" and len(table.playing) < 7:
            sitting.seat_player(next(newcomers))
        elif step == "leave" and len(table.playing) > 2:
            sitting.unseat_player(data.draw(st.sampled_from(table.playing)))
        elif step == "correct" and played:
            number = data.draw(st.sampled_from(sorted(played)))
            seats = played[number][0]
            winner, times = data.draw(st.sampled_from(seats)), data.draw(st.sampled_from("124"))
            if played[number][1:] != (winner, int(times)):  # a correction to what the hand says is refused
                sitting.correct_hand(number, winner, {"multiplier": times})
                played[number] = (seats, winner, int(times))
        else:
            winner, times = data.draw(st.sampled_from(table.playing)), data.draw(st.sampled_from("124"))
            sitting.record_hand(table.open_number, winner, {"multiplier": times})
            played[table.open_number] = (table.playing, winner, int(times))
    table = sitting.table()
    expected = [0] * len(table.seats)
    for seats, winner, times in played.values():
        for seat in seats:
            if seat != winner:
                expected[seat] -= stake * times
                expected[winner] += stake * times
    assert table.nets == expected
    assert sum(table.nets) == 0
    owed = dict(enumerate(table.nets))
    for transfer in settle(owed):
        owed[transfer.payer] += transfer.amount
        owed[transfer.payee] -= transfer.amount
    assert set(owed.values()) <= {0}
    assert sitting.check_totals() == []


def test_a_latecomer_plays_from_the_open_hand_sitting_last_and_the_deal_goes_round_to_them():
    sitting = Sitting.start("letzter-stich", ["Anna", "Ben", "Carl"])
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1)  # Anna dealt 1, Ben 2: Carl deals 3
    seat = sitting.seat_player("Dora")
    assert (seat.position, seat.joined) == (3, 3)
    table = sitting.table()
    assert table.playing == (0, 1, 2, 3) and table.dealer_seat.name == "Carl"
    sitting.record_hand(3, 3)
    assert sitting.table().dealer_seat.name == "Dora"
    assert [hand.points for hand in sitting.hands.order_by("number")] == [[50, 0, 0, 0], [0, 50, 0, 0], [0, 0, 0, 50]]


def test_a_player_who_leaves_keeps_their_score_and_no_longer_deals_nor_wins():
    sitting = Sitting.start("letzter-stich", ["Anna", "Ben", "Carl", "Dora"])
    sitting.record_hand(1, 1)  # Anna dealt: Ben deals hand 2
    sitting.unseat_player(1)
    table = sitting.table()
    assert table.playing == (0, 2, 3) and table.dealer_seat.name == "Carl"
    assert table.seats[1].total == 50
    with pytest.raises(BadInput) as refused:
        sitting.record_hand(2, 1)
    assert refused.value.code == "seat_not_playing"


def test_one_who_left_comes_back_to_their_own_seat_until_a_hand_is_played_without_them():
    """A leave tapped by mistake is taken back by seating the same name before the next hand: same seat,
    same score, and the deal as if they never left; once a hand went by without them, it is refused."""
    sitting = Sitting.start("letzter-stich", ["Anna", "Ben", "Carl", "Dora"])
    sitting.record_hand(1, 1)  # Anna dealt: Ben deals hand 2
    sitting.unseat_player(1)
    seat = sitting.seat_player(" ben ")
    table = sitting.table()
    assert (seat.position, seat.joined, seat.left) == (1, 1, None) and len(table.seats) == 4
    assert table.playing == (0, 1, 2, 3) and table.dealer_seat.name == "Ben" and table.seats[1].total == 50
    assert list(sitting.table_changes.values_list("kind", "before")) == [("left", 2), ("joined", 2)]
    sitting.unseat_player(1)
    sitting.record_hand(2, 0)
    with pytest.raises(BadInput) as refused:
        sitting.seat_player("Ben")
    assert refused.value.code == "name_left_table" and sitting.table().playing == (0, 2, 3)


def test_a_newcomer_to_eighty_three_starts_at_zero_and_the_thresholds_count_only_those_playing():
    sitting = Sitting.start("eighty-three", ["Anna", "Ben"])
    for number in range(1, 4):
        sitting.record_hand(number, 0, {"ace": "", "last": ""})  # 4 a hand: Anna 12, over 10
    assert sitting.is_finished
    sitting = Sitting.start("eighty-three", ["Anna", "Ben", "Carl"])
    sitting.record_hand(1, 0, {"ace": "", "last": ""})
    sitting.record_hand(2, 0, {"ace": "", "last": ""})  # Anna 8
    sitting.seat_player("Dora")
    assert sitting.table().seats[3].total == 0
    sitting.unseat_player(0)  # Anna leaves on 8: Ben reaching 12 alone wins
    for number in range(3, 6):
        sitting.record_hand(number, 1, {"ace": "", "last": ""})
    assert sitting.is_finished and sitting.table().leaders[0].name == "Ben"


def test_a_newcomer_to_cat_te_gets_the_starting_chips():
    sitting = Sitting.start("cat-te", ["Lan", "Minh", "Đức"], starting_chips=20)
    sitting.record_hand(1, 0, {"how": "last"})
    sitting.seat_player("Hoa")
    sitting.record_hand(2, 3, {"how": "last"})
    assert sitting.table().balances() == [21, 18, 18, 23]


def test_a_cat_te_newcomer_gets_only_the_chips_handed_out_after_they_sat_down_at_that_hand_too():
    """A batch and a seat taken while the same hand is open: who came first decides (the batch is for those at
    the table then), both ways round."""
    sitting = Sitting.start("cat-te", ["Lan", "Minh", "Đức"], starting_chips=2)
    sitting.record_hand(1, 0, {"how": "flush"})  # Minh and Đức pay 2 each: they ran out
    sitting.reissue_chips(0)
    sitting.seat_player("Hoa")  # after the batch: their one stack only
    assert sitting.table().balances() == [8, 2, 2, 2]
    sitting.record_hand(2, 3, {"how": "last"})  # Hoa wins one from each
    sitting.seat_player("Tuấn")
    sitting.unseat_player(0)  # Lan goes, before the next batch
    sitting.record_hand(3, 1, {"how": "flush"})  # Minh wins 2 from each of Đức (who had 1), Hoa and Tuấn
    sitting.seat_player("Vy")  # before the batch: a stack, then the batch as everyone
    sitting.reissue_chips(1)
    assert sitting.table().balances() == [7, 9, 1, 5, 2, 4]  # Lan, gone, got no batch


def test_the_seat_changes_keep_the_game_s_number_of_players():
    sitting = Sitting.start("cat-te", ["A", "B", "C", "D", "E", "F"])
    with pytest.raises(BadInput) as refused:
        sitting.seat_player("G")
    assert "3 to 6 players" in str(refused.value.params["error"])
    small = Sitting.start("fapfap", ["A", "B"])
    with pytest.raises(BadInput):
        small.unseat_player(0)


@pytest.mark.parametrize("name", ["B", " b ", ""])
def test_a_newcomer_needs_a_name_not_already_at_the_table(name):
    sitting = Sitting.start("agram", ["A", "B"])
    with pytest.raises(BadInput):
        sitting.seat_player(name)
    assert sitting.table().seats[-1].name == "B" and not TableChange.objects.exists()


def test_an_undo_cannot_reach_back_past_a_change_of_players_but_a_correction_can():
    sitting = Sitting.start("agram", ["A", "B", "C"])
    sitting.record_hand(1, 0)
    sitting.seat_player("D")
    with pytest.raises(Conflict) as refused:
        sitting.undo_hand(1)
    assert refused.value.code == "undo_table_changed"
    sitting.correct_hand(1, 2)
    assert [seat.total for seat in sitting.table().seats] == [0, 0, 1, 0]


def test_renaming_keeps_the_seat_and_says_what_the_name_was():
    sitting = Sitting.start("agram", ["Mbraga", "Ngono"])
    sitting.record_hand(1, 0)
    sitting.rename_player(0, "Mbarga")
    change = TableChange.objects.get()
    assert (change.kind, change.name_before, change.name, change.before) == ("renamed", "Mbraga", "Mbarga", 2)
    assert sitting.table().seats[0].name == "Mbarga"
    with pytest.raises(BadInput):
        sitting.rename_player(0, "ngono")


def test_in_a_group_a_newcomer_becomes_a_member_and_a_rename_shows_everywhere():
    group = Group.create("Jeudi", ["Awa", "Bintou", "Chloé"])
    sitting = group.start_match("agram", [player.pk for player in group.members()[:2]])
    sitting.seat_player("chloé")  # the member, not a second Chloé
    sitting.seat_player("Djibo")
    assert sorted(group.members().values_list("name", flat=True)) == ["Awa", "Bintou", "Chloé", "Djibo"]
    sitting.rename_player(3, "Djibril")
    assert group.members().filter(name="Djibril").exists()


def test_no_seat_changes_once_the_match_is_over():
    sitting = Sitting.start("agram", ["A", "B"], match_end=None)
    sitting.end_match()
    with pytest.raises(Conflict):
        sitting.seat_player("C")
    sitting.rename_player(0, "Ali")  # a misspelt name can still be put right
    assert sitting.table().seats[0].name == "Ali"


@pytest.mark.parametrize("joined, code", [(4, "ends_before_later_hands"), (5, "ends_before_changed_table")])
def test_a_correction_ending_the_match_early_says_when_no_undo_can_make_room_for_it(joined, code):
    """Undo the hands after the new end, then correct: impossible once who plays changed after the first of them."""
    sitting = Sitting.start("agram", ["Awa", "Bello", "Chidi"], MatchEnd(MatchEndKind.WINS, 3))
    for number, winner in enumerate([0, 0, 1, 1, 2], start=1):
        if number == joined:  # a latecomer plays from this hand on
            sitting.seat_player("Dede")
        sitting.record_hand(number, winner)
    with pytest.raises(Conflict) as refused:
        sitting.correct_hand(3, 0)  # Awa's third win: the match would end at hand 3
    assert refused.value.code == code and refused.value.params["end"] == 3
    assert sitting.hands.get(number=3).winner.name == "Bello"
    said = refusal_text(refused.value)
    assert ("cannot be made" in said) == (code == "ends_before_changed_table") and "hands 4 to 5" in said
