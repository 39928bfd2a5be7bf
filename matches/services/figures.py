"""A group's figures from the database: its finished matches as stats.MatchRecords, read in two
queries whatever the number of matches and hands (the sittings, then all their seats), and the
drawing of each player's win rate over time.

Per seat the database keeps everything the figures need: its total (the sum of its hands' points),
its hands won and, once the match is over, its best run. So no hand row is read here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from matches.domain import rules, stats
from matches.domain.chart import listed, sampled, shortened, spread_labels
from matches.models import Group, Seat, Sitting
from matches.domain.stakes import Stakes
from matches.models.zones import zone_named

RATE_WIDTH, RATE_HEIGHT = 260, 100  # the win-rate chart's plot area, in viewBox units
RATE_POINTS = 60  # at most this many matches drawn across (evenly sampled; always the last)
COLOURS = 8  # line styles (.chart .l0 to .l7 in app.css)


@dataclass(frozen=True)
class GroupRead:
    """A group's finished matches as MatchRecords (oldest first, keyed by sitting id, players by
    Player id) and every seated player's name by id (an erased player's replaced name)."""

    matches: list[stats.MatchRecord]
    names: dict[int, str]


def group_matches(group: Group) -> list[stats.MatchRecord]:
    """The group's finished matches (finished_at set), oldest first, in two queries."""
    return read_group(group).matches


SITTING_COLUMNS = (
    "pk",
    "game",
    "started_at",
    "starting_chips",
    "chips_reissued",
    "stake_amount",
    "stake_label",
    "ended_how",
    "time_zone",
)
SEAT_COLUMNS = ("sitting_id", "player_id", "player__name", "total", "hands_won", "best_run")


class SittingRow(NamedTuple):
    """What the figures read of a finished sitting (plain values: no model built per row)."""

    pk: int
    game: str
    started_at: object
    starting_chips: int | None
    chips_reissued: int
    stake_amount: int | None
    stake_label: str
    ended_how: str
    time_zone: str


class SeatColumns(NamedTuple):
    """A finished sitting's seats in seating order, column by column."""

    players: tuple[int, ...]
    totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    best_runs: tuple[int, ...]


def read_group(group: Group) -> GroupRead:
    """The group's finished matches and its players' names, in two queries of plain values: the
    sittings, then their seats with their players' names. See `record` for what each seat gives.

    Each match's day is its table's own (its time zone's), and the matches are kept in order of those
    days, then of their start: tables in different zones may date two matches in the other order
    than they started, and the statistics need days that never go back."""
    finished = Sitting.objects.filter(group=group, finished_at__isnull=False)
    sittings = list(map(SittingRow._make, finished.order_by("started_at", "pk").values_list(*SITTING_COLUMNS)))
    seats: dict[int, list[tuple]] = {}
    names: dict[int, str] = {}
    rows = Seat.objects.filter(sitting__in=finished).order_by("sitting_id", "position").values_list(*SEAT_COLUMNS)
    for row in rows:
        seats.setdefault(row[0], []).append(row)
        names[row[1]] = row[2]
    matches = [record(sitting, seat_columns(seats[sitting.pk])) for sitting in sittings if sitting.pk in seats]
    matches.sort(key=lambda match: match.day)  # stable: by start within a day
    return GroupRead(matches, names)


def seat_columns(rows: Sequence[tuple]) -> SeatColumns:
    """A sitting's rows of SEAT_COLUMNS (in seating order) turned into columns."""
    _, players, _, totals, hands_won, best_runs = zip(*rows)
    return SeatColumns(players, totals, hands_won, best_runs)


def record(sitting: SittingRow, seats: SeatColumns) -> stats.MatchRecord:
    """One finished sitting as the figures count it, from its seats; its day is the day it started on
    its table's clock (its time zone; the server's when it has none).

    Finals as the table shows them (chips in front of each player for Cat Tê: the stacks handed out
    plus the seat's total; the total otherwise); hands played: the seats' hands won added up (each
    won hand has one winner); points: each seat's total. Fapfap at a stake: each seat's net money,
    stake x (n x own stakes - everyone's) (every other player pays each hand's winner the stake
    times its multiplier), in the stake's currency. Cat Tê: each seat's net chips, its total.
    """
    game = rules.get_game(sitting.game)
    totals = seats.totals
    stake = sitting.stake_amount if game.uses_stake else None
    stakes = Stakes.of(game.uses_chips, sitting.starting_chips, (), sitting.chips_reissued, stake, sitting.stake_label)
    issued = stakes.issued()
    money = tuple(stakes.money(totals)) if stakes.stake else None
    return stats.MatchRecord(
        key=sitting.pk,
        game=sitting.game,
        day=sitting.started_at.astimezone(zone_named(sitting.time_zone)).date(),
        players=seats.players,
        finals=tuple(issued + total for total in totals) if issued else totals,
        hands_won=seats.hands_won,
        # Kept when the match ended (and again after a correction); never more than the hands won.
        best_runs=tuple(map(min, seats.best_runs, seats.hands_won)),
        points=totals,
        ended_early=sitting.ended_how == Sitting.EndedHow.ENDED_EARLY,
        money=money,
        chips_net=totals if game.uses_chips else None,
        currency=sitting.stake_label if money is not None else "",
    )


