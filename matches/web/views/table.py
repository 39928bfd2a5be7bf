"""The match table: show it, tap a hand's winner, undo, end the match, correct a hand, rematch.
Each POST calls one verb, then renders from fresh data: the `table` partial for htmx, else a
redirect; refusals re-render with the reason and a 4xx."""

from __future__ import annotations

from django.contrib import messages
from django.db import connection
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import ngettext
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from matches.web.refusals import refusal_text
from matches.web.bidi import bdi, joined, sentence
from matches.domain.errors import AlreadyRecorded, Conflict, TableError
from matches.web.table_forms import ChipsForm, CorrectionForm, HandNumberForm, TapForm, UndoForm
from matches.models import Receipt, Repeated, Sitting, UndoneSince
from matches.web.presenters.receipts import (
    corrections, earlier_corrections, first_answer, first_kept, moved_words, other_changes, taken_back, undone_words,
)
from matches.web.presenters.table_state import TableState
from matches.web.presenters.answers import answer_forms, choice_prompt
from matches.web.views.common import (
    HtmxHttpRequest,
    action,
    go_to,
    known_phone,
    page_or_partial,
    phone_id,
    reached,
    recorder,
    remember,
    saw,
    shows_current_version,
    wants_partial,
)
from matches.web.views.limits import STARTS, over_limit
from matches.web.live.prerendered import keep
from matches.web.outages import exact
from matches.web.live.regions import Region
from matches.web.views.links import opens_links, share_context
from matches.web.presenters.region import kept_middle, region_context


def table_response(
    request: HtmxHttpRequest,
    sitting: Sitting,
    notice: str = "",
    status: int = 200,
    correctable: int | None = None,
    watching: bool = False,
    state: TableState | None = None,
    tap_again: bool = False,
) -> HttpResponse:
    """The match table page, or its `table` region for htmx (never cached: it changes). `correctable`:
    a hand the notice offers to correct; `watching`: the read-only watch view, no controls or member link;
    `tap_again`: this phone's taps say it was told another phone had just recorded the last hand."""
    share_open = False
    if not notice and not request.htmx:
        told = list(messages.get_messages(request))
        # Each only once: a plain form posted again before its answer would queue the same notice again.
        said = [message.message for message in told]
        notice = joined(reversed(dict.fromkeys(reversed(said))))  # each where it was said last
        share_open = opens_links(told)
    swap = wants_partial(request)
    # One snapshot with the sitting's row, unless the caller just read it (a poll reads outside one). A page
    # read in one snapshot with its row takes the region's middle as kept for this version, without the chart.
    middle = kept_middle(sitting, watching) if state is None and connection.in_atomic_block else None
    state = state or TableState.of(sitting.fresh_table(chart=middle is None))
    context = region_context(sitting, state, watching, swap, middle)
    context.update(notice=notice, status_is_error=status >= 400, correctable=correctable, tap_again=tap_again)
    if not watching:  # what this phone saw (a phone without JavaScript says so here) or made; app.js keeps it too
        context["seen_changes"] = set(request.session.get("seen_changes", []))
    if not swap and not watching:  # the share panel's body comes when it is opened, unless it opens at once
        context.update(share=True, share_open=share_open)
        if share_open:
            context.update(share_context(request, sitting, state))
    # (the standings' forms and links are this phone's, and so are the taps of a phone told to tap again)
    if swap and not watching and not sitting.is_finished and not tap_again:
        keep_for_the_push(sitting, context)
    response = page_or_partial(request, "matches/table.html", "table", context, status=status)
    return response


def keep_for_the_push(sitting: Sitting, context: dict) -> None:
    """Render the region's body once, for this answer and for the push of this version (live.prerendered)."""
    context["body_html"] = render_to_string("matches/table.html#body", context)
    pushed = render_to_string("matches/table.html#table", {**context, "notice": "", "correctable": None, "seen_changes": None})
    keep(sitting.pk, get_language(), Region(sitting.version, pushed, (sitting.token, sitting.watch_token)))


