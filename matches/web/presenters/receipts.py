"""What a phone is told of a change it sent before (a copy: its key was seen), as things stand now:
the first answer again, or what became of that change since."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from matches.domain.names import by_name, shared
from matches.domain.settlement import hand_gains
from matches.models import Hand, Receipt
from matches.web.bidi import bdi, joined, sentence
from matches.web.presenters.numbers import money_text, signed_points
from matches.web.presenters.table_state import TableState


def undone_words(state: TableState, undo: Receipt, unseen: bool = False) -> str:
    """A copy of a tap whose hand was recorded, then undone (`unseen`: a tap refused, its hand undone after
    the table its phone showed): when, on which phone, and who won it since if it was recorded again (then
    tapping again would be for the next hand)."""
    when = formats.time_format(timezone.localtime(undo.at, state.sitting.zone), "H:i")
    values = {"number": undo.number, "time": when, "who": who_made(state, undo)}
    again = state.sitting.hands.filter(number=undo.number).exclude(winner=None).select_related("winner__player").first()
    if again is not None:
        words = (
            _(
                "Hand %(number)d was undone at %(time)s on %(who)s, before this phone showed that undo, then "
                "recorded again: %(name)s. Nothing was recorded from this tap."
            )
            if unseen
            else _(
                "Hand %(number)d was recorded from this tap, then undone at %(time)s on %(who)s and recorded again: "
                "%(name)s."
            )
        )
        return sentence(words, {**values, "name": bdi(again.winner.name)})
    if unseen:
        return _(
            "Hand %(number)d was undone at %(time)s on %(who)s, before this phone showed that undo: nothing was "
            "recorded. Tap the winner again if that hand needs it."
        ) % values
    return _(
        "Hand %(number)d was recorded from this tap, then undone at %(time)s on %(who)s: it is open again. "
        "Tap the winner again if that hand needs it."
    ) % values


def first_answer(state: TableState, receipt: Receipt) -> str:
    """The words the change's first answer said, for its copy (as the hand stands now)."""
    sitting, number = state.sitting, receipt.number
    if receipt.verb in (Receipt.Verb.TAP, Receipt.Verb.CORRECT, Receipt.Verb.UNDO):
        hand = sitting.hands.filter(number=number).select_related("winner__player").first()
        if receipt.verb == Receipt.Verb.UNDO:
            if hand is None or hand.winner is None:  # still open (or abandoned by an early end)
                return _("Hand %(number)d undone: tap its winner again.") % {"number": number}
            # Tapped again since the undo: the copy says how the hand stands, not "tap it again".
            return sentence(
                _("Hand %(number)d was undone, then recorded again: %(name)s."),
                {"number": number, "name": bdi(hand.winner.name)},
            )
        if hand is None or hand.winner is None:
            return ""
        how = state.describe(hand)
        values = {"number": number, "name": bdi(hand.winner.name), "how": how}
        if receipt.verb == Receipt.Verb.TAP:
            words = _("Hand %(number)d recorded: %(name)s (%(how)s).") if how else _("Hand %(number)d recorded: %(name)s.")
        else:
            words = _("Hand %(number)d corrected: %(name)s (%(how)s).") if how else _("Hand %(number)d corrected: %(name)s.")
        return sentence(words, values)
    if receipt.verb == Receipt.Verb.CHIPS:
        chips = sitting.starting_chips or 0
        return ngettext("Everyone received %(chips)d more chip.", "Everyone received %(chips)d more chips.", chips) % {
            "chips": chips
        }
    if receipt.verb == Receipt.Verb.END:
        return ""
    return _("This change was already made.")


@dataclass(frozen=True)
class MoneyChange:
    """A correction of an earlier hand that moved money or chips, worded for every phone at the table."""

    pk: int
    words: str


MONEY_CHANGES_SHOWN = 3


def money_changes(state: TableState, watching: bool = False) -> list[MoneyChange]:
    """The newest corrections of a hand other than the last in a match for money or chips: which hand,
    on whose phone, when, what it was and became, and what moved for whom. (An undo takes back the
    last hand only, which every phone sees go.) `watching`: a screen nobody taps Seen on, until the next hand."""
    sitting, game = state.sitting, state.sitting.rules
    stake = sitting.stake_amount or 0  # a stake, or what a chip is worth
    if not (game.uses_chips or stake):
        return []
    found = sitting.receipts.filter(verb=Receipt.Verb.CORRECT).order_by("-pk")
    if watching and (tapped := sitting.receipts.filter(verb=Receipt.Verb.TAP).order_by("-pk").first()):
        found = found.filter(pk__gt=tapped.pk)
    earlier = [receipt for receipt in found[: MONEY_CHANGES_SHOWN * 4] if receipt.number != receipt.last]
    return [MoneyChange(receipt.pk, change_words(state, receipt, stake)) for receipt in earlier[:MONEY_CHANGES_SHOWN]]


