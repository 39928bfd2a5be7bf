"""A speed trick, kept because `make bench` shows it (BENCHMARKS.md, CPU per request): the table's reads,
on every tap and page, in SQL written once here. The ORM builds and compiles a queryset's SQL on every
run, which costs more than these reads themselves (a list of 40 sampled hand numbers alone costs it a
quarter of a millisecond). Rows become models as the ORM makes them: `from_db` with each field's converters
(or `Manager.raw`). tests/models/test_quick_reads.py checks that each answers as the queryset in its
docstring does."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model

from matches.models.hands import Hand
from matches.models.seats import Seat

NEWEST = 'SELECT * FROM "matches_hand" WHERE "sitting_id" = %s AND "number" > %s ORDER BY "number" DESC'
POINTS = 'SELECT "number", "running", "threshold_after" FROM "matches_hand" WHERE "sitting_id" = %s AND "number" IN '
LINKED = {
    ("matches_sitting", "token"): 'SELECT * FROM "matches_sitting" WHERE "token" = %s',
    ("matches_sitting", "watch_token"): 'SELECT * FROM "matches_sitting" WHERE "watch_token" = %s',
    ("matches_group", "token"): 'SELECT * FROM "matches_group" WHERE "token" = %s',
    ("matches_group", "watch_token"): 'SELECT * FROM "matches_group" WHERE "watch_token" = %s',
}
SEATED = (
    'SELECT "matches_seat".*, "matches_sitting".*, "matches_player".* FROM "matches_seat"'
    ' INNER JOIN "matches_sitting" ON "matches_seat"."sitting_id" = "matches_sitting"."id"'
    ' INNER JOIN "matches_player" ON "matches_seat"."player_id" = "matches_player"."id"'
    ' WHERE "matches_sitting"."{}" = %s ORDER BY "matches_seat"."position"'
)
SEATED_BY = {link: SEATED.replace("{}", link) for link in ("token", "watch_token")}
SEATS_OF = (
    'SELECT "matches_seat".*, "matches_player".* FROM "matches_seat"'
    ' INNER JOIN "matches_player" ON "matches_seat"."player_id" = "matches_player"."id"'
    ' WHERE "matches_seat"."sitting_id" = %s ORDER BY "matches_seat"."position"'
)
LOCKED = 'SELECT * FROM "matches_sitting" WHERE "token" = %s FOR UPDATE'  # PostgreSQL's row lock
RUNNING = Hand._meta.get_field("running")


def linked(model: type[Model], link: str, token: str) -> Model | None:
    """model.objects.filter(**{link: token}).first(), `link` a unique field ("token" or "watch_token")"""
    return next(iter(model.objects.raw(LINKED[model._meta.db_table, link], [token])), None)


def locked(model: type[Model], token: str) -> Model | None:
    """model.objects.select_for_update().filter(token=token).first(), a Sitting (PostgreSQL)"""
    return next(iter(model.objects.raw(LOCKED, [token])), None)


def seated(link: str, token: str) -> list[Seat]:
    """Seat.objects.filter(**{f"sitting__{link}": token}).select_related("sitting", "player").order_by("position"),
    `link` a Sitting field ("token" or "watch_token"); the seats share one Sitting (the ORM makes one a row)"""
    seats = []
    for seat, sitting, player in read(SEATED_BY[link], [token], seated_models(), once=1):
        seat.sitting, seat.player = sitting, player
        seats.append(seat)
    return seats


def seats_of(sitting: Model) -> list[Seat]:
    """sitting.seats.select_related("player").order_by("position"): each seat's sitting is `sitting`"""
    seats = []
    for seat, player in read(SEATS_OF, [sitting.pk], (Seat, seated_models()[2])):
        seat.sitting, seat.player = sitting, player
        seats.append(seat)
    return seats


def newest_hands(sitting_id: int, after: int) -> list[Hand]:
    """Hand.objects.filter(sitting_id=sitting_id, number__gt=after).order_by("-number")"""
    return [hand for (hand,) in read(NEWEST, [sitting_id, after], (Hand,))]


def chart_points(sitting_id: int, numbers: Sequence[int]) -> list[tuple[int, list[int], int | None]]:
    """Hand.objects.filter(sitting_id=sitting_id, number__in=numbers)
    .values_list("number", "running", "threshold_after"), in no order"""
    if not numbers:
        return []
    with connection.cursor() as cursor:
        cursor.execute(POINTS + "(" + ", ".join(["%s"] * len(numbers)) + ")", [sitting_id, *numbers])
        rows = cursor.fetchall()
    return [(number, RUNNING.from_db_value(running, None, connection), after) for number, running, after in rows]


def seated_models() -> tuple[type[Model], ...]:
    """Seat, Sitting and Player, in the order of a SEATED row (the last two as Seat's keys name them)."""
    return Seat, Seat._meta.get_field("sitting").related_model, Seat._meta.get_field("player").related_model


def read(sql: str, params: list, models: tuple[type[Model], ...], once: int | None = None) -> list[list[Model]]:
    """Per row of `sql`, which holds all columns of each of `models` in turn (SELECT "a".*, "b".*), one of each;
    `once`: the index of a model that is the same on every row (a join's one side), made from the first."""
    db = connections[DEFAULT_DB_ALIAS]
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
        columns = tuple(column[0] for column in cursor.description)
    makers = MAKERS.get((db.alias, db.vendor, models, columns)) or made_for(db, models, columns)
    made: list[list[Model]] = []
    for row in rows:
        made.append([made[0][i] if made and i == once else make(row, db) for i, make in enumerate(makers)])
    return made


# What makes each model from a row of these columns, by database and models: the columns come in the order the
# database keeps them (a column added by a migration last), and each database converts its values its own way.
MAKERS: dict[tuple, list[Callable]] = {}


def made_for(db, models: tuple[type[Model], ...], columns: tuple[str, ...]) -> list[Callable]:
    makers, start = [], 0
    for model in models:
        fields = model._meta.concrete_fields
        names = columns[start : start + len(fields)]
        if sorted(names) != sorted(field.column for field in fields):
            raise RuntimeError(f"{model._meta.db_table} has columns {names}, its model fields {fields}")
        makers.append(maker(db, model, {field: start + names.index(field.column) for field in fields}))
        start += len(fields)
    MAKERS[db.alias, db.vendor, models, columns] = makers
    return makers


def maker(db, model: type[Model], where: dict) -> Callable[[Sequence, object], Model]:
    """What makes `model` from a row holding each of its fields at `where[field]` (all of them), as the ORM's
    compiler does: each value through the database's converters and the field's, then `from_db`."""
    names = [field.attname for field in where]  # in the model's order, as from_db takes them
    steps = []
    for field, index in where.items():
        column = field.get_col(model._meta.db_table)
        steps.append((index, db.ops.get_db_converters(column) + field.get_db_converters(db), column))

    def make(row: Sequence, db) -> Model:  # `db`: the connection that read the row (this thread's)
        values = []
        for index, converters, column in steps:
            value = row[index]
            for converter in converters:
                value = converter(value, column, db)
            values.append(value)
        return model.from_db(db.alias, names, values)

    return make
