"""One hand of a sitting: who won it and the points it gave each seat."""

import json
from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from matches.models.choices import HandStatus
from matches.models.tokens import new_stamp


class HandQuerySet(models.QuerySet):
    def won(self) -> models.QuerySet:
        """Hands with a winner (not abandoned)."""
        return self.filter(status=HandStatus.WON)


class Hand(models.Model):
    """One hand: its number, winner, and per-seat `points` (seat order), fixed when recorded so history
    never shifts if scoring code changes; `extras` holds the game's answers."""

    Status = HandStatus

    sitting = models.ForeignKey("Sitting", on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WON)
    winner = models.ForeignKey("Seat", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    dealer_position = models.PositiveSmallIntegerField()
    extras = models.JSONField(default=dict, blank=True)
    points = models.JSONField(default=list)
    running = models.JSONField(default=list)  # each seat's total after this hand: the score chart's points
    threshold_after = models.PositiveIntegerField(null=True, blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by_phone = models.CharField(max_length=12, blank=True)
    recorded_by_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    corrected_at = models.DateTimeField(null=True, blank=True)
    corrected_by_phone = models.CharField(max_length=12, blank=True)
    corrected_by_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    stamp = models.CharField(max_length=12, default=new_stamp, editable=False)  # new on every change

    objects = HandQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["sitting", "number"], name="one_row_per_hand"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="hand_numbers_start_at_1"),
            models.CheckConstraint(
                condition=models.Q(status="won", winner__isnull=False)
                | models.Q(status="abandoned", winner__isnull=True),
                name="won_hands_have_a_winner",
            ),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number}"

    def clean(self) -> None:
        """The winner holds a seat at this sitting (the verbs only ever seat one; this guards the admin)."""
        if self.winner is not None and self.winner.sitting_id != self.sitting_id:
            raise ValidationError({"winner": "The winner must be seated at this table."}, code="winner_elsewhere")


def as_stored(extras: Mapping) -> dict:
    """A hand's answers as its JSON column returns them (seat tuples as lists), to compare with a recorded hand."""
    return json.loads(json.dumps(extras))
