"""Groups in the tests: the Friday group of the worked sitting's four players, what a refused change must
leave as it was, the new match form from a group, and a group with a bit of everything whose archive
the archive's tests move around."""

import re

import pytest

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Group, Player, Recorder, Seat, Sitting

from tests.conftest import WORKED
from tests.pages import g


@pytest.fixture(name="group")
def friday_group(db) -> Group:
    """The fixture `group`: the worked sitting's four players as the group Vendredi."""
    return Group.create("Vendredi", WORKED)


def members(group: Group) -> list[str]:
    return [p.name for p in group.members()]


def ids(group: Group) -> dict[str, int]:
    return {p.name: p.pk for p in group.members()}


def state(group: Group) -> tuple:
    """Everything a refused request must leave unchanged."""
    group.refresh_from_db()
    return (
        group.token,
        group.watch_token,
        group.version,
        list(group.players.order_by("pk").values_list("name", "left", "erased")),
        list(group.sittings.order_by("pk").values_list("pk", flat=True)),
        Sitting.objects.count(),
        Player.objects.count(),
        Group.objects.count(),
        list(Seat.objects.order_by("pk").values_list("player_id", flat=True)),
    )


def finished(names=("Aïcha", "Boubacar", "Chaibou"), game="agram") -> Sitting:
    """A match played outside any group, one hand won, then ended."""
    sitting = Sitting.start(game, list(names))
    sitting.record_hand(1, 1)
    sitting.end_match()
    return sitting


def post_form(client, group, seat, action, headers=None, **extra):
    """The group's new Agram match form posted with these seats (m<player id>, n:<newcomer>) and button."""
    data = {"seat": seat, "action": action, "end_kind": "open", **extra}
    return client.post(g(group, "new/agram/"), data, **(headers or {}))


def seated_in(response) -> list[str]:
    return re.findall(r'name="seat" value="([^"]+)"', response.content.decode())


MEMBERS = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


def played_group() -> Group:
    """A group with a bit of everything, made by the model verbs as the pages make it."""
    group = Group.create("Les amis du jeudi", MEMBERS)
    ids = {player.name: player.pk for player in group.members()}
    a, b, c, d = (ids[name] for name in MEMBERS)
    k3xa, zz9 = Recorder(phone="k3Xa", seat=1), Recorder(phone="Zz9_")

    # Agram to 3 wins, with a newcomer; hand 5 corrected, which reaches the match end (Chaibou's third).
    agram = group.start_match("agram", [a, b, c, "Elhadji"], MatchEnd(MatchEndKind.WINS, 3))
    for number, winner in enumerate([2, 0, 2, 3, 0], start=1):
        agram.record_hand(number, winner, by=k3xa)
    agram.correct_hand(5, 2, by=zz9)
    assert agram.ended_how == Sitting.EndedHow.MATCH_END

    # Its rematch, ended early by a member: hand 3 abandoned.
    rematch = agram.rematch()
    rematch.record_hand(1, 3)
    rematch.record_hand(2, 1, by=zz9)
    rematch.end_match(open_number=3)

    # Cat Tê with 2 chips each: Aïcha runs out after hand 1, a batch is re-issued; a sweep with an Ace
    # held back; still in progress.
    cat_te = group.start_match("cat-te", [a, b, c], MatchEnd(MatchEndKind.HANDS, 6), starting_chips=2)
    cat_te.record_hand(1, 1, {"how": "flush"})
    cat_te.reissue_chips(seen=0)
    cat_te.record_hand(2, 2, {"how": "sweep", "aces": ["1"]})
    cat_te.record_hand(3, 0, {"how": "last"})

    # Fapfap for 100 FCFA a stake, to 5 stakes.
    fapfap = group.start_match(
        "fapfap", [a, b, d], MatchEnd(MatchEndKind.POINTS, 5), stake_amount=100, stake_label="FCFA"
    )
    fapfap.record_hand(1, 0, {"multiplier": "4"})
    fapfap.record_hand(2, 2, {"multiplier": "1"})
    fapfap.record_hand(3, 0, {"multiplier": "2"})
    assert fapfap.is_finished

    # Eighty Three: a tie at 10 raises the threshold to 15.
    eighty = group.start_match("eighty-three", [a, c], MatchEnd(MatchEndKind.THRESHOLDS))
    eighty.record_hand(1, 0, {})
    eighty.record_hand(2, 1, {})
    eighty.record_hand(3, 0, {"bonus": ["2"]})
    eighty.record_hand(4, 1, {})
    eighty.record_hand(5, 0, {"ace": "1", "last": "1", "bonus": ["2"]})
    eighty.refresh_from_db()
    assert (eighty.threshold, eighty.tied_at) == (15, 10)

    # A match played outside the group, then saved into it: "aïcha" is Aïcha, Fatou and Garba join.
    spar = Sitting.start("spar", ["aïcha", "Fatou", "Garba"], MatchEnd(MatchEndKind.POINTS, 21))
    spar.record_hand(1, 1, {"card": "six"})
    spar.record_hand(2, 0, {"card": "seven"})
    group.save_sitting(spar)

    group.add_player("Hawa")  # a member who never played
    group.remove_player(d)
    group.erase_player(Player.objects.get(group=group, name="Elhadji").pk)
    return group


def same_document(imported: dict, original: dict) -> bool:
    """Equal archives but for the group's `changed_at`, which an import sets to its own moment."""
    return {**imported, "changed_at": None} == {**original, "changed_at": None}


def index_of(data: dict, game: str, occurrence: int = 0) -> int:
    return [number for number, s in enumerate(data["sittings"]) if s["game"] == game][occurrence]
