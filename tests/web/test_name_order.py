"""Names sort as people read a list (the Unicode Collation Algorithm): "Éloïse" with the Es, before
"Ngono", on every list of names: the group page, who plays today, the night's settling
up and the home page's groups."""

import pytest

from matches.domain.names import by_name
from matches.models import Group

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
