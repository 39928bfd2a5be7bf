"""Who plays, mid-match: the page that seats a latecomer, lets a player leave and puts a name right,
and what the table shows after it."""

import re

import pytest

from matches.models import Sitting
from matches.web.presenters.table_state import TableState

from tests.pages import FR, NAMES, url, watch_url, words

pytestmark = pytest.mark.django_db


def test_the_table_links_to_who_plays_and_the_page_works_as_plain_forms(client):
    sitting = Sitting.start("agram", NAMES[:3])
    assert f'href="{url(sitting, "seats/")}"' in client.get(url(sitting)).content.decode()
    page = client.get(url(sitting, "seats/")).content.decode()
    assert 'name="change" value="join"' in page and 'name="change" value="leave"' in page
    assert "Plays from hand 1, last in playing order, starting at 0." in words(page)
    assert "They can come back until the next hand is recorded, not after it." in words(page)  # leaving asks first


def test_a_latecomer_sits_down_and_the_hand_list_says_when(client):
    sitting = Sitting.start("agram", NAMES[:3])
    sitting.record_hand(1, 0)
    response = client.post(url(sitting, "seats/"), {"change": "join", "name": "Dia"})
    assert response.status_code == 302 and response["Location"] == url(sitting)
    page = words(client.get(url(sitting)))
    assert "Dia sits down and plays from hand 2." in page  # the notice, once
    assert "Dia joined the table and plays from hand 2." in page  # the hand list, for good
    assert page.count("Dia") >= 3  # a button to tap, a row of the score
    assert "Dia joined the table and plays from hand 2." in words(client.get(url(sitting, "hands/")))
    assert "Dia joined the table and plays from hand 2." in words(client.get(watch_url(sitting)))


def test_one_who_left_by_mistake_comes_back_with_one_tap_before_the_next_hand(client):
    sitting = Sitting.start("agram", NAMES)
    sitting.record_hand(1, 1)
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"})
    page = client.get(url(sitting, "seats/")).content.decode()
    back = f'<input type="hidden" name="change" value="join"><input type="hidden" name="name" value="{NAMES[1]}">'
    assert back in page and f"{NAMES[1]} comes back" in words(page)
    response = client.post(url(sitting, "seats/"), {"change": "join", "name": NAMES[1]})
    assert response.status_code == 302
    assert f"{NAMES[1]} is back at the table and plays from hand 2." in words(client.get(url(sitting)))
    hands = words(client.get(url(sitting, "hands/")))  # the list says a return, not a newcomer
    assert f"{NAMES[1]} is back at the table and plays from hand 2." in hands and f"{NAMES[1]} joined" not in hands
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"})
    sitting.record_hand(2, 0)
    assert back not in client.get(url(sitting, "seats/")).content.decode()  # a hand went by without them


def test_a_player_who_left_shows_on_the_score_but_not_among_the_winners_to_tap(client):
    sitting = Sitting.start("agram", NAMES)
    sitting.record_hand(1, 1)
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"})
    page = client.get(url(sitting)).content.decode()
    assert 'name="winner" value="2"' not in page and 'name="winner" value="3"' in page
    assert "Ben left the table after hand 1." in words(page)
    assert "Ben left the table" in words(page.split('class="tally"')[1].split("</table>")[0])


def test_a_misspelt_name_is_put_right_in_french(client):
    sitting = Sitting.start("agram", ["Mbraga", "Ngono"])
    sitting.record_hand(1, 0)
    client.post(url(sitting, "seats/"), {"change": "rename", "seat": "1", "name": "Mbarga"}, **FR)
    page = words(client.get(url(sitting), **FR))
    assert "Mbraga s’appelle désormais Mbarga." in page  # the hand list
    assert "Mbarga" in page.split("Score")[1] and "Mbraga" not in page.split("Score")[1].split("Main")[0]


@pytest.mark.parametrize(
    "data, said",
    [
        ({"change": "join", "name": "Ben"}, "Ben is at this table already"),
        ({"change": "join", "name": ""}, "Type the player's name."),
        ({"change": "leave", "seat": "9"}, "Seat 9 is not at this table"),
        ({"change": "leave"}, "Say which player this is about."),
        ({"change": "swap"}, "Say which change this is."),
        ({"change": "rename", "seat": "1", "name": "x" * 300}, ""),
    ],
)
def test_a_change_that_cannot_be_made_says_why_and_changes_nothing(client, data, said):
    sitting = Sitting.start("agram", NAMES[:3])
    response = client.post(url(sitting, "seats/"), data)
    assert response.status_code == 400
    assert said in words(response)
    sitting.refresh_from_db()
    assert sitting.changes == 0 and [seat.name for seat in sitting.seated()] == NAMES[:3]


