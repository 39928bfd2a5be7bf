"""The rules' English texts (marked for translation) in the reader's language: summaries, help cards, refusals."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.domain import rules
from matches.services.wording import rule_message as rule_message  # worded in services, for the archive too


def cards_text(game: rules.Game) -> str:
    low, high = game.cards_range()
    return f"{low}–{high}" if low != high else str(low)


def summary(game: rules.Game) -> str:
    """One line for the game list: pack, cards each, players."""
    return _("%(size)d-card pack · %(cards)s cards each · %(min)d–%(max)d players") % {
        "size": game.pack.size,
        "cards": cards_text(game),
        "min": game.min_players,
        "max": game.max_players,
    }


def cards_dealt(game: rules.Game, n_seats: int) -> str:
    """What the dealer deals at `n_seats`: "7 cards each.", plus the pack when the table size changes it.
    Source: RULES.md (cards each; Letzter Stich by player count)."""
    count = game.cards_for(n_seats)
    pack = game.pack_for(n_seats)
    if pack == game.pack:
        return ngettext("%(count)d card each.", "%(count)d cards each.", count) % {"count": count}
    return ngettext("%(count)d card each, from %(pack)s.", "%(count)d cards each, from %(pack)s.", count) % {
        "count": count,
        "pack": _(pack.description),
    }


def pack_line(game: rules.Game) -> str:
    """The start page's line under its title: pack and cards each (the form says the players)."""
    return _("%(size)d-card pack · %(cards)s cards each") % {"size": game.pack.size, "cards": cards_text(game)}


def help_card(game: rules.Game) -> list[tuple[str, str]]:
    """(heading, text) pairs: pack to prepare, cards each, who leads, what wins, how it scores."""
    if len(game.deal_batches) > 1:
        batches = _(" then ").join(str(batch) for batch in game.deal_batches)
    else:
        batches = _("one at a time")
    direction = _("clockwise") if game.direction is rules.Direction.CLOCKWISE else _("counter-clockwise")
    lead = {
        rules.Leader.DEALER: _("The dealer leads the first trick."),
        rules.Leader.AFTER_DEALER: _("The player after the dealer, in playing order, leads."),
        rules.Leader.BEFORE_DEALER: _("The player on the dealer's right leads."),
    }[game.leader]
    dealer = (
        _("The hand's winner deals the next hand.")
        if game.next_dealer is rules.NextDealer.WINNER
        else _("The deal passes to the next player, whoever wins.")
    )
    cards = cards_text(game)
    return [
        (
            _("Pack"),
            _("%(size)d cards: %(description)s.") % {"size": game.pack.size, "description": _(game.pack.description)},
        ),
        (
            _("Deal"),
            ngettext(
                "%(cards)s card each (%(batches)s), %(direction)s.",
                "%(cards)s cards each (%(batches)s), %(direction)s.",
                game.cards_range()[1],
            )
            % {"cards": cards, "batches": batches, "direction": direction},
        ),
        (_("Ranking"), _(game.ranking)),
        (_("Play"), f"{lead} {dealer}"),
        (_("What wins"), _(game.deciding_trick)),
        (_("Scoring"), _(game.scoring)),
        *(
            [(ngettext("Note", "Notes", len(game.notes)), " ".join(_(note) for note in game.notes))]
            if game.notes
            else []
        ),
    ]


def player_range(game: rules.Game) -> str:
    """The game's range of players, for the start form: "Agram: 2 to 5 players"."""
    return _("%(game)s: %(min)d to %(max)d players") % {
        "game": _(game.name),
        "min": game.min_players,
        "max": game.max_players,
    }


def table_full(game: rules.Game) -> str:
    """Why no more name rows: the game's maximum, with the pack's reason if it sets it. Source: RULES.md."""
    params = {"game": _(game.name), "max": game.max_players}
    if game.too_many_players:
        return _("%(game)s is played by at most %(max)d players: %(why)s") % {**params, "why": _(game.too_many_players)}
    return _("%(game)s is played by at most %(max)d players.") % params


def uneven_deals(game: rules.Game, end: rules.MatchEnd, n_seats: int) -> str:
    """The note a match of a set number of hands starts with when not everyone deals as often, with the
    numbers of hands that would; "" when the deal is even. Source: RULES.md, Letzter Stich."""
    if not game.deals_unevenly(end, n_seats):
        return ""
    hands = end.target
    said = ngettext(
        "%(hands)d hand for %(players)d players: some players deal once more than the others.",
        "%(hands)d hands for %(players)d players: some players deal once more than the others.",
        hands,
    ) % {"hands": hands, "players": n_seats}
    lower, higher = hands - hands % n_seats, hands - hands % n_seats + n_seats
    if lower:
        even = _("%(lower)d or %(higher)d hands let everyone deal as often.") % {"lower": lower, "higher": higher}
    else:
        even = _("%(higher)d hands let everyone deal as often.") % {"higher": higher}
    return f"{said} {even}"
