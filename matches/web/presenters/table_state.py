"""What the match table shows, in words: columns, tally, result, hand rows (a read of models.Table)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING

from django.utils import formats
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst, get_text_list
from django.utils.translation import get_language, ngettext, ngettext_lazy, npgettext, pgettext
from django.utils.translation import gettext as _

from matches.domain import rules
from matches.domain.names import isolate
from matches.domain.settlement import Settling, settling
from matches.models.choices import HandStatus
from matches.models.table import Table

if TYPE_CHECKING:
    from matches.models import Hand, Seat


SCORE, MONEY, WON = "score", "money", "won"

# A number of a game's unit, worded for a sentence. Source: RULES.md (wins: Agram family; stakes:
# Fapfap; chips: Cat Te; points: the others).
# %(amount)s is the count grouped by thousands as the language writes it; "count" picks the plural.
UNIT_AMOUNTS = {
    "wins": ngettext_lazy("%(amount)s hand won", "%(amount)s hands won", "count"),
    "points": ngettext_lazy("%(amount)s point", "%(amount)s points", "count"),
    "stakes": ngettext_lazy("%(amount)s stake", "%(amount)s stakes", "count"),
    "chips": ngettext_lazy("%(amount)s chip", "%(amount)s chips", "count"),
}


def grouped(number: int) -> str:
    """A whole number grouped by thousands as the active language writes it (scorekeeper/formats):
    "1,000" (English), "1 000" (French, a no-break space), "1.000" (German, Vietnamese); a negative
    with the minus sign U+2212, "−1,000", the one sign every screen shows (the CSV keeps ASCII "-").
    The `number` template filter is this function."""
    return grouper()(number)


def grouper() -> Callable[[int], str]:
    """`grouped` for the active language, its format looked up once: for the few hundred numbers of a
    tap's chart table. Groups of three (every language here) are written directly, a tenth of
    number_format's cost."""
    separator = thousands_separator(get_language())

    def write(number: int) -> str:
        if separator is None:
            text = formats.number_format(abs(number), force_grouping=True)
        else:
            text = f"{abs(number):,}".replace(",", separator)
        return f"\u2212{text}" if number < 0 else text

    return write


@cache
def thousands_separator(language: str | None) -> str | None:
    """The language's thousands separator when it groups by three (scorekeeper/formats), else None."""
    if formats.get_format("NUMBER_GROUPING", language) != 3:
        return None
    return formats.get_format("THOUSAND_SEPARATOR", language)


def signed_points(points: int) -> str:
    """Points a hand gave, with their sign: "+2", "−3" (U+2212, as every screen writes it), "0"."""
    return f"+{grouped(points)}" if points > 0 else grouped(points)


def amount(unit: str, count: int) -> str:
    """`count` of a game's `unit` ("wins", "points", "stakes", "chips") in the active language:
    "1 point", "1,100 points", "2 hands won". Raises KeyError for a unit without wording here."""
    return UNIT_AMOUNTS[unit] % {"count": count, "amount": grouped(count)}


@cache
def score_is_hands_won(slug: str) -> bool:
    """True when the game's score is necessarily its hands won: it asks nothing after the winner and
    every hand gives its winner 1 and everyone else 0, at every table size (Agram, Sink-Sink, Agram
    in Mali). Source: RULES.md, the Agram family ("a hand is simply won; the tally of wins is the score")."""
    game = rules.get_game(slug)
    return not game.questions and all(
        game.score(n, winner, {}) == tuple(int(seat == winner) for seat in range(n))
        for n in range(game.min_players, game.max_players + 1)
        for winner in range(n)
    )


@dataclass(frozen=True)
class Column:
    """One numeric column of the score table. `key`: SCORE (the game's unit: chips in front of the
    seat, points, stakes), MONEY (the seat's net money at the sitting's stake) or WON (hands won); `heading` as
    the column's header shows it ("Chips", "FCFA", "Hands won"); `short`, when not "", the word the header
    shows instead, with `heading` as its title, where the full heading would squeeze the names at 360 px
    ("Siege" for "Gewonnene Runden")."""

    key: str
    heading: str
    short: str = ""


@dataclass(frozen=True)
class TallyRow:
    """One seat's row of the score table: its numbers in the order of TableState.columns, and
    whether it holds first place (alone or shared)."""

    seat: Seat
    cells: list[tuple[Column, int]]
    first: bool


