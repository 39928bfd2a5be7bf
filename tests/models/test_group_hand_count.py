"""A group keeps the number of hands over its matches (Group.hands), so that a tap checks the group's
limit without counting them: every verb that adds or removes a hand keeps it in step."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.domain.errors import AlreadyRecorded, Conflict
from matches.models import Group, Hand, Sitting
from matches.services.archive import export_group, import_group
from matches.services.retention import forget_sittings

from tests.conftest import WORKED
from tests.models.test_settings_migration import migrate

pytestmark = pytest.mark.django_db


def kept_and_counted(group: Group) -> tuple[int, int]:
    group.refresh_from_db()
    return group.hands, Hand.objects.filter(sitting__group=group).count()


def test_each_verb_that_adds_or_removes_a_hand_keeps_the_groups_count_in_step():
    group = Group.create("Jeudi", WORKED)
    members = [player.pk for player in group.members()]
    first = group.start_match("agram", members)
    steps = [
        ("three taps", lambda: [first.record_hand(n, n % 4) for n in (1, 2, 3)], 3),
        ("the same tap again", lambda: first.record_hand(3, 3), 3),
        ("a tap another phone beat", lambda: first.record_hand(3, 1), 3),
        ("a correction", lambda: first.correct_hand(2, 0), 3),
        ("an undo", lambda: first.undo_hand(3), 2),
        ("the hand tapped again", lambda: first.record_hand(3, 2), 3),
        ("ended: the open hand abandoned", lambda: first.end_match(), 4),
        ("a rematch's first hand", lambda: first.rematch().record_hand(1, 0), 5),
        ("a match of two hands saved to the group", lambda: save_played(group, 2), 7),
    ]
    for name, step, hands in steps:
        try:
            step()
        except (AlreadyRecorded, Conflict):
            pass  # (a refused tap changes nothing)
        assert kept_and_counted(group) == (hands, hands), name

    imported = import_group(export_group(group))
    assert kept_and_counted(imported) == (7, 7)
    forget_sittings(Sitting.objects.filter(pk=first.pk))
    assert kept_and_counted(group) == (3, 3)


def save_played(group: Group, hands: int) -> None:
    outside = Sitting.start("agram", WORKED)
    for number in range(1, hands + 1):
        outside.record_hand(number, 0)
    group.save_sitting(outside)


def test_a_tap_in_a_group_reads_the_groups_count_and_counts_no_hands():
    group = Group.create("Jeudi", WORKED)
    sitting = group.start_match("agram", [player.pk for player in group.members()])
    sitting.record_hand(1, 0)
    with CaptureQueriesContext(connection) as queries:
        sitting.record_hand(2, 1)
    assert not [query["sql"] for query in queries if "COUNT(" in query["sql"].upper()]


@pytest.mark.django_db(transaction=True)
def test_the_migration_counts_each_groups_hands():
    try:
        old = migrate([("matches", "0010_undo_reopens_no_abandoned_hand")])
        Group, Sitting, Player = (old.get_model("matches", name) for name in ("Group", "Sitting", "Player"))
        Seat, Hand = old.get_model("matches", "Seat"), old.get_model("matches", "Hand")
        groups = [Group.objects.create(name=name, token=name, watch_token=f"w{name}") for name in ("a", "b")]
        player = Player.objects.create(name="Ana")
        for group, hands in zip(groups, (3, 0)):
            sitting = Sitting.objects.create(game="agram", group=group, token=f"s{group.name}", watch_token=f"x{group.name}")
            seat = Seat.objects.create(sitting=sitting, player=player, position=0)
            for number in range(1, hands + 1):
                Hand.objects.create(sitting=sitting, number=number, winner=seat, dealer_position=0, points=[1])
        outside = Sitting.objects.create(game="agram", token="t", watch_token="u")
        Hand.objects.create(sitting=outside, number=1, dealer_position=0, points=[0], status="abandoned")
        new = migrate([("matches", "0011_group_keeps_its_hand_count")])
        counts = dict(new.get_model("matches", "Group").objects.values_list("name", "hands"))
        assert counts == {"a": 3, "b": 0}
    finally:
        migrate()


# --- lock order on PostgreSQL: a group, then its sitting, whoever locks them ----------------------


def at_once(first, second, pause_after) -> dict[str, str]:
    """Run `first` until it has sent a statement matching `pause_after`, then `second`; `first` goes on once
    `second` waits for a lock or has ended (as a busy server may pause between two statements); each one's
    outcome."""
    locked, go_on, outcomes = threading.Event(), threading.Event(), {}

    def pausing(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if pause_after(sql) and threading.current_thread().name == "first" and not locked.is_set():
            locked.set()
            go_on.wait(10)
        return result

    def run(name, work):
        try:
            with connection.execute_wrapper(pausing):
                work()
            outcomes[name] = "done"
        except Exception as error:  # noqa: BLE001 (what happened is the finding)
            outcomes[name] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
        finally:
            connection.close()

    one = threading.Thread(target=run, name="first", args=("first", first))
    one.start()
    assert locked.wait(10)
    two = threading.Thread(target=run, name="second", args=("second", second))
    two.start()
    deadline = time.monotonic() + 10
    while two.is_alive() and not waiting_for_a_lock() and time.monotonic() < deadline:
        time.sleep(0.01)
    go_on.set()
    one.join(30), two.join(30)
    return outcomes


def waiting_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
        return cursor.fetchone()[0] > 0


def sitting_lock(sql: str) -> bool:
    return '"matches_sitting"' in sql and "FOR UPDATE" in sql


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("verb", ["tap", "undo", "end", "rematch"])
def test_a_change_read_before_its_match_joined_a_group_does_not_deadlock_with_a_fresh_one(verb):
    if connection.vendor != "postgresql":
        pytest.skip("runs on the PostgreSQL leg of the tests")
    group = Group.create("Jeudi", WORKED)
    sitting = Sitting.start("agram", WORKED)
    sitting.record_hand(1, 0)
    if verb == "rematch":
        sitting.end_match()
    stale = Sitting.objects.get(pk=sitting.pk)  # a phone's request read it here, outside any group ...
    group.save_sitting(Sitting.objects.get(pk=sitting.pk))  # ... then another phone saved it to the group
    fresh = Sitting.objects.get(pk=sitting.pk)
    change = {
        "tap": lambda copy: copy.record_hand(2, 0),  # (the same tap twice: recorded once)
        "undo": lambda copy: copy.undo_hand(1, copy.hands.get(number=1).stamp),
        "end": lambda copy: copy.end_match(),
        "rematch": lambda copy: copy.rematch(),  # (one rematch for both)
    }[verb]
    outcomes = at_once(lambda: change(stale), lambda: change(fresh), sitting_lock)
    assert "deadlock" not in str(outcomes) and outcomes["second"] == "done", outcomes
    hands = {"tap": 2, "undo": 0, "end": 2, "rematch": 2}[verb]
    assert kept_and_counted(group) == (hands, hands)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("other", ["tap", "rename"])
def test_forgetting_a_groups_match_does_not_deadlock_with_a_tap_or_a_rename(other):
    if connection.vendor != "postgresql":
        pytest.skip("runs on the PostgreSQL leg of the tests")
    group = Group.create("Jeudi", WORKED)
    members = list(group.members())
    sitting = group.start_match("agram", [player.pk for player in members])
    sitting.record_hand(1, 0)
    kept = group.start_match("agram", [player.pk for player in members])
    kept.record_hand(1, 0)
    work, outcome = {
        "tap": (lambda: Sitting.objects.get(pk=sitting.pk).record_hand(2, 1), "DoesNotExist"),  # the match went
        "rename": (lambda: Group.objects.get(pk=group.pk).rename_player(members[0].pk, "Aïssa"), "done"),
    }[other]
    outcomes = at_once(lambda: forget_sittings(Sitting.objects.filter(pk=sitting.pk)), work, sitting_lock)
    assert outcomes["first"] == "done" and outcomes["second"].split(":")[0] == outcome, outcomes
    assert kept_and_counted(group) == (1, 1)
