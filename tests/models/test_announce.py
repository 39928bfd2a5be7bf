"""PostgreSQL: each change of a sitting or a group is announced by the trigger on its version (migration
0009), once, when the change commits, never for one rolled back; the app sends no NOTIFY of its own."""

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from matches.domain.errors import Conflict
from matches.models import Group, Sitting
from matches.models.announce import CHANNEL
from matches.web.live.feeds import conninfo

pytestmark = pytest.mark.django_db(transaction=True)
NAMES = ["Aïcha", "Boubacar", "Chaibou", "Djibo"]


@pytest.fixture
def listening():
    if connection.vendor != "postgresql":
        pytest.skip("runs on the PostgreSQL leg of the tests")
    with psycopg.connect(conninfo(), autocommit=True) as other:
        other.execute(f"LISTEN {CHANNEL}")

        def heard() -> list[str]:
            return [notify.payload for notify in other.notifies(timeout=0.3)]

        yield heard


def test_a_tap_is_announced_once_with_its_version_by_the_trigger_and_not_by_an_app_statement(listening):
    sitting = Sitting.start("agram", NAMES)
    listening()
    with CaptureQueriesContext(connection) as queries:
        sitting.record_hand(1, 2)
    assert listening() == [f"s{sitting.pk}:{sitting.version}:"]
    assert not [q for q in queries.captured_queries if "notify" in q["sql"].lower()]


def test_a_change_in_a_group_names_its_group_and_a_group_change_is_announced(listening):
    group = Group.create("Jeudi", NAMES)
    sitting = group.start_match("agram", [player.pk for player in group.players.all()])
    listening()
    sitting.record_hand(1, 0)
    group.rename_player(group.players.get(name="Djibo").pk, "Djibril")
    heard = listening()
    assert heard[0] == f"s{sitting.pk}:{sitting.version}:{group.pk}"
    assert f"g{group.pk}" in heard
    sitting.refresh_from_db()
    assert f"s{sitting.pk}:{sitting.version}:{group.pk}" in heard  # its table shows the new name


def test_nothing_is_announced_for_a_refused_or_rolled_back_change_nor_for_a_write_that_keeps_the_version(listening):
    sitting = Sitting.start("agram", NAMES)
    listening()
    with pytest.raises(Conflict):
        sitting.undo_hand(1)
    with pytest.raises(RuntimeError), transaction.atomic():
        sitting.record_hand(1, 2)
        raise RuntimeError("the request failed after the verb")
    Sitting.objects.filter(pk=sitting.pk).update(time_zone="Africa/Niamey")
    assert listening() == []
