"""A group's files: every hand of every match as one CSV, the whole group as a JSON archive, and the
page that imports such an archive as a new group (see matches.services.archive for the format)."""

from __future__ import annotations

import io
import threading
from collections.abc import Generator
from functools import partial

from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_safe

from matches.domain.capacity import ARCHIVE_BYTES
from matches.services.archive import (
    AlreadyHere,
    ArchiveError,
    dumps,
    export_group,
    import_group,
    read_archive,
    too_big_message,
)
from matches.models import Group, Hand, Seat, Sitting
from matches.web.presenters.table_state import TableState
from matches.models.snapshot import read_snapshot
from matches.web.presenters.hand_file import GROUP_COLUMNS, csv_chunks, match_rows, moment, money_cell
from matches.web.views.common import HtmxHttpRequest, known_phone, reached
from matches.web.views.groups import remember_group
from matches.web.views.limits import STARTS, over_limit
from matches.web.once import FIELD as once_field
from matches.web.once import Once, new_token

MAX_ARCHIVE = ARCHIVE_BYTES  # a group at the limits fits well within it (matches.domain.capacity)
FORM_ALLOWANCE = 64 * 1024  # the rest of the upload's body: multipart headers, CSRF token
# Checking an archive at the limits holds much memory for a while: one at a time in each process.
ONE_IMPORT = threading.Lock()
IMPORT_WAIT = 10  # seconds an import waits for the one before it, then is asked to come back


def attachment(response: HttpResponse, group: Group, extension: str) -> HttpResponse:
    """Save-as `last-trick-group-<name or id>-<today on the group's clock>.<extension>`; never cached."""
    name = slugify(group.name, allow_unicode=True) or str(group.pk)
    filename = f"last-trick-group-{name}-{timezone.localdate(timezone=group.zone):%Y-%m-%d}.{extension}"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@require_safe
@reached(Group)
def group_json(request: HtmxHttpRequest, group: Group) -> HttpResponse:
    """The group's archive, read in the lookup's snapshot, to import into another server."""
    response = HttpResponse(dumps(export_group(group)), content_type="application/json; charset=utf-8")
    return attachment(response, group, "json")


@require_safe
@reached(Group)
def group_csv(request: HtmxHttpRequest, group: Group) -> StreamingHttpResponse:
    """Every hand of the group's matches, oldest match first, as the match's CSV (presenters/hand_file) with
    the match's number, game and start before each row. Streamed in its own read snapshot (written after
    the view returns)."""
    rows = csv_rows(group.pk, translation.get_language())
    response = StreamingHttpResponse(csv_chunks(GROUP_COLUMNS, rows), content_type="text/csv; charset=utf-8")
    return attachment(response, group, "csv")


def csv_rows(group_pk: int, language: str | None) -> Generator[dict[str, object], None, None]:
    """Each match's rows; runs while streaming, in one read snapshot and the request's language."""
    with translation.override(language), read_snapshot():
        in_seats = Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
        sittings = Sitting.objects.filter(group_id=group_pk).order_by("started_at", "pk").prefetch_related(in_seats)
        # Every hand in one streamed query, in the sittings' order: a few queries whatever the group's size.
        hands = Hand.objects.filter(sitting__group_id=group_pk).order_by("sitting__started_at", "sitting__pk", "number")
        upcoming = HandsInOrder(hands.iterator(chunk_size=2000))
        for number, sitting in enumerate(sittings.iterator(chunk_size=500), start=1):
            state = TableState(sitting, list(sitting.seats.all()), [])
            match = {"match": number, "game": sitting.game, "match_started": moment(sitting.started_at, sitting.zone)}
            yield from match_rows(state, iter(partial(upcoming.next_of, sitting.pk), None), match)
        group = Group.objects.get(pk=group_pk)
        for paid in group.payments.select_related("payer", "payee").order_by("at", "pk"):
            yield {
                "row_type": "payment",
                "time": moment(paid.at, group.zone),
                "player": paid.payer.name,
                "payee": paid.payee.name,
                "currency": paid.currency,
                "paid": money_cell(paid.currency)(paid.amount),
                "taken_back": moment(paid.taken_back_at, group.zone) if paid.taken_back_at else "",
            }
        for forgiven in group.forgivenesses.order_by("at", "pk"):
            yield {"row_type": "forgiven", "time": moment(forgiven.at, group.zone)}


