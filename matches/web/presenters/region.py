"""The match table's `table` region: what a tap's answer, a poll and a pushed update show. Built from
the sitting and a table read alone, so the live stream renders it once per version and language for
every phone (no request: no notice, no CSRF field; htmx sends the token of <body hx-headers>)."""

from __future__ import annotations

from functools import cache as once

from django.core.cache import cache
from django.core.cache.utils import make_template_fragment_key
from django.urls import reverse
from django.utils.translation import get_language

from matches.models import Sitting
from matches.web.presenters.table_state import TableState
from matches.web.presenters.answers import answer_forms, choice_prompt
from matches.web.presenters.receipts import money_changes
from matches.web.presenters.chart import chart_svg, chart_title, sitting_chart, table_rows


def middle_names(sitting: Sitting, watching: bool) -> str:
    """What the region's middle (score to newest hands) is drawn from: the key table.html's {% cache %} keeps it
    by, for this version, change time, language and view (a rename moves the version, not the change time)."""
    return f"{sitting.token}:{sitting.version}:{sitting.changed_at.isoformat()}:{get_language()}:{watching}"


def kept_middle(sitting: Sitting, watching: bool) -> str | None:
    """The region's middle as table.html keeps it, if it does: then the table is read without the chart's hands."""
    return cache.get(make_template_fragment_key("region_middle", [middle_names(sitting, watching)]))


def region_context(
    sitting: Sitting, state: TableState, watching: bool, swap: bool, middle: str | None = None
) -> dict:
    """`watching`: the read-only watch view, no controls; `swap`: an htmx swap, whose forms carry no CSRF field;
    `middle`: the region's middle as kept (kept_middle), else drawn from `state`."""
    token = sitting.watch_token if watching else sitting.token
    # Drawn when the template first asks (a template calls a callable): the region's cached middle may not.
    chart = once(lambda: sitting_chart(sitting, state))
    money = sitting.stake_label if sitting.stake_amount and not sitting.rules.uses_chips else None  # drawn in money
    return {
        "sitting": sitting,
        "table": state,
        "watching": watching,
        "version": str(sitting.version),  # as written in URLs and ids, never as a localized number
        "poll_url": reverse("watch-poll" if watching else "poll", kwargs={"token": token}) + f"?v={sitting.version}",
        "events_url": reverse("watch-events" if watching else "events", kwargs={"token": token}),
        "swap": swap,
        "asks": None if watching else asks(sitting, state),
        "question": choice_prompt(sitting.rules),
        "chart": chart,
        "chart_rows": once(lambda: table_rows(chart(), money=money)),
        "chart_svg": once(lambda: chart_svg(chart(), money) if chart() else ""),
        "chart_title": chart_title(sitting),
        "money_changes": money_changes(state, watching),
        "middle": middle,
        "middle_names": middle_names(sitting, watching),
    }


def asks(sitting: Sitting, state) -> list[tuple[object, list]] | None:
    """Per seat, the answer forms a tap offers; None when the game asks only for the winner."""
    if not sitting.rules.questions or sitting.is_finished:
        return None
    playing = state.playing_seats
    return [(seat, answer_forms(sitting.rules, playing, seat.position)) for seat in playing]