# --- the win rate over time, drawn ------------------------------------------------------------


@dataclass(frozen=True)
class RateLine:
    """One player's line: `points` as SVG polyline text, the name drawn at `label_y`, its last point
    `end`, its `colour` class (l0..l7, with a dash pattern each: never colour alone), and the win
    rates (whole percents) after each match they played, for the numbers beside the drawing."""

    colour: str
    name: str
    label: str
    points: str
    label_y: int
    end: tuple[int, int]
    rates: tuple[int, ...]


@dataclass(frozen=True)
class RateChart:
    """Each player's win rate after every counted match (sampled), 0 to 100 % up the side."""

    lines: tuple[RateLine, ...]
    matches: int
    width: int = RATE_WIDTH
    height: int = RATE_HEIGHT

    @property
    def ticks(self) -> list[tuple[int, int]]:
        """(y, percent) for the axis: 0, 50 and 100 %."""
        return [(round((100 - percent) * self.height / 100), percent) for percent in (100, 50, 0)]


def rate_chart(
    matches: Sequence[stats.MatchRecord], names: Mapping[int, str], game: str | None = None
) -> RateChart | None:
    """The win rate over time of every player of the counted matches of `game` (all when None).

    Across: the counted matches in order, at most RATE_POINTS of them drawn. A player's line starts
    at their first match and holds its rate through the matches they sat out (it does not change),
    to the last one, where their name is written. None when no match counts.
    """
    counted = [match for match in matches if match.counts and (game is None or match.game == game)]
    if not counted:
        return None
    players = sorted({player for match in counted for player in match.players}, key=lambda p: (names[p].casefold(), p))
    own: dict[int, list[tuple[int, int]]] = {player: [] for player in players}  # (match index, rate after it)
    played = dict.fromkeys(players, 0)
    won = dict.fromkeys(players, 0)
    for index, match in enumerate(counted):
        for seat, player in enumerate(match.players):
            played[player] += 1
            won[player] += match.won_by(seat)
            own[player].append((index, stats.percent_of(won[player] / played[player])))
    keep = sampled(len(counted), RATE_POINTS)

    def x(index: int) -> int:
        return round(index * RATE_WIDTH / max(1, len(counted) - 1))

    def y(percent: int) -> int:
        return round((100 - percent) * RATE_HEIGHT / 100)

    final = {player: own[player][-1][1] for player in players}
    ends = sorted(set(final.values()), reverse=True)  # the rates the lines end at, top first: a label each
    at = dict(zip(ends, spread_labels([y(rate) for rate in ends], top=0, bottom=RATE_HEIGHT)))
    together = {rate: [player for player in players if final[player] == rate] for rate in ends}
    lines = []
    for index, player in enumerate(players):
        label_y, group = at[final[player]], together[final[player]]
        rates = own[player]
        first = rates[0][0]
        # The line starts at the player's first match (even between samples), then at each sample
        # from there on gives the rate after their latest match so far: it holds while they sit out.
        drawn, latest = [(x(first), y(rates[0][1]))], 0
        for i in keep:
            if i <= first:
                continue
            while latest + 1 < len(rates) and rates[latest + 1][0] <= i:
                latest += 1
            drawn.append((x(i), y(rates[latest][1])))
        name = names[player]
        if player != group[-1]:
            label = ""  # the last of those ending at the same rate names them all
        else:
            label = shortened(name) if len(group) == 1 else listed([names[other] for other in group])
        lines.append(
            RateLine(
                colour=f"l{index % COLOURS}",
                name=name,
                label=label,
                points=" ".join(f"{px},{py}" for px, py in drawn),
                label_y=label_y,
                end=drawn[-1],
                rates=tuple(rates[i][1] for i in sampled(len(rates), RATE_POINTS)),
            )
        )
    return RateChart(tuple(lines), len(counted))
