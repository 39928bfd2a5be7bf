"""A group's player's receipts (models.PlayerChange), worded for their page: what changed, when, which phone."""

from __future__ import annotations

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from matches.models import Player, PlayerChange
from matches.web.bidi import bdi, sentence
from matches.web.presenters.tab import whose

SHOWN = 20  # the newest


def change_words(player: Player, zone, phone: str | None) -> list[str]:
    """Newest first: "Renamed from Mbarga. to Mbarga, 6 Dec. 2026, 21:05 on this phone." (`phone`: this phone's
    id). An erased player has no page: their erasure's receipt is not worded."""
    words = {
        PlayerChange.Verb.RENAMED: _("Renamed from %(old)s to %(new)s, %(when)s on %(who)s."),
        PlayerChange.Verb.REMOVED: _("Taken off the group's list %(when)s on %(who)s."),
        PlayerChange.Verb.BACK: _("Back on the group's list %(when)s on %(who)s."),
    }
    said = []
    for change in player.changes.exclude(verb=PlayerChange.Verb.ERASED).order_by("-at", "-pk")[:SHOWN]:
        when = formats.date_format(timezone.localtime(change.at, zone), "DATETIME_FORMAT")
        values = {"old": bdi(change.before), "new": bdi(change.after), "when": when}
        said.append(sentence(words[change.verb], {**values, "who": whose(change.by_phone, phone)}))
    return said
