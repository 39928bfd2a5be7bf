"""An archive's hands checked: fields, points and extras by the game's rules, then the replay and dealers."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.utils.translation import gettext as _

from matches.domain import rules, seating
from matches.domain.replay import Played, best_runs, replay
from matches.models import Hand, Sitting, as_stored
from matches.models.players import PHONE_MAX_LENGTH
from matches.services.archive.fields import (
    HAND_FIELDS,
    INT_MAX,
    POINTS_MAX,
    STAMP_MAX_LENGTH,
    EXTRAS_MAX_LENGTH,
    ArchiveError,
    check_fields,
    fail_type,
    is_whole,
    problem_at,
    read_choice,
    read_list,
    read_moment,
    read_object,
    read_text,
    read_whole,
    shown,
    whole_kind,
)
from matches.services.wording import rule_message


@dataclass
class HandEntry:
    fields: dict  # Hand's fields, but winner: a seat position or None
    winner: int | None


def read_hand(entry: object, where: str, number: int, game: rules.Game, playing: seating.Hand) -> HandEntry:
    """Hand `number`, played by the seats `playing` (every seat unless the table changed)."""
    n_seats = playing.width
    entry = read_object(entry, where)
    check_fields(entry, where, HAND_FIELDS)
    found = read_whole(entry, "number", f"{where}.number", 1, INT_MAX)
    if found != number:
        raise ArchiveError(
            _(
                "%(where)s is hand %(found)d where hand %(expected)d should be: a match's hands are "
                "numbered 1, 2, 3... in order, without gaps."
            )
            % {"where": f"{where}.number", "found": found, "expected": number}
        )
    status = read_choice(entry, "status", f"{where}.status", list(Hand.Status.values))
    last_seat = n_seats - 1
    winner = read_whole(entry, "winner", f"{where}.winner", 0, last_seat, optional=status == Hand.Status.ABANDONED)
    points = read_list(entry, "points", f"{where}.points")
    if len(points) != n_seats:
        raise ArchiveError(
            _("%(where)s lists %(found)d numbers for %(seats)d seats: one per seat, in seat order.")
            % {"where": f"{where}.points", "found": len(points), "seats": n_seats}
        )
    for seat, gained in enumerate(points):
        if not is_whole(gained) or not -POINTS_MAX <= gained <= POINTS_MAX:
            fail_type(f"{where}.points[{seat}]", gained, whole_kind(-POINTS_MAX, POINTS_MAX))
    extras = read_object(entry["extras"], f"{where}.extras")
    if len(json.dumps(extras)) > EXTRAS_MAX_LENGTH:  # (its values go into the rules' sentences)
        kind = _("an object {...} of at most %(max)d characters") % {"max": EXTRAS_MAX_LENGTH}
        fail_type(f"{where}.extras", extras, kind)
    if status == Hand.Status.ABANDONED:
        if winner is not None or any(points) or extras:
            raise ArchiveError(
                _("%(where)s is abandoned: it has no winner (null), no extra facts ({}) and no points (all 0).")
                % {"where": where}
            )
    else:
        expected = _check_extras(extras, f"{where}.extras", game, playing, winner)
        if json.dumps(points) != json.dumps(expected):
            raise ArchiveError(
                _("%(where)s is %(found)s, but its game's rules give %(expected)s for its winner and extra facts.")
                % {"where": f"{where}.points", "found": json.dumps(points), "expected": json.dumps(expected)}
            )
    return HandEntry(
        {
            "number": number,
            "status": status,
            "dealer_position": read_whole(entry, "dealer_position", f"{where}.dealer_position", 0, last_seat),
            "extras": extras,
            "points": points,
            "running": entry["running"],  # checked by check_replay
            "threshold_after": entry["threshold_after"],
            "recorded_at": read_moment(entry, "recorded_at", f"{where}.recorded_at"),
            "recorded_by_phone": read_text(entry, "recorded_by_phone", f"{where}.recorded_by_phone", PHONE_MAX_LENGTH),
            "recorded_by_seat": read_whole(entry, "recorded_by_seat", f"{where}.recorded_by_seat", 0, last_seat, True),
            "corrected_at": read_moment(entry, "corrected_at", f"{where}.corrected_at", optional=True),
            "corrected_by_phone": read_text(
                entry, "corrected_by_phone", f"{where}.corrected_by_phone", PHONE_MAX_LENGTH
            ),
            "corrected_by_seat": read_whole(
                entry, "corrected_by_seat", f"{where}.corrected_by_seat", 0, last_seat, True
            ),
            "stamp": read_text(entry, "stamp", f"{where}.stamp", STAMP_MAX_LENGTH),
        },
        winner,
    )


def _check_extras(extras: dict, where: str, game: rules.Game, playing: seating.Hand, winner: int) -> list[int]:
    """The extras as the game's questions record them (seats 0-based, sorted); returns the points the
    rules give for them."""
    seat_keys = {q.key for q in game.questions if q.kind == "seats"}
    posted = {}
    for key, value in extras.items():
        if key in seat_keys and isinstance(value, list) and all(is_whole(seat) for seat in value):
            value = [seat + 1 for seat in value]  # the questions take seats as tapped: 1-based
        posted[key] = value
    if winner not in playing.seats:
        raise problem_at(where, _("Seat %(seat)d does not play this hand.") % {"seat": winner + 1})
    try:
        cleaned, points = seating.score(game, playing, winner, posted)
    except rules.RuleError as error:
        raise problem_at(where, rule_message(error)) from None
    stored = as_stored(cleaned)
    if json.dumps(stored, sort_keys=True) != json.dumps(extras, sort_keys=True):  # so true is not 1
        raise ArchiveError(
            _("%(where)s is %(found)s, which this server records as %(expected)s.")
            % {"where": where, "found": json.dumps(extras), "expected": json.dumps(stored)}
        )
    return points


def check_replay(
    entry: dict,
    where: str,
    seats: list[dict],
    hands: list[HandEntry],
    match_end: rules.MatchEnd,
    ended_how: str,
    finished: bool,
    stays: list[seating.Stay],
) -> None:
    """Replay the hands as Sitting._recompute does; what the file says the models derived must agree."""
    played = [
        Played(hand.winner, hand.fields["points"], seating.playing(stays, hand.fields["number"])) for hand in hands
    ]
    replayed = replay(len(seats), match_end, played)
    for number, progress in enumerate(replayed.after):
        hand = hands[number]
        at = f"{where}.hands[{number}]"
        _agree(f"{at}.running", hand.fields["running"], list(progress.totals))
        _agree(f"{at}.threshold_after", hand.fields["threshold_after"], progress.threshold)
    progress = replayed.final
    for position, seat in enumerate(seats):
        at = f"{where}.seats[{position}]"
        _agree(f"{at}.total", seat["total"], progress.totals[position])
        _agree(f"{at}.hands_won", seat["hands_won"], progress.wins[position])
    _agree(f"{where}.threshold", entry["threshold"], progress.threshold)
    _agree(f"{where}.tied_at", entry["tied_at"], progress.tied_at)
    if ended_how != Sitting.EndedHow.ENDED_EARLY:
        if progress.over and ended_how != Sitting.EndedHow.MATCH_END:
            raise ArchiveError(
                _(
                    "%(where)s is in progress, but its hands reach its match end: it ended "
                    '("match-end", with finished_at).'
                )
                % {"where": where}
            )
        if not progress.over and ended_how == Sitting.EndedHow.MATCH_END:
            raise ArchiveError(
                _("%(where)s says its match end was reached, but its hands do not reach it.") % {"where": where}
            )
    if finished:  # kept once the match ends (a match reopened since keeps the one it had)
        runs = best_runs([hand.winner for hand in hands], len(seats))
        for position, seat in enumerate(seats):
            _agree(f"{where}.seats[{position}].best_run", seat["best_run"], runs[position])


def check_dealers(where: str, game: rules.Game, hands: list[HandEntry], stays: list[seating.Stay]) -> None:
    """Each dealer is the one the rules name after the hand before (the first seat playing deals hand 1);
    after a corrected winner any seat may have dealt, as the table showed it then."""
    expected = seating.playing(stays, 1)[0]
    for number, hand in enumerate(hands):
        found = hand.fields["dealer_position"]
        if expected is not None and found != expected:
            raise ArchiveError(
                _(
                    "%(where)s is %(found)d, but by its game's rules seat %(expected)d deals this hand "
                    "(the first seat deals hand 1; then it follows who dealt and who won the hand before)."
                )
                % {"where": f"{where}.hands[{number}].dealer_position", "found": found, "expected": expected}
            )
        corrected = hand.fields["corrected_at"] is not None
        after = seating.playing(stays, hand.fields["number"] + 1)
        expected = None if corrected or hand.winner is None else seating.dealer_after(game, after, found, hand.winner)


def abandoned_error(where: str) -> ArchiveError:
    return ArchiveError(
        _(
            "%(where)s: a hand is abandoned only when a member ends the match, and a match ended that way "
            "ends on that hand (no winner, no points)."
        )
        % {"where": where}
    )


def _agree(where: str, found: object, expected: object) -> None:
    """`found` is `expected`, as JSON writes them (so 1.0 or true is not 1)."""
    if json.dumps(found) != json.dumps(expected):
        raise ArchiveError(
            _("%(where)s is %(found)s, but replaying the match's hands by its game's rules gives %(expected)s.")
            % {"where": where, "found": shown(found, length=120), "expected": shown(expected, length=120)}
        )