def refused(request: HtmxHttpRequest, sitting: Sitting, refusal: TableError) -> HttpResponse:
    state = TableState.of(sitting.fresh_table())
    state.this_phone = known_phone(request) or ""
    if isinstance(refusal, Repeated):
        return repeated(request, sitting, refusal.receipt, state)
    if isinstance(refusal, UndoneSince):
        return table_response(request, sitting, undone_words(state, refusal.receipt, unseen=True), refusal.status, state=state)
    text = refusal_text(refusal)
    if isinstance(refusal, AlreadyRecorded) and "winner" in refusal.params:
        # The answers that stood too: two phones may agree on the winner, not on how the hand was won.
        stood = next((hand for hand in state.recent_hands if hand.number == refusal.number), None)
        stood = stood or sitting.hands.filter(number=refusal.number).first()  # older than the table shows
        how = state.describe(stood) if stood is not None else ""
        if how:
            values = {"number": refusal.number, "winner": bdi(refusal.params["winner"]), "how": how}
            text = sentence(_("Hand %(number)d is already recorded: %(winner)s (%(how)s)."), values)
    if isinstance(refusal, AlreadyRecorded) and sitting.is_finished:  # as a tap on an open match is told, then why
        text = joined([text, refusal_text(Conflict("match_over"))])
    again = refusal.code == "tap_right_after"  # the last hand's winner, tapped a moment after: maybe in dispute
    last = refusal.number if isinstance(refusal, AlreadyRecorded) else refusal.params["number"] if again else None
    correctable = last if not sitting.is_final else None
    return table_response(request, sitting, text, refusal.status, correctable, state=state, tap_again=again)


def repeated(request: HtmxHttpRequest, sitting: Sitting, receipt: Receipt, state: TableState) -> HttpResponse:
    """A copy of a change already made gets the first answer, or what became of it since (a tap undone)."""
    undone = receipt.verb == Receipt.Verb.TAP and sitting.undone_since(receipt.number, receipt.version)
    if undone:  # recorded once, taken back since: it stands as not recorded, and the phone says why
        return table_response(request, sitting, undone_words(state, undone), 409, state=state)
    return after_change(request, sitting, first_answer(state, receipt), state)


def after_change(
    request: HtmxHttpRequest, sitting: Sitting, notice: str, state: TableState | None = None
) -> HttpResponse:
    """htmx: the fresh region (`state` if read); plain form: redirect (Reload never reposts), notice in a message."""
    if request.htmx:
        return table_response(request, sitting, notice, state=state)
    if notice:
        messages.success(request, notice)
    return redirect(sitting)


def first_error(form) -> str:
    return next(iter(form.errors.values()))[0]