def change_words(state: TableState, receipt: Receipt, stake: int) -> str:
    """ "Hand 5 changed on Boubacar's phone at 21:47: Ngono (x2) → Boubacar (x1): Ngono −400, Boubacar +400."
    (an undo: "Hand 5 undone on ...: Ngono (x2): Ngono −400, Boubacar +400.")."""
    when = formats.time_format(timezone.localtime(receipt.at, state.sitting.zone), "H:i")
    values = {"number": receipt.number, "who": who_made(state, receipt), "time": when, "was": hand_words(state, receipt.before),
              "now": hand_words(state, receipt.after), "moves": moves(state, receipt, stake) or "0"}  # fmt: skip
    if receipt.verb == Receipt.Verb.UNDO:
        return _("Hand %(number)d undone on %(who)s at %(time)s: %(was)s: %(moves)s.") % values
    return _("Hand %(number)d changed on %(who)s at %(time)s: %(was)s → %(now)s: %(moves)s.") % values


def moves(state: TableState, receipt: Receipt, stake: int) -> str:
    """What a change moved for whom, by name: "Ngono −400 FCFA, Boubacar +400 FCFA" ("" when nothing)."""
    seats = state.seats
    playing = state.playing_hand(receipt.number)
    chips = state.sitting.rules.uses_chips
    was, now = (gains(kept, playing, stake, len(seats), chips) for kept in (receipt.before, receipt.after))
    moved = [after - before for before, after in zip(was, now)]
    label = state.sitting.stake_label
    named = by_name([p for p in playing if moved[p]], lambda p: seats[p].name)
    written = (lambda amount: money_text(amount, label, signed=True)) if stake else signed_points
    return ", ".join(f"{shared(seats[p].name)} {written(moved[p])}" for p in named)


def moved_words(state: TableState, receipt: Receipt | None) -> str:
    """For the phone that made a correction in a match for money or chips: "It moved: Ngono −400 FCFA, ..."."""
    stake = state.sitting.stake_amount or 0
    if receipt is None or not (stake or state.sitting.rules.uses_chips):
        return ""
    moved = moves(state, receipt, stake)
    return _("It moved: %(moves)s.") % {"moves": moved} if moved else ""


def gains(kept: dict, playing: tuple[int, ...], stake: int, width: int, chips: bool = False) -> list[int]:
    """Each seat's gain in the hand as kept: money at a stake (each other player of the hand pays the
    winner), else chips, in money when a chip is worth `stake`. Source: RULES.md (Fapfap stakes; Cat Te)."""
    spread = [0] * width
    if not kept:
        return spread
    points = [*kept["points"], *[0] * (width - len(kept["points"]))]
    if chips:
        return [chips_won * (stake or 1) for chips_won in points[:width]]
    if stake:
        for seat, gained in zip(playing, hand_gains([points[p] for p in playing], True, stake)):
            spread[seat] = gained
        return spread
    return points[:width]


def hand_words(state: TableState, kept: dict) -> str:
    """ "Ngono (x2)": a hand as kept, its winner and answers."""
    if not kept:
        return _("no winner")
    hand = Hand(status=Hand.Status.WON, extras=kept["extras"], points=kept["points"])
    hand.winner_id = state.seats[kept["winner"]].pk
    how = state.describe(hand, worth=False)
    name = shared(state.seats[kept["winner"]].name)
    return f"{name} ({how})" if how else name


def corrections(state: TableState, numbers: list[int] | None = None) -> dict[int, list[Receipt]]:
    """The correction receipts of each hand among `numbers` (None: all), oldest first: one read."""
    found = state.sitting.receipts.filter(verb=Receipt.Verb.CORRECT).order_by("pk")
    if numbers is not None:
        found = found.filter(number__in=numbers)
    steps: dict[int, list[Receipt]] = {}
    for receipt in found:
        steps.setdefault(receipt.number, []).append(receipt)
    return steps