def test_a_name_taken_by_a_player_who_left_is_refused_with_why(client):
    sitting = Sitting.start("agram", NAMES)
    sitting.record_hand(1, 1)
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"})
    sitting.record_hand(2, 0)
    rename = client.post(url(sitting, "seats/"), {"change": "rename", "seat": "1", "name": NAMES[1].upper()})
    assert rename.status_code == 400
    assert f"{NAMES[1]} played in this match before leaving it: choose another name." in words(rename)
    join = client.post(url(sitting, "seats/"), {"change": "join", "name": NAMES[1]}, **FR)
    assert join.status_code == 400 and f"{NAMES[1]} a quitté cette partie et pourra jouer à la suivante." in words(join)


@pytest.mark.parametrize("change", [{"change": "join"}, {"change": "rename", "seat": "2"}])
def test_a_name_mixing_look_alike_alphabets_cannot_sit_as_a_copy_of_a_player(client, change):
    sitting = Sitting.start("agram", NAMES[:3])
    answer = client.post(url(sitting, "seats/"), {**change, "name": "\u0410" + NAMES[0][1:]})  # a Cyrillic A
    assert answer.status_code == 400 and "mixes letters of alphabets that look alike" in words(answer)
    assert [seat.name for seat in sitting.seated()] == NAMES[:3]


def test_a_refused_rename_keeps_the_typed_name_in_its_own_row_not_in_the_newcomers_box(client):
    sitting = Sitting.start("agram", NAMES[:3])
    answer = client.post(url(sitting, "seats/"), {"change": "rename", "seat": "3", "name": NAMES[0]})
    page = answer.content.decode()
    assert answer.status_code == 400 and 'id="newcomer" name="name" value=""' in page
    row = re.search(r'<input type="text" id="name-2" name="name" value="([^"]*)"[^>]*aria-invalid="true"', page, re.S)
    assert row and row[1] == NAMES[0] and 'id="name-error-2">' in page
    assert f'id="name-0" name="name" value="{NAMES[0]}"' in page  # the other rows as they are


def test_a_refused_newcomer_keeps_the_typed_name_with_the_refusal_beside_it(client):
    sitting = Sitting.start("agram", NAMES[:3])
    page = client.post(url(sitting, "seats/"), {"change": "join", "name": NAMES[1].lower()}).content.decode()
    assert re.search(rf'id="newcomer" name="name" value="{NAMES[1].lower()}"[^>]*aria-invalid="true"', page, re.S)
    assert re.search(r'<p class="field-error" id="newcomer-error"><bdi>Ben</bdi> is at this table already\.</p>', page)


def test_a_rename_from_a_page_older_than_another_phones_rename_changes_nothing_and_says_so(client):
    sitting = Sitting.start("agram", ["Oumi", "Ben"])
    client.post(url(sitting, "seats/"), {"change": "rename", "seat": "1", "name": "Oumou", "was": "Oumi"})
    stale = client.post(url(sitting, "seats/"), {"change": "rename", "seat": "1", "name": "Oumy", "was": "Oumi"})
    assert stale.status_code == 409 and "Oumi was renamed Oumou on another phone meanwhile" in words(stale)
    assert [seat.name for seat in sitting.seated()] == ["Oumou", "Ben"]
    again = client.post(url(sitting, "seats/"), {"change": "rename", "seat": "1", "name": "Oumou", "was": "Oumi"})
    assert again.status_code == 302  # the same rename sent twice: already made


def test_the_watch_link_cannot_change_the_table(client):
    sitting = Sitting.start("agram", NAMES[:3])
    response = client.post(f"/s/{sitting.watch_token}/seats/", {"change": "join", "name": "Dia"})
    assert response.status_code == 404 and sitting.seats.count() == 3