@dataclass
class TableState(Table):
    """The match table as a screen words it: columns, tally, result, hand rows."""

    @cached_property
    def first_score(self) -> int:
        """The first place's score as the tally shows it: chips in front of them, or their total."""
        first = self.leaders[0]
        return self.balances()[first.position] if self.sitting.rules.uses_chips else first.total

    @cached_property
    def columns(self) -> list[Column]:
        """The score table's numeric columns, in order; never two that always show the same numbers.

        The unit's column is left out when the score is necessarily the hands won (one win a hand).
        A sitting played for a stake gets a money column: each seat's net (see `money`), which
        differs from its stakes whatever the stake. Source: RULES.md (Agram family; Fapfap stakes).
        """
        sitting = self.sitting
        columns = []
        if sitting.rules.uses_stake:
            # Stakes won, not owed: said the same with or without a money column beside it.
            heading = _("Stakes won")
            short = pgettext("score table heading beside other numbers, as short as it can be", "Stakes won")
            columns.append(Column(SCORE, heading, short if short != heading else ""))
            if sitting.stake_amount:
                columns.append(Column(MONEY, sitting.stake_label or _("Money")))
        elif not score_is_hands_won(sitting.game):
            columns.append(Column(SCORE, capfirst(_(sitting.rules.unit))))
        won = _("Hands won")
        # Beside other numbers the heading may take a shorter word (the full one is its title).
        short = pgettext("score table heading beside other numbers, as short as it can be", "Hands won")
        columns.append(Column(WON, won, short if columns and short != won else ""))
        return columns

    @cached_property
    def shows_hand_points(self) -> bool:
        """Whether hand rows show the winner's points: not when every hand gives its winner 1 (the
        column would always read +1). Source: RULES.md, the Agram family."""
        return not score_is_hands_won(self.sitting.game)

    def cells(self, total: int, won: int, batches: int, everyone: int) -> list[tuple[Column, int]]:
        """One seat's numbers under `columns`, from its `total` (the sum of its hands' points, in the
        game's unit), its hands `won`, the chip `batches` re-issued so far (Cat Tê) and `everyone`,
        the sum of every seat's total at that point (for the money column)."""
        values = {
            SCORE: self.chips_issued(batches) + total,
            MONEY: self.money(total, everyone),
            WON: won,
        }
        return [(column, values[column.key]) for column in self.columns]

    @cached_property
    def settling(self) -> Settling | None:
        """Who pays whom to settle up now, by seat name in seating order: Fapfap at a stake in its
        currency (the money column's nets), Cat Tê in chips (each seat's total: its chips against
        the stacks handed out). None for the other games, before any hand is won, or (Cat Tê) if
        the chips moved did not add up to 0. Source: RULES.md (Fapfap stakes; Cat Te chips)."""
        sitting, totals = self.sitting, [seat.total for seat in self.seats]
        if self.hands_played == 0:
            return None
        names = {seat.position: seat.name for seat in self.seats}
        if sitting.rules.uses_chips and sum(totals) == 0:
            return settling(names, {seat.position: seat.total for seat in self.seats}, chips=True)
        if sitting.rules.uses_stake and sitting.stake_amount:
            nets = {seat.position: self.money(seat.total, sum(totals)) for seat in self.seats}
            return settling(names, nets, unit=sitting.stake_label)
        return None

    @cached_property
    def tally(self) -> list[TallyRow]:
        """The score table's rows, in seating order, from the seats' kept totals."""
        first = {seat.pk for seat in self.leaders}
        batches, everyone = self.sitting.chips_reissued, sum(seat.total for seat in self.seats)
        return [
            TallyRow(seat, self.cells(seat.total, seat.hands_won, batches, everyone), seat.pk in first)
            for seat in self.seats
        ]

    @cached_property
    def target_words(self) -> str:
        """A WINS or POINTS match end's target worded with its unit ("3 hands won", "1 point"); "" otherwise."""
        kind, target = self.sitting.end_kind, self.sitting.end_target
        if target is None or kind not in (rules.MatchEndKind.WINS, rules.MatchEndKind.POINTS):
            return ""
        return amount("wins" if kind == rules.MatchEndKind.WINS else self.sitting.rules.unit, target)

    @cached_property
    def result(self) -> SafeString:
        """The final standings in one sentence (HTML, names escaped and bold): "Chaibou wins the match
        with 11 points." or "Shared first place: Aïcha and Djibo, with 1 hand won each."; "" before any
        hand is won. Raises KeyError when the game's unit has no wording in UNIT_AMOUNTS.
        Source: RULES.md (Cat Te: ties are shared)."""
        first = self.leaders
        if not first:
            return mark_safe("")
        words = conditional_escape(self.score_words(self.first_score))
        names = [format_html("<strong>{}</strong>", seat.name) for seat in first]
        if len(names) == 1:
            sentence = _("%(name)s wins the match with %(amount)s.") % {"name": names[0], "amount": words}
        else:
            listed = get_text_list(names, _("and"))
            sentence = _("Shared first place: %(names)s, with %(amount)s each.") % {"names": listed, "amount": words}
        return mark_safe(sentence)  # noqa: S308 - our own sentence; names and amount escaped above

    @cached_property
    def ended_early(self) -> str:
        """ "Ended early: hand 4 was not played." for a match a member ended (its last hand, the one
        open then, abandoned); "Ended after hand 3." for an open match, which only ends that way;
        "" otherwise."""
        last = self.last_hand
        if not self.sitting.is_final or last is None:
            return ""
        if self.sitting.end_kind == "open":
            played = last.number - 1
            if not played:
                return _("Ended before its first hand.")
            return _("Ended after hand %(number)d.") % {"number": played}
        return _("Ended early: hand %(number)d was not played.") % {"number": last.number}

    def score_words(self, score: int) -> str:
        """A score as the tally shows it, worded: "11 points", "2 hands won", "5 chips (+1)" (Cat Tê:
        the chips in front of the player, then against the stacks handed out); at a Fapfap
        stake the money it comes to first, with its sign and currency: "+1,100 CFA (6 stakes won)" (for
        a seat whose total is `score` stakes). Source: RULES.md, Fapfap stakes."""
        if self.sitting.rules.uses_chips:  # the chips in front, then what they come to against the stacks
            net = score - self.chips_issued(self.sitting.chips_reissued)
            signed = f"+{grouped(net)}" if net > 0 else grouped(net)
            return _("%(amount)s (%(net)s)") % {"amount": amount(self.sitting.rules.unit, score), "net": signed}
        if not self.sitting.stake_amount:
            return amount(self.sitting.rules.unit, score)
        won = ngettext("%(count)s stake won", "%(count)s stakes won", score) % {"count": grouped(score)}
        return _("%(money)s (%(stakes_won)s)") % {"money": self.money_words(score), "stakes_won": won}

    def money_words(self, total: int) -> str:
        """The net money of a seat whose total is `total` stakes, signed, in the stake's currency:
        "+1,100 CFA", "−400 CFA", "0 CFA"."""
        net = self.money(total, sum(seat.total for seat in self.seats))
        text = f"+{grouped(net)}" if net > 0 else grouped(net)
        return f"{text} {self.sitting.stake_label}" if self.sitting.stake_label else text

    def stake_worth(self, short: str, multiplier: int) -> str:
        """What a Fapfap answer (`short`, its button's words) is worth, in words: "with a 3, last trick
        only: 200 CFA from each other player" at a stake, "...: 2 stakes from each other player" without
        one: every other player pays the winner the stake times the multiplier. Source: RULES.md, Fapfap
        stakes."""
        stake, label = self.sitting.stake_amount, self.sitting.stake_label
        if stake and label:
            return _("%(short)s: %(amount)s %(currency)s from each other player") % {
                "short": short,
                "amount": grouped(stake * multiplier),
                "currency": label,
            }
        if stake:
            return _("%(short)s: %(amount)s from each other player") % {
                "short": short,
                "amount": grouped(stake * multiplier),
            }
        return ngettext(
            "%(short)s: %(amount)s stake from each other player",
            "%(short)s: %(amount)s stakes from each other player",
            multiplier,
        ) % {"short": short, "amount": grouped(multiplier)}

    @cached_property
    def ran_out(self) -> str:
        """Cat Tê: who has no chip left in front of them, names isolated ("Ben and Chloé"); "" if nobody."""
        if not self.sitting.rules.uses_chips:
            return ""
        names = [isolate(seat.name) for seat, chips in zip(self.seats, self.balances()) if chips <= 0]
        return str(get_text_list(names, _("and"))) if names else ""

    @cached_property
    def rows(self) -> list[HandRow]:
        """The hand rows to show, newest first."""
        return [
            HandRow(
                hand=hand,
                winner=self.name_of(hand.winner_id) if hand.winner_id else "",
                dealer=self.seats[hand.dealer_position].name,
                points=hand.points[self.position_of(hand.winner_id)] if hand.winner_id else 0,
                how=self.describe(hand),
                scores=self.scores_of(hand),
                handed_out=self.handed_out_after(hand.number),
                table=self,
            )
            for hand in self.recent_hands
        ]

    def scores_of(self, hand: Hand) -> SafeString:
        """Every player's points in `hand`, when others than its winner scored (Eighty Three's bonus,
        Cat Tê's payments): the winner first, then the others in seating order, each name in <bdi>
        beside its signed number ("Ali +2, Bintou +1", "Ali +5, Bintou −3, Chloé −2"); "" when only
        the winner scored, which the hand row's number says. Source: RULES.md (Eighty Three; Cat Te)."""
        if hand.winner_id is None:
            return mark_safe("")
        winner = self.position_of(hand.winner_id)
        if not any(points for seat, points in enumerate(hand.points) if seat != winner):
            return mark_safe("")
        order = [winner, *(seat for seat, points in enumerate(hand.points) if points and seat != winner)]
        scores = [
            format_html("<bdi>{}</bdi> {}", self.seats[seat].name, signed_points(hand.points[seat])) for seat in order
        ]
        return mark_safe(", ".join(scores))  # noqa: S308 - each part escaped by format_html

    def handed_out_after(self, number: int) -> str:
        """Cat Tê: the chips handed to everyone right after hand `number` (before the next hand), as
        a sentence for its own row of the hands ("Everyone received 10 more chips."); "" if none.
        Source: RULES.md, Cat Te ("an equal batch to every player")."""
        chips = self.stakes.handed_out_after(number)
        if not chips:
            return ""
        return ngettext("Everyone received %(chips)d more chip.", "Everyone received %(chips)d more chips.", chips) % {
            "chips": chips
        }

    def who(self, seat: int | None, phone: str) -> str:
        """Who made a change, for a hand's details: "Djibo" (the seat the phone said it holds),
        "this phone" (the phone reading the table), "another phone", or "" when unknown. The phone's
        id stays in the database (the admin's trace): a code means nothing to a player."""
        if seat is not None and seat < len(self.seats):
            return self.seats[seat].name
        if not phone:
            return ""
        return _("this phone") if phone == self.this_phone else _("another phone")

    def describe(self, hand: Hand, worth: bool = True) -> str:
        """A hand's extra facts in a few words ("x2", "dealt flush", "Ace; Djibo had a bonus"), names isolated
        (names.isolate: the files take them out again). With `worth`, a stake's multiplier says what
        it is worth ("x2 = 200 CFA from each other player"); the files keep the short "x2"."""
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
                # The names first ("Aïcha and Ben held back an Ace"): after the winner's own facts, a
                # fact with the names after it would read as the winner's.
                names = get_text_list([isolate(self.seats[p].name) for p in answer], _("and"))
                # One name reads as a sentence; several take "each", so the verb agrees with one.
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
    """One hand as the screens show it: winner's and dealer's names, the winner's points (and every
    player's, when others scored too), how it was won, and who recorded or corrected it."""

    hand: Hand
    winner: str
    dealer: str
    points: int
    how: str
    handed_out: str = ""  # Cat Tê: the chips everyone received after this hand, worded ("" for none)
    scores: SafeString = mark_safe("")  # every player's points, when others than the winner scored
    table: TableState | None = field(default=None, repr=False)  # whose seats and phone name who changed it

    # Worded when asked (the hands page shows them, the match table does not); "" without a table.
    @property
    def recorded_by(self) -> str:
        return self.table.who(self.hand.recorded_by_seat, self.hand.recorded_by_phone) if self.table else ""

    @property
    def corrected_by(self) -> str:
        return self.table.who(self.hand.corrected_by_seat, self.hand.corrected_by_phone) if self.table else ""
