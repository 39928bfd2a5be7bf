"""A group's figures from the database: its matches as stats.MatchRecords in two queries (sittings,
then seats; those still being played apart) and the win-rate chart. Seats keep total, hands won and
best run, so no hand row is read."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from matches.domain import rules, stats
from matches.domain.names import name_order
from matches.domain.chart import NAME_BASELINE, NAME_GAP, WIDTH, label_heights, sampled, shortened, view_box
from matches.models import Group, Seat, Sitting
from matches.domain.stakes import Stakes
from matches.models.zones import night_of, zone_named

RATE_WIDTH, RATE_HEIGHT = WIDTH, 100  # the win-rate chart's plot area, in viewBox units (domain/chart.py)
RATE_POINTS = 60  # at most this many matches drawn across (evenly sampled; always the last)
RATE_LINES = 16  # at most this many players drawn: those with the most counted matches
COLOURS = 8  # line styles (.chart .l0 to .l7 in app.css)


@dataclass(frozen=True)
class GroupRead:
    """Finished matches as MatchRecords (oldest first, by sitting id; players by id), players' names, and
    the matches still being played (`playing`): their hands count in the night's money, not in the figures."""

    matches: list[stats.MatchRecord]
    names: dict[int, str]
    playing: list[stats.MatchRecord] = field(default_factory=list)

    @property
    def every_match(self) -> list[stats.MatchRecord]:
        """Finished and still playing, oldest day first: what the nights' settlements count."""
        return sorted([*self.matches, *self.playing], key=lambda match: match.day)


def group_matches(group: Group) -> list[stats.MatchRecord]:
    """The group's finished matches (finished_at set), oldest first, in two queries."""
    return read_group(group).matches


SITTING_COLUMNS = (
    "pk",
    "game",
    "started_at",
    "options",
    "chips_reissued",
    "ended_how",
    "time_zone",
    "finished_at",
    "changes",
)
SEAT_COLUMNS = ("sitting_id", "player_id", "player__name", "total", "hands_won", "best_run", "joined", "left")


class SittingRow(NamedTuple):
    """What the figures read of a sitting (plain values: no model built per row)."""

    pk: int
    game: str
    started_at: object
    options: dict
    chips_reissued: int
    ended_how: str
    time_zone: str
    finished_at: object
    changes: int

    starting_chips = property(lambda row: row.options.get("starting_chips"))
    stake_amount = property(lambda row: row.options.get("stake_amount"))
    stake_label = property(lambda row: row.options.get("stake_label", ""))


class SeatColumns(NamedTuple):
    """A finished sitting's seats in seating order, column by column."""

    players: tuple[int, ...]
    totals: tuple[int, ...]
    hands_won: tuple[int, ...]
    best_runs: tuple[int, ...]
    stays: tuple[tuple[int, int | None], ...]  # each seat's first hand and the one it left at


def read_group(group: Group, since: datetime.datetime | None = None) -> GroupRead:
    """The group's matches (started `since`, when given) and players' names in two queries of plain
    values (see `record`). Ordered by each table's own day, then start: zones may reorder matches, and
    stats need days that never go back."""
    chosen = Sitting.objects.filter(group=group)
    if since is not None:
        chosen = chosen.filter(started_at__gte=since)
    sittings = list(map(SittingRow._make, chosen.order_by("started_at", "pk").values_list(*SITTING_COLUMNS)))
    seats: dict[int, list[tuple]] = {}
    names: dict[int, str] = {}
    rows = Seat.objects.filter(sitting__in=chosen).order_by("sitting_id", "position").values_list(*SEAT_COLUMNS)
    for row in rows:
        seats.setdefault(row[0], []).append(row)
        names[row[1]] = row[2]
    # A match whose table changed counts its money part by part (a query or two each: they are few).
    changed = {row.pk: Sitting.objects.get(pk=row.pk).stakes for row in sittings if row.changes}
    every = [
        record(sitting, seat_columns(seats[sitting.pk]), changed.get(sitting.pk))
        for sitting in sittings
        if sitting.pk in seats
    ]
    every.sort(key=lambda match: match.day)  # stable: by start within a day
    finished = [match for match in every if not match.playing]
    return GroupRead(finished, names, [match for match in every if match.playing and match.hands_played])


def seat_columns(rows: Sequence[tuple]) -> SeatColumns:
    """A sitting's rows of SEAT_COLUMNS (in seating order) turned into columns."""
    _, players, _, totals, hands_won, best_runs, joined, left = zip(*rows)
    return SeatColumns(players, totals, hands_won, best_runs, tuple(zip(joined, left)))


def seat_hands(seats: SeatColumns) -> tuple[int, ...]:
    """The hands each seat played of a match whose table changed (hands 1.. were won, in order)."""
    end = sum(seats.hands_won) + 1
    return tuple(max(0, min(left or end, end) - joined) for joined, left in seats.stays)