def test_the_group_night_counts_a_changed_table_s_money_by_who_played_each_hand():
    from matches.models import Group
    from matches.web.views.figures import tonight

    group = Group.create("Jeudi", ["Awa", "Bintou", "Chloé"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=100)
    sitting.record_hand(1, 0, {"multiplier": "1"})  # Awa +200, Bintou -100, Chloé -100
    sitting.seat_player("Djibo")
    sitting.record_hand(2, 3, {"multiplier": "1"})  # Djibo +300, each other -100
    assert sitting.table().nets == [100, -200, -200, 300]
    assert dict(tonight(group).settled[0].nets) == {"Awa": 100, "Bintou": -200, "Chloé": -200, "Djibo": 300}


def test_the_csv_lists_each_hand_for_those_who_played_it_and_adds_up_to_the_nets(client):
    from tests.csv_files import of_kind, on_net_rows, read, summed

    sitting = Sitting.start("fapfap", NAMES[:3], stake_amount=100, stake_label="CFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})
    sitting.seat_player("Dia")
    sitting.unseat_player(1)
    sitting.record_hand(2, 3, {"multiplier": "1"})
    rows = read(client, url(sitting, "hands.csv"))
    assert [row["player"] for row in of_kind(rows, "hand") if row["hand"] == "2"] == ["Ana", "Chloé", "Dia"]
    nets = dict(zip(NAMES, sitting.table().nets))
    assert summed(rows, "hand", "money") == on_net_rows(rows, "net_money") == nets


def test_cat_te_s_newcomer_is_told_of_the_stack_and_a_leaver_gets_no_more_chips(client):
    sitting = Sitting.start("cat-te", ["An", "Bình", "Cường"], starting_chips=3)
    sitting.record_hand(1, 0, {"how": "flush"})  # Bình and Cường pay 2: 1 chip left each
    sitting.record_hand(2, 0, {"how": "last"})
    assert "with a stack of 3 chips" in words(client.get(url(sitting, "seats/")))
    sitting.seat_player("Dũng")
    sitting.unseat_player(1)
    assert TableState.of(sitting.table()).ran_out == "Cường"  # not Bình, who left on 0
    sitting.reissue_chips(0)
    assert sitting.table().balances() == [3 + 6 + 3, 0, 3 - 3 + 3, 3 + 3]  # and gets no more chips


def test_undo_is_not_offered_once_who_plays_changed_after_the_last_hand(client):
    sitting = Sitting.start("agram", NAMES[:3])
    sitting.record_hand(1, 0)
    assert "Undo hand 1" in words(client.get(url(sitting)))
    sitting.seat_player("Dia")
    assert "Undo hand 1" not in words(client.get(url(sitting)))


def test_a_rename_made_after_the_last_hand_stays_listed_when_that_hand_is_undone(client):
    sitting = Sitting.start("agram", NAMES[:3])
    sitting.record_hand(1, 0)
    sitting.record_hand(2, 1)
    sitting.rename_player(0, "Anaïs")
    sitting.undo_hand(2)
    assert "Ana is now called Anaïs." in words(client.get(url(sitting)))


def test_changes_made_between_the_same_two_hands_read_newest_first(client):
    sitting = Sitting.start("agram", NAMES[:3])
    sitting.record_hand(1, 0)
    sitting.seat_player("Dia")
    sitting.rename_player(3, "Diane")
    said = words(client.get(url(sitting)))
    assert said.index("Dia is now called Diane.") < said.index("Dia joined the table")


def test_at_a_stake_a_changed_table_ranks_by_the_money_each_won(client):
    """Two players with two stakes won each: the one whose stakes had more payers is first."""
    sitting = Sitting.start("fapfap", ["Aïcha", "Boubacar", "Chaibou", "Djibo"], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 2, {"multiplier": "1"})  # Chaibou +300
    sitting.record_hand(2, 1, {"multiplier": "2"})  # Boubacar +600
    sitting.seat_player("Émile")
    sitting.record_hand(3, 2, {"multiplier": "1"})  # Chaibou +400: four payers now
    sitting.end_match()
    state = TableState.of(sitting.table())
    assert [seat.name for seat in state.leaders] == ["Chaibou"]
    assert "Chaibou wins the match with +500 FCFA (2 stakes won)." in words(str(state.result))


def test_cat_te_s_csv_hands_chips_to_those_at_the_table_and_a_latecomer_their_stack(client):
    from tests.csv_files import read, summed

    sitting = Sitting.start("cat-te", ["An", "Bình", "Cường"], starting_chips=3)
    sitting.record_hand(1, 0, {"how": "flush"})
    sitting.record_hand(2, 0, {"how": "last"})
    sitting.seat_player("Dũng")
    sitting.unseat_player(1)
    sitting.reissue_chips(0)
    for played in (False, True):
        rows = read(client, url(sitting, "hands.csv"))
        assert summed(rows, "chips", "chips_received") == dict(zip(["An", "Bình", "Cường", "Dũng"], [6, 3, 6, 6]))
        assert "3 chips on sitting down" in [row["how"] for row in rows if row["player"] == "Dũng"]
        if not played:
            sitting.record_hand(3, 3, {"how": "last"})


def test_a_groups_figures_count_only_the_hands_each_player_was_at_the_table_for():
    from matches.domain.stats import player_stats
    from matches.models import Group
    from matches.services.figures import read_group

    group = Group.create("Jeudi", ["Awa", "Bintou", "Chloé"])
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    sitting.record_hand(1, 0)
    sitting.seat_player("Djibo")  # plays hands 2 and 3
    sitting.record_hand(2, 3)
    sitting.record_hand(3, 0)
    sitting.seat_player("Émile")  # sits down after the last hand: plays none
    sitting.end_match()
    read = read_group(group)
    stats = {read.names[player]: figures for player, figures in player_stats(read.matches).items()}
    assert (stats["Djibo"].hands_played, stats["Djibo"].hands_won) == (2, 1)
    assert stats["Awa"].hands_played == 3 and stats["Émile"].matches_played == 0


def test_a_groups_figures_name_the_winner_the_table_names_when_a_table_at_a_stake_changed():
    """Alain won x4 against Bella alone, then three newcomers paid Bella's three x1: Bella wins the money,
    so the match, on the table and in the figures alike (they counted stakes won: Alain)."""
    from matches.domain.stats import head_to_head, player_stats
    from matches.models import Group
    from matches.services.figures import read_group

    group = Group.create("Jeudi", ["Alain", "Bella"])
    sitting = group.start_match("fapfap", [player.pk for player in group.members()], stake_amount=200, stake_label="CFA")
    alain, bella = (seat.position for seat in sitting.seated())
    sitting.record_hand(1, alain, {"multiplier": "4"})
    for name in ("Chantal", "Dieudonné", "Émile"):
        sitting.seat_player(name)
    for number in (2, 3, 4):
        sitting.record_hand(number, bella, {"multiplier": "1"})
    sitting.end_match()
    assert [seat.name for seat in sitting.table().leaders] == ["Bella"]
    read = read_group(group)
    stats = {read.names[player]: figures for player, figures in player_stats(read.matches).items()}
    assert (stats["Bella"].matches_won, stats["Alain"].matches_won) == (1, 0)
    ids = {name: player for player, name in read.names.items()}
    first, second = sorted((ids["Alain"], ids["Bella"]))
    pair = head_to_head(read.matches)[(first, second)]
    assert (pair.first_wins, pair.second_wins) == ((0, 1) if first == ids["Alain"] else (1, 0))


def test_a_tap_or_a_leave_for_one_not_playing_names_them_and_the_last_two_cannot_leave(client):
    sitting = Sitting.start("spar", NAMES[:3])
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"})
    tapped = client.post(url(sitting, "tap/"), {"number": 1, "winner": 2, "card": "six"}, HTTP_HX_REQUEST="true")
    assert tapped.status_code == 400 and f"{NAMES[1]} does not play this hand: tap one of the names shown." in words(tapped)
    again = client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"})
    assert again.status_code == 400 and f"{NAMES[1]} does not play this hand" in words(again)
    last = client.post(url(sitting, "seats/"), {"change": "leave", "seat": "1"})
    assert last.status_code == 400 and "Spar needs at least 2 players: nobody can leave the table now." in words(last)


def test_one_who_left_before_any_hand_is_said_to_have_left_before_the_first_not_after_hand_0(client):
    sitting = Sitting.start("agram", NAMES)
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "2"}, HTTP_ACCEPT_LANGUAGE="fr")
    seats, table = (words(client.get(url(sitting, path), HTTP_ACCEPT_LANGUAGE="fr")) for path in ("seats/", ""))
    assert "A quitté la table avant la première main." in seats and "main 0" not in seats
    assert f"{NAMES[1]} a quitté la table avant la première main." in table and "main 0" not in table


def test_a_refused_come_back_is_told_beside_its_button_not_typed_into_the_newcomers_box(client):
    sitting = Sitting.start("agram", ["Awa", "Bello", "Chidi", "Dede", "Ebo"])  # Agram seats five at most
    client.post(url(sitting, "seats/"), {"change": "leave", "seat": "5"})
    client.post(url(sitting, "seats/"), {"change": "join", "name": "Femi"})
    refused = client.post(url(sitting, "seats/"), {"change": "join", "name": "Ebo"})
    page = refused.content.decode()
    assert refused.status_code == 400 and 'id="newcomer" name="name" value=""' in page
    assert 'id="newcomer-error"' not in page
    beside = page.split('<input type="hidden" name="name" value="Ebo">', 1)[1].split("</li>", 1)[0]
    assert 'class="field-error"' in beside and "5" in words(beside)
