"""A person at a table, and the phone that made a change."""

from dataclasses import dataclass

from django.db import models

from matches.domain.names import NAME_MAX_LENGTH


class Player(models.Model):
    """A person at the table, by the name typed at the start (see domain.names for the rules).

    A group's member when `group` is set: `left` when removed from the group's list (their
    matches stay), `erased` when their name was replaced everywhere.
    """

    name = models.CharField(max_length=NAME_MAX_LENGTH)
    group = models.ForeignKey(
        "Group", on_delete=models.SET_NULL, null=True, blank=True, related_name="players", editable=False
    )
    left = models.BooleanField(default=False)
    erased = models.BooleanField(default=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Recorder:
    """Who made a change: the phone's id (from its session) and the seat it said it holds, if any."""

    phone: str = ""
    seat: int | None = None


ANYONE = Recorder()
