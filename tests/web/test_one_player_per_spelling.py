"""Names that differ only by case, accents, spacing or punctuation name one player, on every path a name enters the
app: the refusal says so and names the existing player (one name rule: domain/names.name_key)."""

import json
import re

import pytest

from matches.models import Group, Player, Sitting
from matches.services.archive import export_group

from tests.pages import start_data, upload, words

pytestmark = [pytest.mark.django_db, pytest.mark.engine]
SPELLINGS = ["Aicha", "AÏCHA", "  aïcha ", "Ai\u0308cha", "A\u00efcha\u200b", "Aïcha."]  # NFD, a hidden space, a full stop


@pytest.fixture
def group() -> Group:
    return Group.create("Jeudi", ["Aïcha", "Djibo", "Boubacar"])


def player_id(group: Group, name: str) -> int:
    return group.players.get(name=name).pk


@pytest.mark.parametrize("typed", SPELLINGS)
def test_a_new_member_of_the_same_name_is_refused_naming_the_member(client, group, typed):
    response = client.post(f"/g/{group.token}/players/", {"name": typed})
    assert response.status_code >= 400
    assert "Aïcha is in this group already." in words(response)
    assert group.players.count() == 3


@pytest.mark.parametrize("typed", SPELLINGS)
def test_a_newcomer_of_a_members_name_at_the_new_match_is_offered_the_member(client, group, typed):
    data = {"action": "newcomer", "newcomer": typed, "end_kind": "open", "seat": [f"m{player_id(group, 'Djibo')}"]}
    response = client.post(f"/g/{group.token}/new/agram/", data)
    assert "Aïcha is in this group already: tap their name to seat them." in words(response)
    assert group.players.count() == 3 and not group.sittings.exists()
    offered = r'<button[^>]*value="seat-(\d+)"[^>]*>\s*<span>Seat <bdi>Aïcha</bdi></span></button>'
    offer = re.search(offered, response.content.decode())
    assert offer and int(offer[1]) == player_id(group, "Aïcha")  # the member offered, one tap away
    seated = client.post(f"/g/{group.token}/new/agram/", {**data, "action": f"seat-{player_id(group, 'Aïcha')}"})
    assert re.findall(r'name="seat" value="(m\d+)"', seated.content.decode()) == [
        f"m{player_id(group, 'Djibo')}",
        f"m{player_id(group, 'Aïcha')}",
    ]


@pytest.mark.parametrize("typed", SPELLINGS)
def test_renaming_a_player_to_a_members_name_is_refused(client, group, typed):
    response = client.post(f"/g/{group.token}/players/{player_id(group, 'Djibo')}/rename/", {"name": typed})
    assert response.status_code >= 400 and "Aïcha is in this group already." in words(response)
    assert sorted(group.players.values_list("name", flat=True)) == ["Aïcha", "Boubacar", "Djibo"]


@pytest.mark.parametrize("typed", SPELLINGS)
def test_a_new_group_with_one_player_twice_is_refused(client, typed):
    response = client.post("/groups/new/", {"name": "Vendredi", "players": f"Aïcha\n{typed}\nDjibo"})
    assert response.status_code >= 400 and "Aïcha" in words(response)
    assert not Group.objects.exists()


@pytest.mark.parametrize("typed", SPELLINGS)
def test_a_match_with_one_player_twice_is_refused(client, typed):
    response = client.post("/start/agram/", start_data(["Aïcha", typed]))
    assert response.status_code >= 400 and "Aïcha is already at the table (player 1)." in words(response)
    assert not Sitting.objects.exists()


@pytest.mark.parametrize("typed", ["Aicha", "AÏCHA", "aïcha"])  # an archive's names are stored clean
def test_an_archive_naming_one_player_twice_is_refused_and_writes_nothing(client, group, typed):
    data = export_group(group)
    data["players"].append({**data["players"][0], "name": typed})
    before = Player.objects.count()
    response = client.post("/groups/import/", upload(json.dumps(data).encode()), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code >= 400
    assert f"players[0] (Aïcha) and players[3] ({typed}) name the same player: rename one." in words(response)
    assert Player.objects.count() == before and Group.objects.count() == 1