def first_kept(state: TableState, steps: dict[int, list[Receipt]]) -> dict[int, str]:
    """For each corrected hand of `steps` (corrections), what it was when first recorded ("Ngono (x2)")."""
    return {number: hand_words(state, receipts[0].before) for number, receipts in steps.items()}


def earlier_corrections(state: TableState, steps: dict[int, list[Receipt]]) -> dict[int, str]:
    """For each hand of `steps` (corrections) corrected more than once, its corrections before the last, oldest
    first ("19:26 on this phone: Ngono (x2) → Boubacar (x1)"); the last is the hand's own corrected time."""
    said = {}
    for number, receipts in steps.items():
        if len(receipts) > 1:
            said[number] = _("; ").join(
                _("%(time)s on %(who)s: %(before)s → %(after)s")
                % {
                    "time": formats.time_format(timezone.localtime(receipt.at, state.sitting.zone), "H:i"),
                    "who": who_made(state, receipt),
                    "before": hand_words(state, receipt.before),
                    "after": hand_words(state, receipt.after),
                }
                for receipt in receipts[:-1]
            )
    return said


TAKEN_BACK_SHOWN = 20


def taken_back(state: TableState) -> list[str]:
    """The newest undone hands, newest first: what each was, when and on which phone it was undone."""
    undos = state.sitting.receipts.filter(verb=Receipt.Verb.UNDO).order_by("-pk")[:TAKEN_BACK_SHOWN]
    lines = []
    for undo in undos:
        when = formats.time_format(timezone.localtime(undo.at, state.sitting.zone), "H:i")
        values = {"number": undo.number, "was": hand_words(state, undo.before), "time": when, "who": who_made(state, undo)}
        lines.append(_("Hand %(number)d, %(was)s: undone at %(time)s on %(who)s.") % values)
    return lines


OTHER_CHANGES = {
    Receipt.Verb.END: gettext_lazy("Match ended before hand %(number)d, at %(time)s on %(who)s."),
    Receipt.Verb.CHIPS: gettext_lazy("New stacks for everyone before hand %(number)d, at %(time)s on %(who)s."),
    Receipt.Verb.REMATCH: gettext_lazy("Rematch started at %(time)s on %(who)s."),
}


def other_changes(state: TableState) -> list[str]:
    """The match's changes that are no hand (its end, new stacks of chips, its rematch), newest first:
    what, when and on which phone."""
    found = state.sitting.receipts.filter(verb__in=list(OTHER_CHANGES)).order_by("-pk")[:TAKEN_BACK_SHOWN]
    moved = chips_moved(state.sitting) if state.sitting.chips_reissued else {}
    lines = []
    for receipt in found:
        line = OTHER_CHANGES[receipt.verb] % {
            "number": receipt.number or 1,
            "time": formats.time_format(timezone.localtime(receipt.at, state.sitting.zone), "H:i"),
            "who": who_made(state, receipt),
        }
        if receipt.pk in moved:
            now = _("They count before hand %(number)d now: a hand before them was undone.") % {"number": moved[receipt.pk]}
            line = joined([line, now])
        lines.append(line)
    return lines


def chips_moved(sitting) -> dict[int, int]:
    """{receipt: hand} for each handing out of chips that an undo dated before an earlier hand than its
    receipt says. The newest receipts go with the newest batches (older batches may have none)."""
    batches = list(sitting.reissued_before)
    made = list(sitting.receipts.filter(verb=Receipt.Verb.CHIPS).order_by("pk").values_list("pk", "number"))
    return {pk: batch for (pk, number), batch in zip(reversed(made), reversed(batches)) if batch != number}


VOWELS = set("aeiou")


def who_made(state: TableState, receipt: Receipt) -> str:
    """ "Boubacar's phone" when the phone said whose it is, else "this phone" or "another phone"."""
    seats = state.seats
    if receipt.by_seat is not None and receipt.by_seat < len(seats):
        name = seats[receipt.by_seat].name
        if unicodedata.normalize("NFD", name)[:1].lower() in VOWELS:  # French: "d’Aïcha", "de Boubacar"
            return pgettext("a name that starts with a vowel", "%(name)s’s phone") % {"name": shared(name)}
        return _("%(name)s’s phone") % {"name": shared(name)}
    return state.who(None, receipt.by_phone) or _("another phone")
