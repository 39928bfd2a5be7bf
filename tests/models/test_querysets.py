"""The named filters that several modules share: who is on a group's list, which matches are being
played, which hands have a winner, what a link reaches."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from matches.models import Group, Hand, Player, Sitting

from tests.conftest import WORKED

pytestmark = pytest.mark.django_db


def test_a_groups_players_current_former_and_named():
    group = Group.create("Jeudi", WORKED)
    first, second, third, _ = group.members().order_by("pk")
    group.remove_player(second.pk)
    group.erase_player(third.pk, erased_name="Erased player %(n)d")
    names = lambda players: sorted(player.pk for player in players)  # noqa: E731
    assert names(group.players.current()) == names(p for p in group.players.all() if p.pk not in (second.pk, third.pk))
    assert names(group.players.former()) == [second.pk]
    assert third.pk not in names(group.players.named()) and first.pk in names(Player.objects.named())


def test_unfinished_matches_and_won_hands():
    playing, ended = Sitting.start("agram", WORKED), Sitting.start("agram", WORKED)
    ended.record_hand(1, 2)
    ended.end_match()
    assert list(Sitting.objects.unfinished()) == [playing]
    assert list(ended.hands.won().values_list("number", flat=True)) == [1]
    assert ended.hands.count() == 2 and Hand.objects.won().count() == 1  # the open hand was abandoned


def test_a_link_reaches_its_row_and_a_malformed_token_reaches_nothing_unread(django_assert_num_queries):
    sitting, group = Sitting.start("agram", WORKED), Group.create("Jeudi", WORKED)
    assert Sitting.objects.reached_by("watch_token", sitting.watch_token).get() == sitting
    assert Group.objects.reached_by("token", group.token).get() == group
    assert Sitting.objects.reached_by("token", sitting.watch_token).first() is None
    with django_assert_num_queries(0):
        assert list(Sitting.objects.reached_by("token", "short")) == []
        assert list(Group.objects.reached_by("token", None)) == []
    with pytest.raises(ValueError):
        Sitting.objects.reached_by("name", sitting.token)
    assert list(Group.objects.member_links([group.token, group.watch_token])) == [group]


def test_changed_since():
    sitting = Sitting.start("agram", WORKED)
    now = timezone.now()
    assert sitting in Sitting.objects.changed_since(now - datetime.timedelta(seconds=5))
    assert sitting not in Sitting.objects.changed_since(now + datetime.timedelta(seconds=5))


class Plans:
    """SQLite's plan of each read of `table` run inside `with Plans(table) as plans:` (with its parameters
    bound, as the app runs it: the plan of the same SQL with the values written in may differ)."""

    def __init__(self, table: str) -> None:
        self.table, self.reads, self.found = table, [], []

    def __call__(self, execute, sql, params, many, context):
        if sql.lstrip("(").startswith("SELECT") and f'FROM "{self.table}"' in sql:
            self.reads.append((sql, params))
        return execute(sql, params, many, context)

    def __enter__(self):
        from django.db import connection

        self.wrapping = connection.execute_wrapper(self)
        self.wrapping.__enter__()
        return self.found

    def __exit__(self, *exc) -> None:
        from django.db import connection

        self.wrapping.__exit__(*exc)
        with connection.cursor() as cursor:
            for sql, params in self.reads:
                cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
                self.found.append(" ".join(str(row) for row in cursor.fetchall()))


def test_a_change_key_and_the_undos_since_a_table_are_found_by_their_indexes_not_by_reading_every_receipt():
    """A phone's tap and Paid carry a key: each would otherwise read every receipt of its match (10,000 at
    10,000 hands) or every payment of its group. The partial indexes answer only when the query says the
    key is not ""."""
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's plan is read here; PostgreSQL's depends on the tables' sizes")
    group = Group.create("Jeudi", WORKED)
    ids = [player.pk for player in group.members().order_by("pk")]
    sitting = group.start_match("agram", ids)
    sitting.record_hand(1, 0, key="first")
    seen = Sitting.objects.get(pk=sitting.pk).version
    sitting.correct_hand(1, 2)  # the tapping phone is behind the table: its key and the undos since are read
    with Plans("matches_receipt") as tap:
        sitting.record_hand(2, 1, key="second", seen=seen)
    (plan,) = tap  # one read, each part of it by its index
    assert "one_receipt_per_change_key" in plan and "receipts_since_a_version" in plan
    with Plans("matches_payment") as paid:
        group.mark_paid(ids[0], ids[1], 100, "CFA", key="paid")
    assert any("one_payment_per_key" in plan for plan in paid)
