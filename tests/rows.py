"""The database's rows, counted: what a refused request or a deletion must leave as it was."""

from matches.models import Group, Hand, Player, Seat, Sitting


def rows() -> tuple[int, ...]:
    """How many groups, players, sittings, seats and hands the database holds."""
    return tuple(model.objects.count() for model in (Group, Player, Sitting, Seat, Hand))


def rows_of(sitting: Sitting) -> tuple[int, int, int]:
    """(sitting rows, seat rows, hand rows) left in the database for `sitting`."""
    return (
        Sitting.objects.filter(pk=sitting.pk).count(),
        Seat.objects.filter(sitting_id=sitting.pk).count(),
        Hand.objects.filter(sitting_id=sitting.pk).count(),
    )
