"""The rows of the CSV files (a match's, a group's), for a script and a spreadsheet alike, whatever the
phone's language: comma-separated UTF-8 after a BOM, a header of the fixed English keys below (README,
the CSV files); only the `how` words follow the phone's language.

Long format, one row per hand and player: every column holds one kind of quantity under a key that does
not depend on who played, so a script groups by `player` and a pivot table puts `player` in its rows and
sums `points` or `money` as they are; wide columns per player would put names in the header and leave a
group's file mostly empty cells. Rows of other kinds (`row_type`) fill columns of their own: the chips Cat
Tê hands out in `chips_received`, each match's result in `net_points`, `net_money` and `hands_won`, so a
sum of any column over the whole file counts each hand once and no net twice."""

from __future__ import annotations

import csv
import datetime
from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.translation import ngettext

from matches.domain.money import as_decimal, decimals
from matches.domain.names import without_isolates
from matches.domain.settlement import hand_gains
from matches.web.presenters.receipts import corrections, first_kept

if TYPE_CHECKING:
    from matches.models import Hand, Seat
    from matches.web.presenters.table_state import TableState

MATCH_COLUMNS = (
    "row_type",  # hand | chips (Cat Tê: chips handed to each player) | net (the match's result)
    # | payment | forgiven (the group's tab: its file only, after every match)
    "hand",  # the hand's number
    "time",  # when the hand was recorded: ISO 8601 on the table's clock, with its offset
    "status",  # won | abandoned
    "dealer",
    "winner",  # "" for an abandoned hand
    "how",  # the hand's answers in words, in the phone's language
    "seat",  # the player's seat, 1 to the number of players
    "player",
    "unit",  # what `points` and `net_points` count: wins | points | stakes | chips
    "points",  # hand rows: the player's points this hand (the score table adds them)
    "currency",  # the stake's currency when Fapfap is played for money, else ""
    "money",  # hand rows, for money: the player's gain (+) or loss (-) this hand
    "chips_received",  # chips rows: the chips the player was handed
    "net_points",  # net rows: the player's points over the match (Cat Tê: chips won less chips lost)
    "net_money",  # net rows, for money: the player's net, as the match settles
    "hands_won",  # net rows
    # hand rows, their receipt:
    "recorded_by",  # whose phone tapped it, when the phone said whose it is
    "corrected_at",  # the hand's last correction, as `time`; "" for none
    "corrected_by",
    "first_recorded_as",  # a corrected hand: its winner and answers as first tapped
)
GROUP_COLUMNS = (
    "match",  # the match's number in the group, oldest first
    "game",  # the game's slug: agram, cat-te, fapfap...
    "match_started",  # ISO 8601 on the table's clock, with its offset
    *MATCH_COLUMNS,
    "payee",  # payment rows: who was paid (`player` paid `paid` in `currency`, marked at `time`)
    "paid",
    "taken_back",  # payment rows: when the phone that marked it took it back, else ""
)
ROWS_PER_CHUNK = 200
# Text a spreadsheet runs as a formula (OWASP); names may start so (names.py allows any visible first
# character), so a text cell starting so gets a ' first, and so does one starting with ' (then dropping
# one leading ' from any text cell gives it back as typed). Numbers are never touched.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GUARDED_STARTS = (*FORMULA_STARTS, "'")


def written(cell: object) -> object:
    """A cell as the file writes it: text a spreadsheet would run (or starting with ') after a '; the rest as is."""
    if isinstance(cell, str) and cell.startswith(GUARDED_STARTS):
        return "'" + cell
    return cell


class Echo:
    """A file whose write() hands back what it was given, for a csv writer inside a generator."""

    def write(self, value: str) -> str:
        return value


def csv_chunks(columns: Sequence[str], rows: Generator[dict[str, object], None, None]) -> Iterator[str]:
    """The file's text, ROWS_PER_CHUNK rows a chunk: a BOM (a spreadsheet then reads UTF-8), the header of
    `columns`, then each row's cells under them ("" for a key a row lacks)."""
    writer = csv.writer(Echo())
    chunk = ["\ufeff" + writer.writerow(columns)]
    try:
        for row in rows:
            chunk.append(writer.writerow([written(row.get(key, "")) for key in columns]))
            if len(chunk) >= ROWS_PER_CHUNK:
                yield "".join(chunk)
                chunk = []
        if chunk:
            yield "".join(chunk)
    finally:
        rows.close()  # a client that went away: end the read snapshot now


def moment(at: datetime.datetime, zone: datetime.tzinfo) -> str:
    """`at` on the table's clock, ISO 8601 to the second with its offset: "2026-12-31T23:41:07+07:00"."""
    return timezone.localtime(at, zone).isoformat(timespec="seconds")


