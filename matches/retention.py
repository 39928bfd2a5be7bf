"""Forgetting sittings: the one way to delete them, shared by `forget_old_sittings` and the admin.

`Hand.winner` and `Seat.player` are PROTECT foreign keys, so a sitting cannot simply be
deleted with Django's cascade: its hands go first, then its seats, then the sitting itself,
then the players who no longer hold a seat anywhere, all in one transaction.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from .models import Hand, Player, Seat, Sitting


def untouched_for(days: int) -> QuerySet[Sitting]:
    """Sittings whose `changed_at` is more than `days` days (a positive int) before now."""
    return Sitting.objects.filter(changed_at__lt=timezone.now() - timedelta(days=days))


def forget_sittings(sittings: QuerySet[Sitting]) -> tuple[int, int]:
    """Delete `sittings` with their hands and seats, and every player left with no seat.

    Returns (sittings deleted, hands deleted). The sitting rows are locked first (on
    PostgreSQL; SQLite's IMMEDIATE transaction holds the write lock), so a phone changing
    one of them waits, and `sittings` is evaluated afresh by each statement under that lock:
    a sitting that a phone changed meanwhile and that no longer matches is kept whole.
    Rematches pointing at a deleted sitting keep living (`next_sitting` is SET_NULL).
    """
    doomed = Sitting.objects.filter(pk__in=sittings.values("pk"))
    with transaction.atomic():
        list(doomed.select_for_update().values_list("pk", flat=True))
        hands = _delete(Hand.objects.filter(sitting__in=doomed))
        _delete(Seat.objects.filter(sitting__in=doomed))
        forgotten = _delete(doomed)
        _delete(Player.objects.filter(seats__isnull=True))
    return forgotten, hands


def _delete(queryset: QuerySet) -> int:
    """Delete `queryset`; return how many rows of its own model went (not cascaded ones)."""
    _, per_model = queryset.delete()
    return per_model.get(queryset.model._meta.label, 0)
