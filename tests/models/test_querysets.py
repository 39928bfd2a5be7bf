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
