"""Forgetting sittings: the one way to delete them (forget_old_sittings and the admin). Hand.winner
and Seat.player are PROTECT, so hands, seats, the sitting, then seatless players go in one transaction."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import Count, F, QuerySet
from django.db.models.functions import Greatest
from django.utils import timezone

from matches.models import Group, Hand, Player, Seat, Sitting


def untouched_for(days: int) -> QuerySet[Sitting]:
    """Sittings unchanged for over `days` days, unless their group changed since (old matches are its figures)."""
    cutoff = timezone.now() - timedelta(days=days)
    active_groups = Sitting.objects.changed_since(cutoff).filter(group__isnull=False).values("group")
    return (
        Sitting.objects.filter(changed_at__lt=cutoff)
        .exclude(group__in=active_groups)
        .exclude(group__changed_at__gte=cutoff)
    )


def untouched_groups(days: int) -> QuerySet[Group]:
    """Groups unchanged for more than `days` days that have no sitting left (see untouched_for)."""
    return Group.objects.filter(changed_at__lt=timezone.now() - timedelta(days=days), sittings__isnull=True)


def forget_sittings(sittings: QuerySet[Sitting]) -> tuple[int, int]:
    """Delete `sittings`, their hands and seats, and seatless players; returns (sittings, hands) deleted;
    their groups keep their count of hands. Rows are locked first (select_for_update; SQLite's IMMEDIATE
    lock) and `sittings` re-evaluated per statement, so one a phone changed meanwhile is kept. Rematches
    survive (SET_NULL)."""
    doomed = Sitting.objects.filter(pk__in=sittings.values("pk"))
    with transaction.atomic():
        # Their groups first, as the verbs lock them (a group, then its sitting): no deadlock with a tap.
        groups = Group.objects.filter(pk__in=doomed.values("group")).order_by("pk").select_for_update(no_key=True)
        list(groups.values_list("pk", flat=True))
        list(doomed.select_for_update().values_list("pk", flat=True))
        per_group = Hand.objects.filter(sitting__in=doomed, sitting__group__isnull=False).values("sitting__group")
        for group, count in per_group.annotate(n=Count("*")).order_by().values_list("sitting__group", "n"):
            Group.objects.filter(pk=group).update(hands=Greatest(F("hands") - count, 0))
        hands = _delete(Hand.objects.filter(sitting__in=doomed))
        _delete(Seat.objects.filter(sitting__in=doomed))
        forgotten = _delete(doomed)
        _delete(Player.objects.filter(seats__isnull=True, group__isnull=True))  # a group's members stay
    return forgotten, hands


def forget_groups(groups: QuerySet[Group]) -> int:
    """Delete `groups` that have no sitting, with their members who hold no seat; returns how many."""
    with transaction.atomic():
        doomed = Group.objects.filter(pk__in=groups.values("pk"), sittings__isnull=True)
        _delete(Player.objects.filter(group__in=doomed, seats__isnull=True))
        return _delete(doomed)


def _delete(queryset: QuerySet) -> int:
    """Delete `queryset`; return how many rows of its own model went (not cascaded ones)."""
    _, per_model = queryset.delete()
    return per_model.get(queryset.model._meta.label, 0)