class HandsInOrder:
    """The hands of one sitting after another from one ordered iterator."""

    def __init__(self, hands) -> None:
        self.hands, self.waiting = hands, next(hands, None)

    def next_of(self, sitting_id: int) -> Hand | None:
        """The next hand if it is `sitting_id`'s, else None (it stays for its own sitting)."""
        hand = self.waiting
        if hand is None or hand.sitting_id != sitting_id:
            return None
        self.waiting = next(self.hands, None)
        return hand


class ArchiveUpload(FileUploadHandler):
    """Keeps an upload in memory up to MAX_ARCHIVE bytes; a bigger one is read and dropped (`too_big`)."""

    too_big = False

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.buffer = io.BytesIO()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        if start + len(raw_data) > MAX_ARCHIVE:
            self.too_big = True
            raise SkipFile
        self.buffer.write(raw_data)

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        self.buffer.seek(0)
        return InMemoryUploadedFile(
            self.buffer, self.field_name, self.file_name, self.content_type, file_size, self.charset
        )


@csrf_exempt  # checked by csrf_protect below, once the upload handler is in place
@require_http_methods(["GET", "HEAD", "POST"])
def group_import(request: HtmxHttpRequest) -> HttpResponse:
    """GET: the upload form. POST: the new group's page, or the form with what to fix; a new match for limits."""
    if request.method == "POST":
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_ARCHIVE + FORM_ALLOWANCE:  # refused before the body is read
            return import_page(request, too_big_message(), 413)
        request.upload_handlers = [ArchiveUpload(request)]
    return checked_import(request)


@csrf_protect
def checked_import(request: HtmxHttpRequest) -> HttpResponse:
    """group_import, past its CSRF check (which reads the upload through ArchiveUpload)."""
    if request.method != "POST":
        return import_page(request)
    if limited := over_limit(request, STARTS, known_phone(request)):
        return limited
    upload = request.FILES.get("archive")
    if any(getattr(handler, "too_big", False) for handler in request.upload_handlers):
        return import_page(request, too_big_message(), 413)
    if upload is None:
        return import_page(request, _("Choose the group's .json file, then tap Import the group."), 400)
    once = Once("group-import", request.POST.get(once_field), request)
    if not once.claim():  # this form sent again (Import tapped twice): the group its first post made
        group = Group.objects.filter(pk=once.made(wait=IMPORT_WAIT) or 0).first()
        if group is None:
            return busy_page(request)
        remember_group(request, group)
        return redirect(group)
    if not ONE_IMPORT.acquire(timeout=IMPORT_WAIT):
        once.drop()
        return busy_page(request)
    # A file this phone brought here before is said, with its group's link, before a second copy.
    phones_groups = Group.objects.member_links(request.session.get("groups", []))
    known = None if request.POST.get("second_copy") == "1" else phones_groups
    try:
        group = import_group(read_archive(upload.read()), known)
    except AlreadyHere as here:
        once.drop()
        return import_page(request, status=409, copy=here.group)
    except ArchiveError as refusal:
        once.drop()
        return import_page(request, refusal.message, 400)
    finally:
        ONE_IMPORT.release()
    once.keep(group.pk)
    remember_group(request, group)
    return redirect(group)


def busy_page(request: HttpRequest) -> HttpResponse:
    response = import_page(request, _("This server is bringing in another group: try again in a minute."), 503)
    response["Retry-After"] = "60"
    return response


def import_page(request: HttpRequest, error: str = "", status: int = 200, copy: Group | None = None) -> HttpResponse:
    """The upload form; `copy`: the phone's group the file holds, and the form then imports a second copy."""
    context = {"error": error, "max_mb": MAX_ARCHIVE // (1024 * 1024), "copy": copy, "once": new_token()}
    return render(request, "matches/group_import.html", context, status=status)
