"""Names sort as people read a list (the Unicode Collation Algorithm): "Éloïse" with the Es, before
"Ngono", on every list of names: the group page, who plays today, the night's settling up and the
home page's groups."""

import re

import pytest

from matches.domain.names import by_name
from matches.models import Group

from tests.conftest import shown

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
# Made in this order, so the database's ids and its byte order (É after N and Z) both disagree.
MADE = ["Ngono", "Zoé", "Éloïse", "Boubacar", "élodie", "Aïcha"]
READ = ["Aïcha", "Boubacar", "élodie", "Éloïse", "Ngono", "Zoé"]


@pytest.mark.parametrize(
    "names, read",
    [
        (MADE, READ),
        (["Ömer", "Olga", "Oumar"], ["Olga", "Ömer", "Oumar"]),  # Ö with O
        (["eve", "Ève", "Eve"], ["eve", "Eve", "Ève"]),  # case, then accents, only break ties
        (["Zara", "عائشة", "Ali"], ["Ali", "Zara", "عائشة"]),
        (["Dung", "Đức", "Dan"], ["Dan", "Đức", "Dung"]),  # Đ with D (root order, not Vietnamese's)
    ],
)
def test_names_sort_as_people_read_a_list(names, read):
    assert by_name(names) == read


@pytest.fixture
def group() -> Group:
    return Group.create("Jeudi", MADE)


def in_order(page: str, names: list[str]) -> list[str]:
    found = {name: page.index(f">{name}<") for name in names}
    return sorted(names, key=found.__getitem__)


def test_the_group_page_lists_its_players_in_reading_order(client, group):
    page = client.get(f"/g/{group.token}/", **EN).content.decode()
    members = page[page.index('class="members"') :]
    assert in_order(members, MADE) == READ


def test_who_plays_today_offers_the_players_in_reading_order(client, group):
    page = client.get(f"/g/{group.token}/new/agram/", **EN).content.decode()
    pick = page[page.index('class="pick"') :]
    assert in_order(pick, MADE) == READ


def test_the_home_page_lists_a_groups_players_in_reading_order(client, group):
    client.get(f"/g/{group.token}/")  # remembered on this phone
    page = client.get("/", **EN).content.decode()
    assert in_order(page, MADE) == READ


def test_the_nights_settling_up_names_the_players_in_reading_order(client, group):
    ids = {player.name: player.pk for player in group.players.all()}
    sitting = group.start_match("fapfap", [ids[name] for name in MADE[:4]], stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "1"})
    page = client.get(f"/g/{group.token}/stats/", **EN).content.decode()
    night = page[page.index('class="night"') :]
    assert in_order(night, MADE[:4]) == ["Boubacar", "Éloïse", "Ngono", "Zoé"]


def seated(game: str, **options):
    """A match seating MADE[:4] in that order (Ngono, Zoé, Éloïse, Boubacar): seat order is not reading order."""
    from matches.models import Sitting

    return Sitting.start(game, MADE[:4], **options)


def test_a_matchs_settling_up_lists_nets_and_payments_in_reading_order_and_the_score_in_seat_order(client):
    sitting = seated("fapfap", stake_amount=100, stake_label="FCFA")
    sitting.record_hand(1, 0, {"multiplier": "2"})  # Ngono
    sitting.record_hand(2, 1, {"multiplier": "1"})  # Zoé
    page = client.get(f"/s/{sitting.token}/", **EN).content.decode()
    settle = page[page.index('class="settle"') :]
    nets = settle[: settle.index("</table>")]
    assert in_order(nets, MADE[:4]) == ["Boubacar", "Éloïse", "Ngono", "Zoé"]
    payments = re.findall(r"<li>(.*?)</li>", settle[: settle.index("</ul>")], re.S)
    payers = [shown(payment).split(" pays ")[0] for payment in payments]
    assert payers == sorted(payers, key=READ.index) and len(set(payers)) == 2
    tally = page[page.index('class="tally"') :]
    assert in_order(tally, MADE[:4]) == MADE[:4]  # the score table follows the seats


def test_a_shared_first_place_names_the_players_in_reading_order(client):
    sitting = seated("agram")
    sitting.record_hand(1, 1)  # Zoé
    sitting.record_hand(2, 3)  # Boubacar
    sitting.end_match()
    page = shown(client.get(f"/s/{sitting.token}/", **EN).content.decode())
    assert "Shared first place: <strong>Boubacar</strong> and <strong>Zoé</strong>" in page


def test_who_held_back_an_ace_and_who_ran_out_of_chips_are_named_in_reading_order(client):
    sitting = seated("cat-te", starting_chips=2)
    sitting.record_hand(1, 0, {"how": "sweep", "aces": [2, 4]})  # Ngono sweeps; Zoé, Boubacar held back an Ace
    page = shown(client.get(f"/s/{sitting.token}/", **EN).content.decode())
    assert "Boubacar and Zoé: each held back an Ace" in page
    assert "Out of chips: Boubacar, Éloïse and Zoé." in page


def test_this_phone_belongs_to_offers_the_players_in_reading_order(client):
    sitting = seated("agram")
    page = client.get(f"/s/{sitting.token}/share/", **EN).content.decode()
    select = page[page.index('id="my-seat"') : page.index("</select>")]
    assert in_order(select, MADE[:4]) == ["Boubacar", "Éloïse", "Ngono", "Zoé"]
