"""Who plays, mid-match: the page that seats a latecomer, lets a player leave and puts a name right,
and what the table shows after it."""

import pytest

from matches.models import Sitting

from tests.pages import FR, NAMES, url, watch_url, words

pytestmark = pytest.mark.django_db


def test_the_table_links_to_who_plays_and_the_page_works_as_plain_forms(client):
    sitting = Sitting.start("agram", NAMES[:3])
    assert f'href="{url(sitting, "seats/")}"' in client.get(url(sitting)).content.decode()
    page = client.get(url(sitting, "seats/")).content.decode()
    assert 'name="change" value="join"' in page and 'name="change" value="leave"' in page
    assert "Plays from hand 1, last in playing order, starting at 0." in words(page)


def test_a_latecomer_sits_down_and_the_hand_list_says_when(client):
    sitting = Sitting.start("agram", NAMES[:3])
    sitting.record_hand(1, 0)
    response = client.post(url(sitting, "seats/"), {"change": "join", "name": "Dia"})
    assert response.status_code == 302 and response["Location"] == url(sitting)
    page = words(client.get(url(sitting)))
    assert "Dia sits down and plays from hand 2." in page  # the notice, once
    assert "Dia sat down and plays from hand 2." in page  # the hand list, for good
    assert page.count("Dia") >= 3  # a button to tap, a row of the score
    assert "Dia sat down and plays from hand 2." in words(client.get(url(sitting, "hands/")))
    assert "Dia sat down and plays from hand 2." in words(client.get(watch_url(sitting)))


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
        ({"change": "leave", "seat": "9"}, "Seat 9 does not play"),
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
