"""The database's rows, counted: what a refused request or a deletion must leave as it was."""

from django.db import connection

from matches.models import Group, Hand, Player, Seat, Sitting

COUNTED = (Group, Player, Sitting, Seat, Hand)


def rows() -> tuple[int, ...]:
    """How many groups, players, sittings, seats and hands the database holds: one query (a test of
    every wrong value in an archive counts them thousands of times)."""
    tables = (connection.ops.quote_name(model._meta.db_table) for model in COUNTED)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {table})" for table in tables))
        return tuple(cursor.fetchone())


def rows_of(sitting: Sitting) -> tuple[int, int, int]:
    """(sitting rows, seat rows, hand rows) left in the database for `sitting`."""
    return (
        Sitting.objects.filter(pk=sitting.pk).count(),
        Seat.objects.filter(sitting_id=sitting.pk).count(),
        Hand.objects.filter(sitting_id=sitting.pk).count(),
    )
