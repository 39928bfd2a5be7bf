"""State and verbs: players and groups, sittings, seats and hands."""

from matches.models.choices import EndedHow, HandStatus
from matches.models.groups import GROUP_NAME_MAX_LENGTH, Group
from matches.models.hands import Hand, as_stored
from matches.models.options import (
    DEFAULT_STARTING_CHIPS,
    MAX_STAKE,
    MAX_STARTING_CHIPS,
    STAKE_LABEL_MAX_LENGTH,
    check_match_end,
    check_options,
    default_match_end,
)
from matches.models.payments import Forgiveness, Payment
from matches.models.players import ANYONE, Player, PlayerChange, Recorder
from matches.models.seats import Seat
from matches.models.sittings import Sitting
from matches.models.table import HANDS_ON_TABLE, ChartPoint, Table
from matches.models.tokens import new_stamp, new_token
from matches.models.receipts import KEY_MAX_LENGTH, Receipt, Repeated, UndoneSince
from matches.models.table_changes import TableChange
from matches.models.verbs import Recorded

__all__ = [
    "ANYONE",
    "DEFAULT_STARTING_CHIPS",
    "GROUP_NAME_MAX_LENGTH",
    "HANDS_ON_TABLE",
    "KEY_MAX_LENGTH",
    "MAX_STAKE",
    "MAX_STARTING_CHIPS",
    "STAKE_LABEL_MAX_LENGTH",
    "ChartPoint",
    "EndedHow",
    "Forgiveness",
    "Group",
    "Hand",
    "HandStatus",
    "Payment",
    "Player",
    "PlayerChange",
    "Recorded",
    "Receipt",
    "Recorder",
    "Repeated",
    "Seat",
    "Sitting",
    "Table",
    "UndoneSince",
    "TableChange",
    "as_stored",
    "check_match_end",
    "check_options",
    "default_match_end",
    "new_stamp",
    "new_token",
]
