"""What the match table shows, in words: columns, tally, result, hand rows (a read of models.Table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property
from operator import attrgetter
from typing import TYPE_CHECKING

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst, get_text_list
from django.utils.translation import ngettext, ngettext_lazy, npgettext, pgettext
from django.utils.translation import gettext as _

from matches.domain import rules
from matches.domain.names import by_name, shared
from matches.domain.settlement import Settling, settling
from matches.models.choices import HandStatus
from matches.models.table import Table
from matches.web.presenters.numbers import grouped, money_number, money_text, signed_points

if TYPE_CHECKING:
    from matches.models import Hand, Seat


SCORE, MONEY, WON = "score", "money", "won"

# A game's unit worded for a sentence; %(amount)s is grouped by thousands, "count" picks the plural.
# Source: RULES.md (wins: Agram family; stakes: Fapfap; chips: Cat Te; points: the others).
UNIT_AMOUNTS = {
    "wins": ngettext_lazy("%(amount)s hand won", "%(amount)s hands won", "count"),
    "points": ngettext_lazy("%(amount)s point", "%(amount)s points", "count"),
    "stakes": ngettext_lazy("%(amount)s stake", "%(amount)s stakes", "count"),
    "chips": ngettext_lazy("%(amount)s chip", "%(amount)s chips", "count"),
}


def amount(unit: str, count: int) -> str:
    """`count` of `unit` worded ("1 point", "2 hands won", "−2 chips"); KeyError for a unit without wording.
    The plural is chosen by the count without its sign: French reads −2 as singular (n > 1)."""
    return UNIT_AMOUNTS[unit] % {"count": abs(count), "amount": grouped(count)}


@cache
def score_is_hands_won(slug: str) -> bool:
    """True when the score is necessarily hands won: no questions and 1 to the winner, 0 to others.
    Source: RULES.md, Agram family ("the tally of wins is the score")."""
    game = rules.get_game(slug)
    return not game.questions and all(
        game.score(n, winner, {}) == tuple(int(seat == winner) for seat in range(n))
        for n in range(game.min_players, game.max_players + 1)
        for winner in range(n)
    )


@dataclass(frozen=True)
class Column:
    """One numeric column: `key` SCORE (the game's unit), MONEY (net at the stake) or WON (hands won);
    `heading` for the header; `short`, when not "", the header's word where `heading` would squeeze
    the names at 360 px (`heading` is then its title)."""

    key: str
    heading: str
    short: str = ""


@dataclass(frozen=True)
class TallyRow:
    """One seat's row: its numbers in TableState.columns order, and whether it holds first place."""

    seat: Seat
    cells: list[tuple[Column, int]]
    first: bool


@dataclass
class TableState(Table):
    """The match table as a screen words it: columns, tally, result, hand rows."""

    @cached_property
    def first_score(self) -> int:
        """First place's score as the tally shows it (chips in front, or the total)."""
        first = self.leaders[0]
        return self.balances()[first.position] if self.sitting.rules.uses_chips else first.total

    @cached_property
    def columns(self) -> list[Column]:
        """The numeric columns in order, never two that always show the same numbers: no unit column
        when the score is hands won; a money column at a stake. Source: RULES.md (Agram; Fapfap)."""
        sitting = self.sitting
        columns = []
        if sitting.rules.uses_stake:
            heading = _("Stakes won")
            short = pgettext("score table heading beside other numbers, as short as it can be", "Stakes won")
            columns.append(Column(SCORE, heading, short if short != heading else ""))
        elif not score_is_hands_won(sitting.game):
            columns.append(Column(SCORE, capfirst(_(sitting.rules.unit))))
        if sitting.stake_amount:  # a stake, or what a chip is worth
            columns.append(Column(MONEY, sitting.stake_label or _("Money")))
        won = _("Hands won")
        short = pgettext("score table heading beside other numbers, as short as it can be", "Hands won")
        columns.append(Column(WON, won, short if columns and short != won else ""))
        return columns

    @cached_property
    def shows_hand_points(self) -> bool:
        """Whether hand rows show the winner's points: not when every hand gives 1. Source: RULES.md, Agram."""
        return not score_is_hands_won(self.sitting.game)

    def cells(self, score: int, money: int, won: int) -> list[tuple[Column, int]]:
        """One seat's numbers under `columns`: its `score` as the tally shows it (Cat Tê: chips in front),
        its net `money` at the stake, and hands `won`."""
        values = {SCORE: score, MONEY: money, WON: won}
        return [(column, values[column.key]) for column in self.columns]

    @cached_property
    def settling(self) -> Settling | None:
        """Who pays whom now, by seat name: Fapfap at a stake in money, Cat Tê in chips (in money when a
        chip has a worth); None for other games, before any win, or if Cat Tê's chips do not sum to 0.
        Source: RULES.md (Fapfap; Cat Te)."""
        sitting, totals = self.sitting, [seat.total for seat in self.seats]
        if self.hands_played == 0 or (sitting.rules.uses_chips and sum(totals) != 0):
            return None
        names = {seat.position: seat.name for seat in self.seats}
        if sitting.rules.uses_chips and not sitting.stake_amount:
            return settling(names, {seat.position: seat.total for seat in self.seats}, chips=True)
        if sitting.stake_amount:
            nets = {seat.position: self.nets[seat.position] for seat in self.seats}
            return settling(names, nets, unit=sitting.stake_label)
        return None

    @cached_property
    def tally(self) -> list[TallyRow]:
        """The score table's rows, in seating order, from the seats' kept totals."""
        first = {seat.pk for seat in self.leaders}
        scores, nets = self.balances(), self.nets
        return [
            TallyRow(seat, self.cells(scores[seat.position], nets[seat.position], seat.hands_won), seat.pk in first)
            for seat in self.seats
        ]

    @cached_property
    def target_words(self) -> str:
        """A WINS or POINTS target with its unit ("3 hands won"); "" otherwise."""
        kind, target = self.sitting.end_kind, self.sitting.end_target
        if target is None or kind not in (rules.MatchEndKind.WINS, rules.MatchEndKind.POINTS):
            return ""
        return amount("wins" if kind == rules.MatchEndKind.WINS else self.sitting.rules.unit, target)

    @cached_property
    def result(self) -> SafeString:
        """Final standings as one HTML sentence (names escaped, bold); "" before any win; ties shared.
        Raises KeyError for a unit without wording. Source: RULES.md, Cat Te (ties are shared)."""
        first = self.leaders
        if not first:
            return mark_safe("")
        words = conditional_escape(self.score_words(self.first_score, first[0].position))
        names = [format_html("<strong>{}</strong>", seat.name) for seat in by_name(first, attrgetter("name"))]
        if len(names) == 1:
            sentence = _("%(name)s wins the match with %(amount)s.") % {"name": names[0], "amount": words}
        else:
            listed = get_text_list(names, _("and"))
            sentence = _("Shared first place: %(names)s, with %(amount)s each.") % {"names": listed, "amount": words}
        return mark_safe(sentence)  # noqa: S308 - our own sentence; names and amount escaped above

    @cached_property
    def ended_early(self) -> str:
        """ "Ended early: hand 4 was not played." (open hand abandoned), "Ended after hand 3.", or ""."""
        last = self.last_hand
        if not self.sitting.is_final:
            return ""
        stopped = last is not None and last.winner_id is None  # the hand being played when it ended
        played = last.number - stopped if last else 0
        if self.sitting.end_kind == "open" or not stopped:
            if not played:
                return _("Ended before its first hand.")
            return _("Ended after hand %(number)d.") % {"number": played}
        return _("Ended early: hand %(number)d was not played.") % {"number": last.number}

    def score_words(self, score: int, position: int) -> str:
        """A tally score worded: "11 points", "5 chips (+1)" (Cat Tê: against the stacks), at a Fapfap
        stake the money first: "+1,100 CFA (6 stakes won)". Source: RULES.md, Fapfap stakes."""
        if self.sitting.rules.uses_chips:
            net = self.seats[position].total
            signed = f"+{grouped(net)}" if net > 0 else grouped(net)
            return _("%(amount)s (%(net)s)") % {"amount": amount(self.sitting.rules.unit, score), "net": signed}
        if not self.sitting.stake_amount:
            return amount(self.sitting.rules.unit, score)
        won = ngettext("%(count)s stake won", "%(count)s stakes won", score) % {"count": grouped(score)}
        return _("%(money)s (%(stakes_won)s)") % {"money": self.money_words(position), "stakes_won": won}

    @property
    def stake_words(self) -> str:
        """What one stake is worth, shown from the first hand on: "100 CFA"; "" when played for none."""
        stake, label = self.sitting.stake_amount, self.sitting.stake_label
        return money_text(stake, label) if stake else ""

    def money_words(self, position: int) -> str:
        """Net money of the seat at `position`, signed, in the stake's currency: "−400 CFA"."""
        return money_text(self.nets[position], self.sitting.stake_label, signed=True)

    def stake_worth(self, short: str, multiplier: int) -> str:
        """A Fapfap answer's worth in words: every other player pays the winner stake x multiplier
        ("...: 200 CFA from each other player"). Source: RULES.md, Fapfap stakes."""
        stake, label = self.sitting.stake_amount, self.sitting.stake_label
        if stake and label:
            return _("%(short)s: %(amount)s %(currency)s from each other player") % {
                "short": short,
                "amount": money_number(stake * multiplier, label),
                "currency": label,
            }
        if stake:
            return _("%(short)s: %(amount)s from each other player") % {
                "short": short,
                "amount": money_number(stake * multiplier, label),
            }
        return ngettext(
            "%(short)s: %(amount)s stake from each other player",
            "%(short)s: %(amount)s stakes from each other player",
            multiplier,
        ) % {"short": short, "amount": grouped(multiplier)}

    @cached_property
    def ran_out(self) -> str:
        """Cat Tê: who has no chip left ("Ben and Chloé", a right-to-left name isolated); "" if nobody."""
        if not self.sitting.rules.uses_chips:
            return ""
        out = [seat for seat, chips in zip(self.seats, self.balances()) if chips <= 0 and seat.position in self.playing]
        names = [shared(seat.name) for seat in by_name(out, attrgetter("name"))]
        return str(get_text_list(names, _("and"))) if names else ""

    @cached_property
    def rows(self) -> list[HandRow]:
        return [self.row(hand) for hand in self.recent_hands]

    @cached_property
    def last_row(self) -> HandRow | None:
        """The newest hand's row (the undo panel's question): a page whose hands list is kept draws no other."""
        if "rows" in self.__dict__ or not self.recent_hands:
            return self.rows[0] if self.rows else None
        return self.row(self.recent_hands[0])

    def row(self, hand) -> HandRow:
        return HandRow(
            hand=hand,
            winner=self.name_of(hand.winner_id) if hand.winner_id else "",
            dealer=self.seats[hand.dealer_position].name,
            points=hand.points[self.position_of(hand.winner_id)] if hand.winner_id else 0,
            how=self.describe(hand),
            scores=self.scores_of(hand),
            handed_out=self.handed_out_after(hand.number),
            changed=self.changed_after(hand.number),
            table=self,
        )

    @cached_property
    def before_first(self) -> list[str]:
        """What happened before hand 1 (the table changed; chips handed out, dated so by an undo of hand 1),
        said under hand 1's row when it is shown, or alone before any hand."""
        if self.recent_hands and self.recent_hands[-1].number != 1:
            return []
        handed_out = self.handed_out_after(0)
        return [*self.changed_after(0), *([handed_out] if handed_out else [])]

    def scores_of(self, hand: Hand) -> SafeString:
        """Every player's points in `hand` when others than the winner scored, winner first, then the others
        by name, names in <bdi> ("Ali +5, Bintou −3"); "" when only the winner scored. Source: RULES.md
        (Eighty Three; Cat Te)."""
        if hand.winner_id is None:
            return mark_safe("")
        winner = self.position_of(hand.winner_id)
        if not any(points for seat, points in enumerate(hand.points) if seat != winner):
            return mark_safe("")
        others = [seat for seat, points in enumerate(hand.points) if points and seat != winner]
        order = [winner, *by_name(others, lambda seat: self.seats[seat].name)]
        scores = [
            format_html("<bdi>{}</bdi> {}", self.seats[seat].name, signed_points(hand.points[seat])) for seat in order
        ]
        return mark_safe(", ".join(scores))  # noqa: S308 - each part escaped by format_html

    @cached_property
    def table_changes(self) -> dict[int, list[str]]:
        """The table's changes worded, by the hand after which they were made (0: before hand 1)."""
        if not self.sitting.changes:
            return {}
        words = {
            "joined": _("%(name)s joined the table and plays from hand %(number)d."),
            "back": _("%(name)s is back at the table and plays from hand %(number)d."),  # a leave taken back
            "left": _("%(name)s left the table after hand %(after)d."),
            "left_first": _("%(name)s left the table before the first hand."),
            "renamed": _("%(before)s is now called %(name)s."),
        }
        first_hand = {seat.pk: seat.joined for seat in self.seats}
        said: dict[int, list[str]] = {}
        for change in self.sitting.table_changes.all():
            values = {"name": shared(change.name), "before": shared(change.name_before)}
            values.update(number=change.before, after=change.before - 1)
            back = change.kind == "joined" and first_hand.get(change.seat_id, change.before) < change.before
            kind = "back" if back else "left_first" if change.kind == "left" and change.before == 1 else change.kind
            said.setdefault(change.before - 1, []).insert(0, words[kind] % values)  # newest first
        return said

    def changed_after(self, number: int) -> list[str]:
        return self.table_changes.get(number, [])

    def handed_out_after(self, number: int) -> str:
        """Cat Tê: the chips handed to everyone after hand `number` as a sentence, or "". Source: RULES.md, Cat Te."""
        chips = self.stakes.handed_out_after(number)
        if not chips:
            return ""
        return ngettext("Everyone received %(chips)d more chip.", "Everyone received %(chips)d more chips.", chips) % {
            "chips": chips
        }

    def who(self, seat: int | None, phone: str) -> str:
        """Who made a change: a seat name, "this phone", "another phone" or "" when unknown.
        The phone's id stays in the database for the admin: a code means nothing to a player."""
        if seat is not None and seat < len(self.seats):
            return self.seats[seat].name
        if not phone:
            return ""
        return _("this phone") if phone == self.this_phone else _("another phone")

    def describe(self, hand: Hand, worth: bool = True) -> str:
        """A hand's extra facts in a few words ("x2", "Ace; Djibo had a bonus"), a right-to-left name
        isolated (names.shared), for the files to strip. With `worth`, a multiplier says its value ("x2 = 200 CFA from each other player")."""
        words = []
        if hand.status != HandStatus.WON:
            return ""  # an abandoned hand has no answers
        for question in self.sitting.rules.asked(hand.extras):
            answer = hand.extras.get(question.key)
            if question.kind == "choice":
                short = [_(c.short) for c in question.choices if c.value == answer]
                if worth and short and self.sitting.rules.uses_stake:
                    short = [self.stake_worth(short[0], hand.points[self.position_of(hand.winner_id)])]
                words.extend(short)
            elif question.kind == "flag" and answer:
                words.append(_(question.short or question.prompt))
            elif question.kind == "seats" and answer:
                # Names first: after the winner's own facts, a fact followed by names would read as the winner's.
                named = by_name([self.seats[p].name for p in answer])
                names = get_text_list([shared(name) for name in named], _("and"))
                # Several names take "each" so the verb agrees with one.
                words.append(
                    npgettext(
                        "players named, then what they did in the hand",
                        "%(names)s %(question)s",
                        "%(names)s: each %(question)s",
                        len(answer),
                    )
                    % {"question": _(question.short or question.prompt), "names": names}
                )
        return _("; ").join(words) if words else ""


@dataclass
class HandRow:
    """One hand as the screens show it: names, points, how it was won, who recorded or corrected it."""

    hand: Hand
    winner: str
    dealer: str
    points: int
    how: str
    handed_out: str = ""  # Cat Tê: the chips everyone received after this hand, worded ("" for none)
    changed: list[str] = field(default_factory=list)  # the table's changes made after this hand, worded
    scores: SafeString = mark_safe("")
    table: TableState | None = field(default=None, repr=False)  # whose seats and phone name who changed it

    # Worded only when asked (the hands page, not the match table); "" without a table.
    @property
    def recorded_by(self) -> str:
        return self.table.who(self.hand.recorded_by_seat, self.hand.recorded_by_phone) if self.table else ""

    @property
    def corrected_by(self) -> str:
        return self.table.who(self.hand.corrected_by_seat, self.hand.corrected_by_phone) if self.table else ""
