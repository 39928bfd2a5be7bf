"""A sitting's game settings: how it ends, chips and stake, checked against the game's entry."""

from __future__ import annotations

from matches.domain import rules
from matches.domain.errors import BadInput
from matches.domain.names import clean_name

STAKE_LABEL_MAX_LENGTH = 12
MAX_STAKE = 10_000_000  # in the currency's smallest units (matches.domain.money), as every amount
DEFAULT_STARTING_CHIPS = 20
MAX_STARTING_CHIPS = 10_000


def default_match_end(game: rules.Game) -> rules.MatchEnd:
    """The match end a sitting gets when none is chosen: open where the game allows it."""
    kind = game.match_ends[0]
    if kind in (rules.MatchEndKind.OPEN, rules.MatchEndKind.THRESHOLDS):
        return rules.MatchEnd(kind)
    return rules.MatchEnd(kind, game.default_target)


def check_match_end(game: rules.Game, match_end: rules.MatchEnd | None) -> rules.MatchEnd:
    """`match_end`, or the game's default; raises BadInput when the game cannot end that way."""
    match_end = match_end or default_match_end(game)
    if match_end.kind not in game.match_ends:
        raise BadInput("match_end_not_allowed", game=game.name, slug=game.slug)
    return match_end


def check_options(
    game: rules.Game, starting_chips: int | None, stake_amount: int | None, stake_label: str
) -> dict[str, object]:
    """The sitting's chips and stake, checked against `game`; raises BadInput naming what to fix. A game
    with chips takes a stake too: what one chip is worth."""
    if not game.uses_chips and starting_chips is not None:
        raise BadInput("no_chips", game=game.name)
    if not (game.uses_stake or game.uses_chips) and (stake_amount is not None or stake_label):
        raise BadInput("no_stake", game=game.name)
    if game.uses_chips:
        starting_chips = DEFAULT_STARTING_CHIPS if starting_chips is None else starting_chips
        if not 1 <= starting_chips <= MAX_STARTING_CHIPS:
            raise BadInput("starting_chips_range", max=MAX_STARTING_CHIPS)
    if stake_amount is not None and not 1 <= stake_amount <= MAX_STAKE:
        raise BadInput("stake_range", max=MAX_STAKE)
    stake_label = clean_name(stake_label)  # as a name: no mark that turns the money lines around
    if len(stake_label) > STAKE_LABEL_MAX_LENGTH:
        raise BadInput("currency_too_long", max=STAKE_LABEL_MAX_LENGTH)
    return dict(starting_chips=starting_chips, stake_amount=stake_amount, stake_label=stake_label)


def option(name: str, default: object) -> property:
    """A game setting kept by name in Sitting.options (absent: `default`), read and set as an attribute."""

    def read(sitting) -> object:
        return sitting.options.get(name, default)

    def write(sitting, value: object) -> None:
        if value is None or value == "":
            sitting.options.pop(name, None)
        else:
            sitting.options[name] = value

    return property(read, write)


def sitting_options(starting_chips: int | None = None, stake_amount: int | None = None, stake_label: str = "") -> dict:
    """The chips and stake a sitting is started with, each given or left at 'none' (see check_options)."""
    return {"starting_chips": starting_chips, "stake_amount": stake_amount, "stake_label": stake_label}
