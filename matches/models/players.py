"""A person at a table, and the phone that made a change."""

from dataclasses import dataclass

from django.db import models
from django.utils import timezone

from matches.domain.names import NAME_MAX_LENGTH

PHONE_MAX_LENGTH = 12


class PlayerQuerySet(models.QuerySet):
    def current(self) -> models.QuerySet:
        """On their group's list: neither removed nor erased."""
        return self.filter(left=False, erased=False)

    def former(self) -> models.QuerySet:
        """Removed from their group's list (they may come back), not erased."""
        return self.filter(left=True, erased=False)

    def named(self) -> models.QuerySet:
        """Not erased: their own name still shows."""
        return self.filter(erased=False)


class Player(models.Model):
    """A person at the table by the typed name (domain.names); in a group when `group` is set: `left`
    when removed from its list (matches stay), `erased` when the name was replaced everywhere."""

    name = models.CharField(max_length=NAME_MAX_LENGTH)
    group = models.ForeignKey(
        "Group", on_delete=models.SET_NULL, null=True, blank=True, related_name="players", editable=False
    )
    left = models.BooleanField(default=False)
    erased = models.BooleanField(default=False)

    objects = PlayerQuerySet.as_manager()

    def __str__(self) -> str:
        return self.name


class PlayerChange(models.Model):
    """A receipt of a change to a group's player: renamed (`before`, `after`), taken off its list, back on it,
    or erased; which phone, when. An erasure blanks the names of the player's earlier receipts too."""

    class Verb(models.TextChoices):
        RENAMED = "renamed"
        REMOVED = "removed"
        BACK = "back"
        ERASED = "erased"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="changes")
    verb = models.CharField(max_length=8, choices=Verb.choices)
    before = models.CharField(max_length=NAME_MAX_LENGTH, blank=True)
    after = models.CharField(max_length=NAME_MAX_LENGTH, blank=True)
    by_phone = models.CharField(max_length=PHONE_MAX_LENGTH, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return f"{self.player_id} {self.verb}"


@dataclass(frozen=True)
class Recorder:
    """Who made a change: the phone's id (from its session) and the seat it said it holds, if any."""

    phone: str = ""
    seat: int | None = None


ANYONE = Recorder()
