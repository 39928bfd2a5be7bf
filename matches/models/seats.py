"""A player's place at a sitting, with the totals kept in step with its hands."""

from django.db import models

from matches.models.players import PHONE_MAX_LENGTH


class Seat(models.Model):
    """A player's place; `position` is 0-based in playing order. `total` and `hands_won` are kept in
    step with the hands in every change's transaction (`Sitting.check_totals` compares them)."""

    sitting = models.ForeignKey("Sitting", on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey("Player", on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    total = models.IntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)
    best_run = models.PositiveIntegerField(default=0)  # most hands won in a row, kept once the match ends
    joined = models.PositiveIntegerField(default=1)  # the first hand this seat plays (a latecomer's is later)
    left = models.PositiveIntegerField(null=True, blank=True)  # the first hand it no longer plays
    # The phone that says it is this player's (Sitting.claim_seat): its changes' receipts name the player.
    claimed_by = models.CharField(max_length=PHONE_MAX_LENGTH, blank=True, default="")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["sitting", "position"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["sitting", "player"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return self.player.name

    @property
    def name(self) -> str:
        return self.player.name
