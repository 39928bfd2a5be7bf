"""The sitting as a CSV (presenters/hand_file: the columns and rows): one row per hand and player, Cat Tê's
chips handed out, then a net row per player. Streamed from an iterator in its own read snapshot, so any
length takes little memory."""

from __future__ import annotations

from collections.abc import Generator

from django.http import StreamingHttpResponse
from django.utils import timezone, translation
from django.views.decorators.http import require_safe

from matches.models import Sitting
from matches.models.snapshot import read_snapshot
from matches.web.presenters.hand_file import MATCH_COLUMNS, csv_chunks, match_rows
from matches.web.presenters.table_state import TableState
from matches.web.views.common import HtmxHttpRequest, reached


@require_safe
@reached(Sitting, snapshot=False)
def export(request: HtmxHttpRequest, sitting: Sitting) -> StreamingHttpResponse:
    """The match's CSV, named for the start day on the table's clock; the same keys and commas in every
    language, the answers worded in the request's."""
    filename = f"last-trick-{sitting.game}-{timezone.localtime(sitting.started_at, sitting.zone):%Y-%m-%d}.csv"
    rows = file_rows(sitting, translation.get_language())
    response = StreamingHttpResponse(csv_chunks(MATCH_COLUMNS, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def file_rows(sitting: Sitting, language: str | None) -> Generator[dict[str, object], None, None]:
    """The rows while streaming, in one read snapshot and the request's language; none if the match is gone."""
    with translation.override(language), read_snapshot():
        fresh = Sitting.objects.filter(pk=sitting.pk, token=sitting.token).first()
        if fresh is None:
            return
        state = TableState.of(fresh.table(recent=0))
        yield from match_rows(state, fresh.hands.order_by("number").iterator(chunk_size=500))