def record(sitting: SittingRow, seats: SeatColumns, stakes: Stakes | None = None) -> stats.MatchRecord:
    """One finished sitting as counted, dated on its table's clock. Finals as the table ranks them
    (Stakes.standing: Cat Tê's stacks handed out + total; money when a table at a stake changed); Fapfap
    at a stake: net money stake x (n x own - all); Cat Tê: net chips, the total. Source: RULES.md
    (Fapfap stakes; Cat Te)."""
    game = rules.get_game(sitting.game)
    totals = seats.totals
    stake = sitting.stake_amount if game.uses_stake or game.uses_chips else None
    if stakes is None:
        stakes = Stakes.of(game.uses_chips, sitting.starting_chips, (), sitting.chips_reissued, stake, sitting.stake_label)
    money = tuple(stakes.money(totals)) if stakes.stake else None
    return stats.MatchRecord(
        key=sitting.pk,
        game=sitting.game,
        day=night_of(sitting.started_at, zone_named(sitting.time_zone)),  # the night it was played
        players=seats.players,
        finals=tuple(stakes.standing(totals)),  # who won, as the table's standings say
        hands_won=seats.hands_won,
        # Kept when the match ended (and after a correction); never more than the hands won.
        best_runs=tuple(map(min, seats.best_runs, seats.hands_won)),
        points=totals,
        ended_early=sitting.ended_how == Sitting.EndedHow.ENDED_EARLY,
        seat_hands=seat_hands(seats) if sitting.changes else None,
        money=money,
        chips_net=totals if game.uses_chips else None,
        currency=sitting.stake_label if money is not None else "",
        playing=sitting.finished_at is None,
    )


@dataclass(frozen=True)
class RateLine:
    """One player's line: polyline `points`, name at `label_y`, last point `end`, `colour` class l0..l7
    (each dashed differently: never colour alone), and the whole-percent rates after each match."""

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
    view_box: tuple[int, int, int, int]
    left_out: int = 0  # players beyond RATE_LINES, not drawn
    width: int = RATE_WIDTH
    height: int = RATE_HEIGHT
    name_x: int = RATE_WIDTH + NAME_GAP
    baseline: int = NAME_BASELINE

    @property
    def view_box_text(self) -> str:
        return " ".join(map(str, self.view_box))

    @property
    def ticks(self) -> list[tuple[int, int]]:
        """(y, percent) for the axis: 0, 50 and 100 %."""
        return [(round((100 - percent) * self.height / 100), percent) for percent in (100, 50, 0)]


def rate_chart(
    matches: Sequence[stats.MatchRecord], names: Mapping[int, str], game: str | None = None
) -> RateChart | None:
    """Each player's win rate over `game`'s counted matches (all when None), RATE_POINTS drawn at most; or None."""
    counted = [match for match in matches if match.counts and (game is None or match.game == game)]
    if not counted:
        return None
    everyone = {player for match in counted for player in match.players}
    own: dict[int, list[tuple[int, int]]] = {player: [] for player in everyone}  # (match index, rate after it)
    played = dict.fromkeys(everyone, 0)
    won = dict.fromkeys(everyone, 0)
    for index, match in enumerate(counted):
        for seat, player in enumerate(match.players):
            played[player] += 1
            won[player] += match.won_by(seat)
            own[player].append((index, stats.percent_of(won[player] / played[player])))
    drawn_players = sorted(everyone, key=lambda p: (-played[p], p))[:RATE_LINES]
    players = sorted(drawn_players, key=lambda p: (name_order(names[p]), p))
    keep = sampled(len(counted), RATE_POINTS)

    def x(index: int) -> int:
        return round(index * RATE_WIDTH / max(1, len(counted) - 1))

    def y(percent: int) -> int:
        return round((100 - percent) * RATE_HEIGHT / 100)

    heights = label_heights([y(own[player][-1][1]) for player in players], RATE_HEIGHT)
    lines = []
    for index, (player, label_y) in enumerate(zip(players, heights)):
        rates = own[player]
        first = rates[0][0]
        # A line starts at the player's first match, then holds the rate after their latest match so far.
        drawn, latest = [(x(first), y(rates[0][1]))], 0
        for i in keep:
            if i <= first:
                continue
            while latest + 1 < len(rates) and rates[latest + 1][0] <= i:
                latest += 1
            drawn.append((x(i), y(rates[latest][1])))
        name = names[player]
        lines.append(
            RateLine(
                colour=f"l{index % COLOURS}",
                name=name,
                label=shortened(name),
                points=" ".join(f"{px},{py}" for px, py in drawn),
                label_y=label_y,
                end=drawn[-1],
                rates=tuple(rates[i][1] for i in sampled(len(rates), RATE_POINTS)),
            )
        )
    return RateChart(tuple(lines), len(counted), view_box(heights, RATE_HEIGHT), len(everyone) - len(players))
