"""A name holding a null character (no keyboard types one) is refused on every path a name enters, in the
start form's words, and nothing changes: never stored with the character silently dropped. Sent again as the
refusal showed it (a browser shows a null character as U+FFFD), it is refused again: never stored either."""

import pytest

from matches.models import Group, Sitting

from tests.pages import words

pytestmark = pytest.mark.django_db
REFUSED = "Null characters are not allowed."
UNREADABLE = "This name holds a character that could not be read"


@pytest.fixture
def group() -> Group:
    return Group.create("Jeudi", ["Aïcha", "Djibo", "Boubacar"])


def names(group: Group) -> list[str]:
    return sorted(group.players.values_list("name", flat=True))


def test_a_newcomer_to_the_group_and_a_rename_are_refused(client, group):
    before = names(group)
    djibo = group.players.get(name="Djibo").pk
    for url in (f"/g/{group.token}/players/", f"/g/{group.token}/players/{djibo}/rename/"):
        response = client.post(url, {"name": "Dji\x00bril"})
        assert response.status_code == 400 and REFUSED in words(response), url
    assert names(group) == before


@pytest.mark.parametrize("field", ["name", "players"])
def test_a_new_group_is_refused(client, field):
    data = {"name": "Jeudi", "players": "Aïcha\nDjibo"} | {field: "Ve\x00ndredi" if field == "name" else "A\x00ïcha"}
    response = client.post("/groups/new/", data)
    assert response.status_code == 400 and REFUSED in words(response)
    assert not Group.objects.exists()


def test_a_match_saved_to_a_new_group_is_refused(client):
    sitting = Sitting.start("agram", ["Aïcha", "Djibo", "Boubacar"])
    response = client.post(f"/s/{sitting.token}/group/", {"group": "new", "name": "Jeu\x00di"})
    assert response.status_code == 400 and REFUSED in words(response)
    assert not Group.objects.exists()


def test_a_newcomer_at_the_new_match_and_a_seat_no_form_writes_are_refused(client, group):
    djibo = f"m{group.players.get(name='Djibo').pk}"
    typed = client.post(
        f"/g/{group.token}/new/agram/", {"action": "newcomer", "newcomer": "Nd\x00eye", "end_kind": "open", "seat": [djibo]}
    )
    assert typed.status_code == 400 and REFUSED in words(typed)
    posted = client.post(f"/g/{group.token}/new/agram/", {"action": "start", "end_kind": "open", "seat": [djibo, "n:Nd\x00eye"]})
    assert posted.status_code == 400 and "Ndeye" not in words(posted)
    assert names(group) == ["Aïcha", "Boubacar", "Djibo"] and not group.sittings.exists()


def test_a_name_sent_again_as_the_refusal_showed_it_is_refused_everywhere(client, group):
    djibo = group.players.get(name="Djibo").pk
    sent = "Dji\ufffdbril"
    for url, data in [
        (f"/g/{group.token}/players/", {"name": sent}),
        (f"/g/{group.token}/players/{djibo}/rename/", {"name": sent}),
        ("/groups/new/", {"name": "Vendredi", "players": f"Aïcha\n{sent}"}),
        ("/groups/new/", {"name": sent, "players": "Aïcha"}),
        (f"/g/{group.token}/new/agram/", {"action": "newcomer", "newcomer": sent, "end_kind": "open", "seat": [f"m{djibo}"]}),
        ("/start/agram/", {"player_1": sent, "player_2": "Bintou", "end_kind": "open"}),
    ]:
        response = client.post(url, data)
        assert response.status_code == 400 and UNREADABLE in words(response), url
    assert names(group) == ["Aïcha", "Boubacar", "Djibo"]
    assert Group.objects.count() == 1 and not Sitting.objects.exists()
