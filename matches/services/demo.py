"""The worked sitting of RULES.md, for newcomers: a live match table to try, in a demo group that
has played a few matches already, so that statistics, charts and settling up show at once."""

from __future__ import annotations

from django.utils.translation import gettext as _

from matches.domain import rules
from matches.models import Group, Sitting

DEMO_GAME = "agram"
DEMO_PLAYERS = ("Aïcha", "Boubacar", "Chaibou", "Djibo")
# Earlier nights of the demo group: (game, match end, settings, winners of its hands as seats).
PLAYED = (
    ("agram", rules.MatchEnd(rules.MatchEndKind.WINS, 3), {}, [2, 0, 2, 1, 2]),
    ("fapfap", rules.MatchEnd(rules.MatchEndKind.HANDS, 4), {"stake_amount": 100, "stake_label": "CFA"}, [1, 3, 1, 0]),
    ("agram", rules.MatchEnd(rules.MatchEndKind.WINS, 3), {}, [3, 3, 0, 3]),
)
FAPFAP_ANSWERS = ({"multiplier": "1"}, {"multiplier": "2"}, {"multiplier": "4"}, {"multiplier": "1"})


def create_demo_sitting(group: Group | None = None, time_zone: str = "") -> Sitting:
    """A new Agram sitting (Aïcha, Boubacar, Chaibou, Djibo; Chaibou won hand 1 and deals hand 2) in a
    new demo group with three finished matches, or in `group` (this phone's demo group) while its
    four players remain, so repeats pile up no groups. Keeps `time_zone`. Source: RULES.md, A worked sitting (002)."""
    members = {player.name: player.pk for player in group.members()} if group is not None else {}
    if group is None or any(name not in members for name in DEMO_PLAYERS):
        group = Group.create(_("Demo club"), DEMO_PLAYERS, time_zone=time_zone)
        members = {player.name: player.pk for player in group.members()}
        seating = [members[name] for name in DEMO_PLAYERS]
        for game, end, options, winners in PLAYED:
            played = group.start_match(game, seating, end, **options)
            for number, winner in enumerate(winners, start=1):
                played.record_hand(number, winner, FAPFAP_ANSWERS[number - 1] if game == "fapfap" else None)
    seating = [members[name] for name in DEMO_PLAYERS]
    sitting = group.start_match(DEMO_GAME, seating, time_zone=time_zone)
    sitting.record_hand(1, winner=DEMO_PLAYERS.index("Chaibou"))
    return sitting
