"""Who plays which hand when the table changes mid-match. A seat keeps its position for good (the
ledger's column: hands' points and running totals); a newcomer takes the next position, so sits last
in playing order; a seat plays hands `joined` up to `left` (not included). A game's rules score the
seats that play a hand as if they were the whole table. Source: RULES.md (dealing; Cat Te; Eighty Three)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matches.domain.rules.core import Game, Leader, NextDealer, RuleError, gettext_noop, seat_number


@dataclass(frozen=True)
class Stay:
    """The hands a seat plays: from hand `joined` to the hand before `left` (None: still playing)."""

    joined: int = 1
    left: int | None = None

    def plays(self, number: int) -> bool:
        return self.joined <= number and (self.left is None or number < self.left)


def playing(stays: Sequence[Stay], number: int) -> tuple[int, ...]:
    """The positions that play hand `number`, in playing order."""
    return tuple(position for position, stay in enumerate(stays) if stay.plays(number))


def after(seats: Sequence[int], position: int) -> int:
    """The first of `seats` (positions in playing order) after `position`, going round the table;
    `position` itself need not play (a seat that left passes its turn to the next)."""
    return next((seat for seat in seats if seat > position), seats[0])


def before(seats: Sequence[int], position: int) -> int:
    """The last of `seats` before `position`, going round the table."""
    return next((seat for seat in reversed(seats) if seat < position), seats[-1])


def dealer_after(game: Game, seats: Sequence[int], dealer: int, winner: int | None) -> int:
    """Who deals the next hand, played by `seats`, after a hand dealt by `dealer` and won by `winner`
    (None: abandoned, the deal stays). A dealer who left passes the deal on."""
    if winner is None:
        keep = dealer
    elif game.next_dealer is NextDealer.WINNER:
        keep = winner
    else:
        return after(seats, dealer)
    return keep if keep in seats else after(seats, keep)


def leader_for(game: Game, seats: Sequence[int], dealer: int) -> int:
    """Who leads the first trick of a hand dealt by `dealer` and played by `seats`."""
    if game.leader is Leader.DEALER:
        return dealer
    if game.leader is Leader.BEFORE_DEALER:
        return before(seats, dealer)
    return after(seats, dealer)


@dataclass(frozen=True)
class Hand:
    """One hand as the game's rules see it: the playing seats renumbered 0.. in playing order."""

    seats: tuple[int, ...]  # positions playing, in order
    width: int  # positions in the ledger (every seat ever taken)

    @classmethod
    def everyone(cls, n_seats: int) -> Hand:
        return cls(tuple(range(n_seats)), n_seats)

    def for_game(self, game: Game, raw: Mapping[str, object]) -> dict[str, object]:
        """Posted answers with seat numbers (1-based positions) turned into the game's own seat numbers."""
        moved = dict(raw)
        for question in game.questions:
            if question.kind == "seats" and question.key in raw:
                value = raw[question.key]
                values = value if isinstance(value, (list, tuple)) else [value]
                moved[question.key] = [self._renumbered(question, seat) for seat in values]
        return moved

    def _renumbered(self, question, seat: object) -> object:
        try:
            position = seat_number(seat) - 1
        except ValueError:
            return seat  # (the game's rules refuse it in words)
        if not 0 <= position < self.width:
            raise RuleError(
                gettext_noop("%(prompt)s There is no seat %(seat)d at this table."), prompt=question.prompt, seat=position + 1
            )
        if position not in self.seats:
            raise RuleError(
                gettext_noop("%(prompt)s %(seat)d does not play this hand."), prompt=question.prompt, seat=position + 1
            )
        return self.seats.index(position) + 1

    def to_ledger(self, game: Game, points: Sequence[int], cleaned: Mapping[str, object]) -> tuple[list[int], dict]:
        """The game's points and answers back in ledger positions; seats that do not play get 0."""
        spread = [0] * self.width
        for index, gained in zip(self.seats, points, strict=True):
            spread[index] = gained
        kinds = {question.key: question.kind for question in game.questions}
        answers = {
            key: tuple(self.seats[index] for index in value) if kinds.get(key) == "seats" else value
            for key, value in cleaned.items()
        }
        return spread, answers


def score(game: Game, hand: Hand, winner: int, raw: Mapping[str, object]) -> tuple[dict, list[int]]:
    """(answers, points per ledger position) of a hand won by position `winner`, one of `hand.seats`;
    RuleError when the answers do not fit the game or the seats that play it."""
    index = hand.seats.index(winner)
    n_seats = len(hand.seats)
    cleaned = game.clean_extras(hand.for_game(game, raw), n_seats, index)
    points = game.score(n_seats, index, cleaned)
    ledger_points, answers = hand.to_ledger(game, points, cleaned)
    return answers, ledger_points
