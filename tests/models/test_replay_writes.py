"""An undo or a correction replays the match but writes only the hands whose running totals it changed:
an undo of the last hand none, so that it costs about the same at 10 hands as at 10,000."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.domain.rules import MatchEnd, MatchEndKind
from matches.models import Sitting

from tests.big_groups import fill
from tests.conftest import WORKED

pytestmark = pytest.mark.django_db


def hand_updates(captured) -> int:
    return sum(query["sql"].startswith('UPDATE "matches_hand"') for query in captured.captured_queries)


def test_an_undo_of_the_last_hand_rewrites_no_other_hand_and_a_correction_only_those_after_it():
    sitting = Sitting.start("agram", WORKED, MatchEnd(MatchEndKind.OPEN, None))
    fill(sitting, 1200)
    sitting.record_hand(1201, 2)
    with CaptureQueriesContext(connection) as undone:
        sitting.undo_hand(1201)
    assert hand_updates(undone) == 0
    with CaptureQueriesContext(connection) as corrected:
        sitting.correct_hand(1199, (1199 + 1) % 4)  # another winner: hands 1199 and 1200 change
    assert hand_updates(corrected) == 2  # the corrected row itself, then one batch for the two moved
    assert sitting.check_totals() == []
