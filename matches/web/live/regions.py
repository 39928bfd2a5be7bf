"""What a pushed update carries, read and rendered in a worker thread (the ORM and templates are sync)."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.db import connection
from django.db import models
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from matches.models import Group, Sitting
from matches.models.snapshot import read_snapshot
from matches.web.presenters.table_state import TableState
from matches.web.presenters.region import region_context
from matches.web.outages import LOST, is_locked, start_afresh

T = TypeVar("T")


def afresh(read: Callable[..., T]) -> Callable[..., T]:
    """`read` run once more on a new connection when the database ended the one it had (a restart, a pooler,
    pg_terminate_backend: the pool's idle connections all died), as a view is run again (web.outages):
    a push is not left waiting for the next change."""

    @functools.wraps(read)
    def run(*args, **kwargs) -> T:
        try:
            return read(*args, **kwargs)
        except LOST as error:
            if connection.in_atomic_block or is_locked(error):  # a test's transaction; SQLite's lock waited already
                raise
            start_afresh()
            return read(*args, **kwargs)

    return run


@dataclass(frozen=True)
class Region:
    """One sitting's table region at one version, in one language, for members or watchers."""

    version: int
    html: str
    links: tuple[str, str]  # (member token, watch token) when rendered: a rotated link stops its streams
    moved_to: str = ""  # watch screens follow the table to its rematch


@afresh
def render_region(sitting_id: int, language: str, watching: bool) -> Region | None:
    """The region as an htmx swap renders it; None when the sitting is gone."""
    try:
        with translation.override(language), read_snapshot():
            sitting = Sitting.objects.filter(pk=sitting_id).select_related("next_sitting").first()
            if sitting is None:
                return None
            state = TableState.of(sitting.table())
            html = render_to_string("matches/table.html#table", region_context(sitting, state, watching, swap=True))
            moved = ""
            if watching and sitting.next_sitting_id:
                moved = reverse("watch", args=[sitting.next_sitting.watch_token])
            return Region(sitting.version, html, (sitting.token, sitting.watch_token), moved)
    finally:
        release_connection()


@afresh
def find(model: type[Sitting] | type[Group], link: str, token: str) -> tuple[int, int, int | None] | None:
    """(id, version, group id) of the sitting, or (id, version, None) of the group, that `token` reaches by
    `link`; None if nothing."""
    try:
        group = "group_id" if model is Sitting else models.Value(None, output_field=models.IntegerField())
        return model.objects.reached_by(link, token).values_list("id", "version", group).first()
    finally:
        release_connection()


@afresh
def versions(sitting_ids: list[int], group_ids: list[int]) -> tuple[dict[int, int], dict[int, tuple]]:
    """The current version of each sitting, and of each group with its newest match change: one query each."""
    try:
        sittings = dict(Sitting.objects.filter(pk__in=sitting_ids).values_list("id", "version")) if sitting_ids else {}
        return sittings, group_versions_of(group_ids) if group_ids else {}
    finally:
        release_connection()


def group_versions_of(group_ids: list[int]) -> dict[int, tuple]:
    """Each group's version with its newest match change: a group page shows its matches' standings too."""
    rows = Group.objects.filter(pk__in=group_ids).annotate(latest=Max("sittings__changed_at"))
    return {pk: (version, latest) for pk, version, latest in rows.values_list("id", "version", "latest")}


def shown_version(pair: tuple | None) -> str:
    """A group's version as its page names it to its stream (`?v=`): "<version>-<newest change, in µs>"."""
    if pair is None:
        return ""
    version, latest = pair
    return f"{version}-{round(latest.timestamp() * 1_000_000) if latest else 0}"


def group_shown(group: Group) -> str:
    """The version a group page shows, read in its snapshot."""
    return shown_version(group_versions_of([group.pk]).get(group.pk))


@afresh
def recent_changes(seconds: float) -> tuple[list[tuple[int, int, int | None]], list[tuple[int, int]]]:
    """(id, version, group id) of the sittings and (id, version) of the groups changed in the last `seconds`."""
    since = timezone.now() - datetime.timedelta(seconds=seconds)
    try:
        sittings = list(Sitting.objects.changed_since(since).values_list("id", "version", "group_id"))
        return sittings, list(Group.objects.changed_since(since).values_list("id", "version"))
    finally:
        release_connection()


def release_connection() -> None:
    """A worker thread keeps no PostgreSQL connection between reads (the pool gets it back); SQLite's stays.
    Inside a transaction (a caller's, a test's) the connection is that transaction's: left open."""
    if connection.vendor != "sqlite" and not connection.in_atomic_block:
        connection.close()
