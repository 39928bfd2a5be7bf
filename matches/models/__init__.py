"""State of a table: players and groups, sittings, seats and hands, and the verbs that change them."""

from .choices import EndedHow, HandStatus
from .groups import GROUP_NAME_MAX_LENGTH, Group
from .sittings import (
    ANYONE,
    DEFAULT_STARTING_CHIPS,
    HANDS_ON_TABLE,
    MATCH_END_WORDS,
    MAX_STAKE,
    MAX_STARTING_CHIPS,
    NAME_MAX_LENGTH,
    STAKE_LABEL_MAX_LENGTH,
    Hand,
    Player,
    Recorder,
    Seat,
    Sitting,
    check_options,
    default_match_end,
    longest_run,
    match_end_choices,
    new_stamp,
    new_token,
)
from .table_state import HandRow, TableState

__all__ = [
    "ANYONE",
    "DEFAULT_STARTING_CHIPS",
    "HANDS_ON_TABLE",
    "MATCH_END_WORDS",
    "MAX_STAKE",
    "MAX_STARTING_CHIPS",
    "NAME_MAX_LENGTH",
    "STAKE_LABEL_MAX_LENGTH",
    "GROUP_NAME_MAX_LENGTH",
    "EndedHow",
    "Group",
    "Hand",
    "HandRow",
    "HandStatus",
    "Player",
    "Recorder",
    "Seat",
    "Sitting",
    "TableState",
    "check_options",
    "default_match_end",
    "match_end_choices",
    "longest_run",
    "new_stamp",
    "new_token",
]