def match_rows(state: TableState, hands: Iterable[Hand], match: dict[str, object] | None = None) -> Iterator[dict]:
    """A match's rows: `hands` oldest first, a row per seat each, Cat Tê's starting stack first and each
    batch of chips before the hand it preceded; once a hand is recorded, a net row per seat. `match`: cells
    every row repeats (the group's file). Nets are summed from the hands, so a drift from the table shows.
    Source: RULES.md (Cat Te: chips; Fapfap: stakes)."""
    sitting, seats = state.sitting, state.seats
    common: dict[str, object] = {**(match or {}), "unit": sitting.rules.unit}
    for_money = bool(sitting.stake_amount)  # a stake, or what a chip is worth
    if for_money:
        common["currency"] = sitting.stake_label
    cash = money_cell(sitting.stake_label)
    batches, given = list(state.stakes.batches), 0
    totals, wins = [0] * len(seats), [0] * len(seats)
    facts = HandFacts(state)
    yield from chips_rows(state, common, state.playing_hand(1))  # the starting stack
    played, number = False, 1
    for hand in hands:
        number = hand.number
        playing = state.playing_hand(number)  # (every seat, unless the table changed mid-match)
        while given < len(batches) and batches[given] <= number:
            yield from chips_rows(state, common, state.stakes.given_to(given, playing))
            given += 1
        yield from arrivals(state, common, number)
        played = True
        money = None
        if for_money and state.stakes.chips:  # each chip won or lost is worth the stake
            money = {p: hand.points[p] * sitting.stake_amount for p in playing}
        elif for_money:  # paid by those who played the hand
            money = dict(zip(playing, hand_gains([hand.points[p] for p in playing], True, sitting.stake_amount)))
        if hand.winner_id is not None:
            wins[facts.positions[hand.winner_id]] += 1
        said = {**common, **facts(hand)}
        for position in playing:
            totals[position] += hand.points[position]
            row = {**said, **who(seats[position]), "points": hand.points[position]}
            if money is not None:
                row["money"] = cash(money[position])
            yield row
    number += played  # the open hand
    while given < len(batches):
        yield from chips_rows(state, common, state.stakes.given_to(given, state.playing_hand(number)))
        given += 1
    yield from arrivals(state, common, number)
    if played:
        yield from net_rows(state, common, totals, wins)


def net_rows(state: TableState, common: dict[str, object], totals: list[int], wins: list[int]) -> Iterator[dict]:
    """Each seat's result: points summed, hands won and, for money, its net as the match settles."""
    for_money, cash = "currency" in common, money_cell(state.sitting.stake_label)
    nets = state.stakes.money(totals)
    for seat in state.seats:
        row = {**common, "row_type": "net", **who(seat), "net_points": totals[seat.position]}
        row["hands_won"] = wins[seat.position]
        if for_money:
            row["net_money"] = cash(nets[seat.position])
        yield row


def money_cell(label: str):
    """How the file writes an amount of `label`'s currency: in its unit, a dot before any decimals
    ("1.50", "-4.00", "300"), as a spreadsheet reads it in every language."""
    places = decimals(label)
    return (lambda amount: as_decimal(amount, places)) if places else (lambda amount: amount)


def who(seat: Seat) -> dict[str, object]:
    return {"seat": seat.position + 1, "player": seat.name}


def arrivals(state: TableState, common: dict[str, object], number: int) -> Iterator[dict]:
    """Cat Tê: the stack of each latecomer who sat down while hand `number` was open."""
    if number > 1 and state.stakes.chips:
        chips = state.stakes.chips
        how = ngettext("%(chips)d chip on sitting down", "%(chips)d chips on sitting down", chips) % {"chips": chips}
        joined = [p for p in state.playing_hand(number) if state.seats[p].joined == number]
        yield from chips_rows(state, common, joined, how)


def chips_rows(state: TableState, common: dict[str, object], playing: Sequence[int], how: str = "") -> Iterator[dict]:
    """Cat Tê: a stack of chips handed to each seat `playing` (none for other games)."""
    chips = state.stakes.chips
    if not chips:
        return
    how = how or ngettext("%(chips)d chip to each player", "%(chips)d chips to each player", chips) % {"chips": chips}
    for position in playing:
        yield {**common, "row_type": "chips", "how": how, **who(state.seats[position]), "chips_received": chips}


class HandFacts:
    """A hand's own cells (number, time, status, dealer, winner, words); answers worded once per file."""

    def __init__(self, state: TableState) -> None:
        self.state = state
        self.zone = state.sitting.zone
        self.positions = {seat.pk: seat.position for seat in state.seats}
        self.answers: dict[tuple, str] = {}
        self.first: dict[int, str] | None = None  # read at the first corrected hand: most matches have none

    def __call__(self, hand: Hand) -> dict[str, object]:
        seats = self.state.seats
        key = (hand.status, repr(sorted(hand.extras.items())))
        if key not in self.answers:
            self.answers[key] = without_isolates(self.state.describe(hand, worth=False))  # names as typed
        return {
            "row_type": "hand",
            "hand": hand.number,
            "time": moment(hand.recorded_at, self.zone),
            "status": hand.status,
            "dealer": seats[hand.dealer_position].name,
            "winner": seats[self.positions[hand.winner_id]].name if hand.winner_id else "",
            "how": self.answers[key],
            "recorded_by": self.whose(hand.recorded_by_seat),
            "corrected_at": moment(hand.corrected_at, self.zone) if hand.corrected_at else "",
            "corrected_by": self.whose(hand.corrected_by_seat) if hand.corrected_at else "",
            "first_recorded_as": without_isolates(self.first_recorded(hand)),
        }

    def first_recorded(self, hand: Hand) -> str:
        """A corrected hand's winner and answers as first tapped (its receipt), "" for one never corrected."""
        if hand.corrected_at is None:
            return ""
        if self.first is None:
            self.first = first_kept(self.state, corrections(self.state))
        return self.first.get(hand.number, "")

    def whose(self, seat: int | None) -> str:
        seats = self.state.seats
        return seats[seat].name if seat is not None and seat < len(seats) else ""
