"""What a phone is told of a change it sent before (a copy: its key was seen), as things stand now:
the first answer again, or what became of that change since."""

from __future__ import annotations

from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.models import Receipt
from matches.web.bidi import bdi, sentence
from matches.web.presenters.table_state import TableState


def undone_words(state: TableState, undo: Receipt) -> str:
    """A tap whose hand was undone after the tap was made: when, and on which phone."""
    when = formats.time_format(timezone.localtime(undo.at, state.sitting.zone), "H:i")
    who = state.who(None, undo.by_phone) or _("another phone")
    return _(
        "Hand %(number)d was undone at %(time)s on %(who)s, after this tap was made: nothing was recorded. "
        "Tap the winner again if that hand needs it."
    ) % {"number": undo.number, "time": when, "who": who}


def first_answer(state: TableState, receipt: Receipt) -> str:
    """The words the change's first answer said, for its copy (as the hand stands now)."""
    sitting, number = state.sitting, receipt.number
    if receipt.verb in (Receipt.Verb.TAP, Receipt.Verb.CORRECT):
        hand = sitting.hands.filter(number=number).select_related("winner__player").first()
        if hand is None or hand.winner is None:
            return ""
        how = state.describe(hand)
        values = {"number": number, "name": bdi(hand.winner.name), "how": how}
        if receipt.verb == Receipt.Verb.TAP:
            words = _("Hand %(number)d recorded: %(name)s (%(how)s).") if how else _("Hand %(number)d recorded: %(name)s.")
        else:
            words = _("Hand %(number)d corrected: %(name)s (%(how)s).") if how else _("Hand %(number)d corrected: %(name)s.")
        return sentence(words, values)
    if receipt.verb == Receipt.Verb.UNDO:
        return _("Hand %(number)d undone: tap its winner again.") % {"number": number}
    if receipt.verb == Receipt.Verb.CHIPS:
        chips = sitting.starting_chips or 0
        return ngettext("Everyone received %(chips)d more chip.", "Everyone received %(chips)d more chips.", chips) % {
            "chips": chips
        }
    if receipt.verb == Receipt.Verb.END:
        return ""
    return _("This change was already made.")
