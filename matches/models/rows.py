"""Model rows read with fixed SQL statements, for the reads of every tap and poll.

There the ORM's work of building each statement (joins, lookups, compilers) costs several times
what the database does. The statements here name their columns from the models' own fields, and
each value passes through the converters the ORM would apply (dates on SQLite, JSON, ...), so the
instances are the ones a queryset would give.
"""

from __future__ import annotations

from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections, models


def columns(model: type[models.Model], alias: str) -> str:
    """The model's concrete columns, in field order, as `alias."column", ...` for a SELECT."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def width(model: type[models.Model]) -> int:
    """How many columns columns() selects for `model`."""
    return len(model._meta.concrete_fields)


@cache
def _converters(model: type[models.Model], vendor: str) -> tuple[tuple[str, tuple, object], ...]:
    """Per concrete field: its attribute name, the converters the ORM applies to its values on this
    database, and the column expression they expect."""
    table = model._meta.db_table
    converters = []
    for field in model._meta.concrete_fields:
        column = field.get_col(table)
        functions = tuple(connection.ops.get_db_converters(column) + field.get_db_converters(connection))
        converters.append((field.attname, functions, column))
    return tuple(converters)


def build(model: type[models.Model], values) -> models.Model:
    """An instance of `model` from one row's values for columns(model), converted as the ORM does.

    Filled as Model.from_db fills it, without Model.__init__'s per-field checks (a third of the cost
    of the rows a tap reads); no model here has an __init__ of its own or listens to init signals.
    """
    database = connections[DEFAULT_DB_ALIAS]  # (the `connection` proxy looks it up on every use)
    instance = model.__new__(model)
    attributes = instance.__dict__
    for value, (name, functions, column) in zip(values, _converters(model, database.vendor)):
        for function in functions:
            value = function(value, column, database)
        attributes[name] = value
    state = instance._state = models.base.ModelState()
    state.adding, state.db = False, database.alias
    return instance


def convert(model: type[models.Model], name: str, value):
    """One column's value converted as the ORM converts field `name` of `model`."""
    _name, functions, column = _converters(model, connection.vendor)[position(model, name)]
    for function in functions:
        value = function(value, column, connection)
    return value


@cache
def position(model: type[models.Model], name: str) -> int:
    """Where field `name` sits among columns(model)."""
    return next(i for i, field in enumerate(model._meta.concrete_fields) if field.name == name)


def update(model: type[models.Model], pk: int, changes: dict[str, object]) -> None:
    """UPDATE one row: `changes` by field name (a model instance for a foreign key), prepared for
    the database as the ORM's update() prepares them."""
    assignments, values = [], []
    for name, value in changes.items():
        field = model._meta.get_field(name)
        if isinstance(value, models.Model):
            value = value.pk
        assignments.append(f"{connection.ops.quote_name(field.column)} = %s")
        values.append(field.get_db_prep_save(value, connection))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {connection.ops.quote_name(model._meta.db_table)} SET {', '.join(assignments)} WHERE id = %s",
            [*values, pk],
        )


def lock_clause(*aliases: str) -> str:
    """`FOR UPDATE OF` these table aliases where the database has row locks (PostgreSQL); empty
    on SQLite, whose IMMEDIATE transactions already hold the write lock."""
    if not connection.features.has_select_for_update:
        return ""
    if connection.features.has_select_for_update_of:
        return " FOR UPDATE OF " + ", ".join(aliases)
    return " FOR UPDATE"


def insert(instance: models.Model) -> None:
    """INSERT `instance` (every concrete field but its id, prepared as the ORM's save() prepares
    them, defaults included) and set its id from the database."""
    model = type(instance)
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    values = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    with connection.cursor() as cursor:
        if connection.features.can_return_columns_from_insert:
            cursor.execute(sql + " RETURNING id", values)
            instance.pk = cursor.fetchone()[0]
        else:
            cursor.execute(sql, values)
            instance.pk = cursor.lastrowid
    instance._state.adding, instance._state.db = False, connection.alias