@require_safe
@vary_on_headers("HX-Request")
@reached(Sitting)
def table(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    remember(request, sitting)
    return table_response(request, sitting)


@require_safe
@vary_on_headers("HX-Request")
def poll(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Live updates: 204 while the sitting's version is `?v=`, else the fresh table region."""
    if shows_current_version(request, token, watching=False):
        return HttpResponse(status=204)
    return changed_poll(request, token)


@reached(Sitting, snapshot=False)
def changed_poll(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    return poll_response(request, sitting, watching=False)


def poll_response(request: HtmxHttpRequest, sitting: Sitting, watching: bool) -> HttpResponse:
    """A poll that did not get its 204: a plain request goes to the page, an htmx one gets the region."""
    if not request.htmx:
        return redirect(sitting.get_absolute_url() if not watching else reverse("watch", args=[sitting.watch_token]))
    if watching and sitting.next_sitting_id:  # the table started a rematch: the screen follows it
        return go_to(request, reverse("watch", args=[sitting.next_sitting.watch_token]))
    return table_response(request, sitting, watching=watching)


@exact  # a second run finds the first one's hand, if it was saved, and says it is recorded
@vary_on_headers("HX-Request")
@action(Sitting)
def tap(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """Record the tapped winner of the open hand."""
    form = TapForm(request.POST)
    if not form.is_valid():
        return table_response(request, sitting, first_error(form), status=400)
    number, seat = form.cleaned_data["number"], form.cleaned_data["winner"] - 1
    by, key, seen = recorder(request, sitting), form.cleaned_data["key"], form.cleaned_data["seen"]
    try:
        sure = form.cleaned_data["again"]  # tapped again after "another phone recorded that hand just before"
        recorded = sitting.record_hand(number, seat, form.extras(), by=by, key=key, seen=seen, sure=sure)
    except TableError as refusal:
        return refused(request, sitting, refusal)
    # The table as the tap's transaction left it (a copy already recorded: read afresh).
    state = TableState.of(recorded.table or sitting.fresh_table())
    notice = hand_notice(
        _("Hand %(number)d recorded: %(name)s."), _("Hand %(number)d recorded: %(name)s (%(how)s)."), state, recorded.hand
    )
    changed = what_changed(sitting, recorded.threshold_before, recorded.finished_before)
    return after_change(request, sitting, joined([notice, *changed]), state)


def hand_notice(plain: str, with_how: str, state: TableState, hand) -> str:
    """ "Hand 3 recorded: Marie (x2)." echoing the answers so a wrong one shows at once (name in <bdi>)."""
    how = state.describe(hand)
    values = {"number": hand.number, "name": bdi(hand.winner.name), "how": how}
    return sentence(with_how if how else plain, values)


def what_changed(sitting: Sitting, threshold: int | None, was_finished: bool) -> list[str]:
    """What a change did to the match beyond its hand: a moved threshold it still plays to, the match reopened."""
    changes = []
    moved = sitting.threshold != threshold and sitting.threshold is not None and sitting.tied_at is not None
    if moved and not sitting.is_finished:  # (a match this change ended plays to no threshold now)
        changes.append(
            _("Tie at %(tie)d: now playing to %(threshold)d.")
            % {"tie": sitting.tied_at, "threshold": sitting.threshold}
        )
    if was_finished and not sitting.is_finished:
        changes.append(_("The match is open again."))
    return changes


@vary_on_headers("HX-Request")
@action(Sitting)
def undo(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    form = UndoForm(request.POST)
    if not form.is_valid():
        return table_response(request, sitting, first_error(form), status=400)
    try:
        hand = sitting.undo_hand(
            form.cleaned_data["number"],
            form.cleaned_data["stamp"],
            key=form.cleaned_data["key"],
            by=recorder(request, sitting),
        )
    except TableError as refusal:
        return refused(request, sitting, refusal)
    return after_change(request, sitting, _("Hand %(number)d undone: tap its winner again.") % {"number": hand.number})


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@reached(Sitting)
def end(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """GET asks for confirmation; POST ends the match (the open hand is abandoned)."""
    if request.method in ("GET", "HEAD"):
        if sitting.is_finished:
            return redirect(sitting)
        return render(request, "matches/end.html", {"sitting": sitting, "table": TableState.of(sitting.table(recent=1))})
    form = HandNumberForm(request.POST)
    if not form.is_valid():
        return table_response(request, sitting, first_error(form), status=400)
    try:
        sitting.end_match(form.cleaned_data["number"], key=form.cleaned_data["key"], by=recorder(request, sitting))
    except TableError as refusal:
        return refused(request, sitting, refusal)
    return after_change(request, sitting, "")  # the standings say it ended early, and where


@require_http_methods(["GET", "HEAD", "POST"])
@reached(Sitting)
def correct(request: HtmxHttpRequest, sitting: Sitting, number: int) -> HttpResponse:
    """GET shows hand `number` with its winner and answers to change; POST stores the correction."""

    def won_hand():  # read again after a refused correction: another phone may have changed it
        return sitting.hands.won().filter(number=number).first()

    hand = won_hand()
    if hand is None or sitting.is_final:
        reason = (
            _("This match was ended: it can no longer change.")
            if sitting.is_final
            else (_("Hand %(number)d has not been recorded, so it cannot be corrected.") % {"number": number})
        )
        return table_response(request, sitting, reason, status=409 if hand or sitting.is_final else 404)
    if request.method == "POST":
        form = CorrectionForm(request.POST)
        if not form.is_valid() or form.cleaned_data["number"] != number:
            message = first_error(form) if form.errors else _("This correction is for another hand.")
            return correction_page(request, sitting, hand, message, status=400)
        before = (sitting.threshold, sitting.is_finished)
        try:
            hand = sitting.correct_hand(
                number,
                form.cleaned_data["winner"] - 1,
                form.extras(),
                by=recorder(request, sitting),
                stamp=form.cleaned_data["stamp"],
                key=form.cleaned_data["key"],
            )
        except Repeated as copy:
            return refused(request, sitting, copy)
        except TableError as refusal:  # shown with the hand as it is now
            hand = won_hand() or hand
            return correction_page(request, sitting, hand, refusal_text(refusal), status=refusal.status)
        made = sitting.receipts.filter(verb=Receipt.Verb.CORRECT, number=number, by_phone=phone_id(request)).last()
        saw(request, made.pk if made else None)  # the phone that made it is told what moved, in its notice
        state = TableState.of(sitting.fresh_table())
        notice = hand_notice(
            _("Hand %(number)d corrected: %(name)s."),
            _("Hand %(number)d corrected: %(name)s (%(how)s)."),
            state,
            hand,
        )
        said = [notice, moved_words(state, made), *what_changed(sitting, *before)]
        return after_change(request, sitting, joined(part for part in said if part), state)
    return correction_page(request, sitting, hand)


def correction_page(request, sitting: Sitting, hand, notice: str = "", status: int = 200) -> HttpResponse:
    state = TableState.of(sitting.table(recent=0))
    winner = state.position_of(hand.winner_id)
    playing = [state.seats[position] for position in state.playing_hand(hand.number)]
    choices = [
        (seat, answer_forms(sitting.rules, playing, seat.position, hand.extras if seat.position == winner else {}))
        for seat in playing
    ]
    context = {
        "sitting": sitting,
        "hand": hand,
        "winner": winner,
        "choices": choices,
        "notice": notice,
        "describe": state.describe(hand),
        "question": choice_prompt(sitting.rules),
    }
    response = render(request, "matches/correct.html", context, status=status)
    return response


@vary_on_headers("HX-Request")
@action(Sitting)
def reissue(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """Cat Tê: hand every player another starting stack. `seen` is the batches this phone had seen."""
    form = ChipsForm(request.POST)
    if not form.is_valid():
        return table_response(request, sitting, first_error(form), 400)
    try:
        sitting.reissue_chips(form.cleaned_data["seen"], key=form.cleaned_data["key"], by=recorder(request, sitting))
    except TableError as refusal:
        return refused(request, sitting, refusal)
    chips = sitting.starting_chips
    return after_change(
        request,
        sitting,
        ngettext("Everyone received %(chips)d more chip.", "Everyone received %(chips)d more chips.", chips)
        % {"chips": chips},
    )


@require_http_methods(["GET", "HEAD", "POST"])
@reached(Sitting)
def rematch(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """A new sitting, same game and players in order (counted against the phone's and address's limits
    unless another phone started it: then that one). An unfinished match asks first (GET, or POST
    without `open=1`) and stays open; a finished one starts at once. The deal carries on."""
    if sitting.next_sitting_id:
        remember(request, sitting.next_sitting)
        return redirect(sitting.next_sitting)
    if request.method != "POST" and sitting.is_finished:
        return redirect(sitting)
    if not sitting.is_finished and (request.method != "POST" or request.POST.get("open") != "1"):
        response = render(request, "matches/rematch.html", {"sitting": sitting})
        return response
    if limited := over_limit(request, STARTS, known_phone(request)):
        return limited
    try:
        new = sitting.rematch(by=recorder(request, sitting))
    except TableError as refusal:  # the group keeps no more matches: the table says so
        return refused(request, sitting, refusal)
    remember(request, new)
    dealer = new.table(recent=1).dealer_seat.name
    messages.success(
        request, sentence(_("%(name)s deals first: the deal carries on from the last match."), {"name": bdi(dealer)})
    )
    return redirect(new)


# One history page holds as many hands as a 10-hand sitting, so a page costs the same at 10,000 hands.
HISTORY_PAGE = 10


@require_safe
@reached(Sitting)
def history(request: HtmxHttpRequest, sitting: Sitting) -> HttpResponse:
    """The sitting's hands newest first, HISTORY_PAGE at a time (`?from=N`: the page holding hand N)."""
    asked = request.GET.get("from", "").strip()
    holding = int(asked) if asked.isdecimal() and len(asked.lstrip("0")) < 10 else None  # typed: any digits
    read, last = sitting.history_page(holding, HISTORY_PAGE)
    state = TableState.of(read)
    state.this_phone = known_phone(request) or ""  # "this phone" or "another phone" made a change
    shown = [hand.number for hand in state.recent_hands]
    steps = corrections(state, shown)
    notice = ""
    if asked and (holding is None or not 1 <= holding <= last):
        notice = _("There is no hand %(asked)s: type a hand number from 1 to %(last)d.") % {
            "asked": asked[:12] if asked[:12].isprintable() else "?",
            "last": last,
        }
    context = {
        "sitting": sitting,
        "table": state,
        "last": last,
        "notice": notice if last else "",
        "newer": min(shown[0] + HISTORY_PAGE, last) if shown and shown[0] < last else None,
        "older": shown[-1] - 1 if shown and shown[-1] > 1 else None,
        "was": first_kept(state, steps),  # a corrected hand: what it was first (its receipt)
        "earlier": earlier_corrections(state, steps),  # and each correction before its last
        "taken_back": taken_back(state),
        "other_changes": other_changes(state),
    }
    response = render(request, "matches/history.html", context, status=400 if notice and last else 200)
    return response
