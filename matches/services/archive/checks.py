"""An archive checked through and through: the group, its players, its matches and their seats (the
hands: hands.py). Nothing is written here."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from matches.domain import rules, seating
from matches.domain.capacity import GROUP_HANDS, GROUP_MATCHES, GROUP_PLAYERS, MATCH_HANDS
from matches.domain.errors import BadInput
from matches.domain.money import in_smallest_units
from matches.domain.names import (
    GROUP_NAME_MAX_LENGTH,
    NAME_MAX_LENGTH,
    clean_name,
    group_name_refusal,
    name_key,
    name_refusal,
    repeats,
)
from matches.models import STAKE_LABEL_MAX_LENGTH, Sitting, check_match_end, check_options
from matches.services.wording import refusal_sentence
from matches.services.archive.fields import in_whole_units
from matches.services.archive.fields import (
    FORMAT,
    GROUP_FIELDS,
    INT_MAX,
    PLAYER_FIELDS,
    SEAT_FIELDS,
    SITTING_FIELDS,
    MONEY,
    VERSION,
    ZONE,
    ArchiveError,
    check_fields,
    counted,
    fail_type,
    fail_unclean,
    is_whole,
    problem_at,
    read_choice,
    read_flag,
    read_list,
    read_moment,
    read_object,
    read_text,
    read_whole,
    read_zone,
    shown,
    whole_kind,
)
from matches.services.archive.payments import TAB_FIELDS, checked_tab
from matches.services.archive.reading import check_values
from matches.services.archive.changes import check_counts, read_changes, read_player_changes, read_receipts, read_stays
from matches.services.archive.hands import HandEntry, abandoned_error, check_dealers, check_replay, read_hand
from matches.services.wording import rule_message


@dataclass
class PlayerEntry:
    name: str
    left: bool
    erased: bool
    changes: list[dict]


@dataclass
class SittingEntry:
    fields: dict  # Sitting's fields, but next_sitting: an index or None
    next_sitting: int | None
    seats: list[dict] = field(default_factory=list)  # Seat's fields, player: an index
    hands: list[HandEntry] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)  # TableChange's fields, seat: a position
    receipts: list[dict] = field(default_factory=list)  # Receipt's fields


def checked_archive(
    data: object,
) -> tuple[str, datetime.datetime, datetime.datetime, list[PlayerEntry], list[SittingEntry]]:
    """The archive's contents, every field checked (raises ArchiveError)."""
    check_values(data)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError(
            _('This file is not a Last Trick group archive: its "format" should be "%(format)s".') % {"format": FORMAT}
        )
    if data.get("version") != VERSION or type(data.get("version")) is not int:  # (not true, not 1.0)
        raise ArchiveError(
            _("This archive is version %(found)s of the format; this server reads version %(known)d only.")
            % {"found": shown(data.get("version")), "known": VERSION}
        )
    check_fields(data, _("The archive"), GROUP_FIELDS, optional=(ZONE, MONEY, *TAB_FIELDS))
    whole_units = in_whole_units(data)
    name = read_text(data, "name", "name", GROUP_NAME_MAX_LENGTH)
    if name != clean_name(name):
        fail_unclean("name", name)
    if (refusal := group_name_refusal(name)) is not None:  # as Group.create refuses it
        raise ArchiveError(f"name: {refusal_sentence(refusal)}")
    created_at = read_moment(data, "created_at", "created_at")
    changed_at = read_moment(data, "changed_at", "changed_at")
    listed = read_list(data, "players", "players")
    if len(listed) > GROUP_PLAYERS:
        raise ArchiveError(
            _("The archive lists %(count)s players: a group keeps at most %(max)s.")
            % {"count": counted(len(listed)), "max": counted(GROUP_PLAYERS)}
        )
    players = [_player(entry, f"players[{number}]") for number, entry in enumerate(listed)]
    _distinct_members(players)
    entries = read_list(data, "sittings", "sittings")
    if len(entries) > GROUP_MATCHES:
        raise ArchiveError(
            _("The archive lists %(count)s matches: a group keeps at most %(max)s.")
            % {"count": counted(len(entries)), "max": counted(GROUP_MATCHES)}
        )
    listed_hands = sum(len(e["hands"]) for e in entries if isinstance(e, dict) and isinstance(e.get("hands"), list))
    if listed_hands > GROUP_HANDS + len(entries):  # (each match may end on an abandoned hand)
        _too_many_hands()
    sittings, won = [], 0
    for number, entry in enumerate(entries):
        sittings.append(_sitting(entry, f"sittings[{number}]", len(players), len(entries), whole_units))
        won += sum(hand.winner is not None for hand in sittings[-1].hands)
        if won > GROUP_HANDS:
            _too_many_hands()
    rematched: dict[int, int] = {}
    for number, sitting in enumerate(sittings):
        target = sitting.next_sitting
        if target is None:
            continue
        if target <= number or target in rematched or sittings[target].fields["game"] != sitting.fields["game"]:
            raise ArchiveError(
                _(
                    "sittings[%(number)d].next_sitting is %(target)d: a rematch is a later match of the file, "
                    "of the same game, and each match is the rematch of one match at most."
                )
                % {"number": number, "target": target}
            )
        rematched[target] = number
    checked_tab(data, len(players))  # (importing reads it again to write it)
    return name, created_at, changed_at, players, sittings


def _too_many_hands() -> None:
    raise ArchiveError(
        _("The archive's matches hold more hands than a group keeps (%(max)s at most).")
        % {"max": counted(GROUP_HANDS)}
    )


def _player(entry: object, where: str) -> PlayerEntry:
    entry = read_object(entry, where)
    check_fields(entry, where, PLAYER_FIELDS, optional=("changes",))
    name = read_text(entry, "name", f"{where}.name", NAME_MAX_LENGTH)
    refusal = name_refusal(name)
    if refusal is not None and refusal.code != "name_mixed_scripts":  # (too long: read_text said so)
        # (a name mixing alphabets may be older than that rule: the group keeps it, as it kept it)
        if refusal.code != "name_blank":  # a character no one typed
            raise ArchiveError(f"{where}.name: {refusal_sentence(refusal)}")
        raise ArchiveError(
            _("%(where)s.name is not a name: it needs a letter, a digit or a symbol.") % {"where": where}
        )
    if name != clean_name(name):
        fail_unclean(f"{where}.name", name)
    left, erased = read_flag(entry, "left", f"{where}.left"), read_flag(entry, "erased", f"{where}.erased")
    player = PlayerEntry(name, left, erased, read_player_changes(entry, where, erased))
    if player.erased and not player.left:
        raise ArchiveError(
            _("%(where)s is erased but not left: an erased player is off the list too (left: true).") % {"where": where}
        )
    return player


def _distinct_members(players: list[PlayerEntry]) -> None:
    """No two of the group's players (members, former, erased) name the same player (names.repeats):
    a newcomer of a former player's name is that player back."""
    if repeat := next(repeats([player.name for player in players]), None):
        first, second = repeat
        raise ArchiveError(
            _("players[%(first)d] (%(name)s) and players[%(second)d] (%(again)s) name the same player: rename one.")
            % {"first": first, "second": second, "name": players[first].name, "again": players[second].name}
        )
    keys = {name_key(player.name): number for number, player in enumerate(players)}
    for number, player in enumerate(players):  # as Group.not_renamed_from: nobody takes another's former name
        for change in player.changes:
            other = keys.get(name_key(change["before"])) if change["verb"] == "renamed" else None
            if other is not None and other != number:
                raise ArchiveError(
                    _("players[%(other)d] (%(name)s) has the name players[%(number)d] (%(renamed)s) had before a "
                      "rename: rename one.")
                    % {"other": other, "name": players[other].name, "number": number, "renamed": player.name}
                )


def _sitting(entry: object, where: str, n_players: int, n_sittings: int, whole_units: bool = False) -> SittingEntry:
    entry = read_object(entry, where)
    check_fields(entry, where, SITTING_FIELDS, optional=(ZONE, "table_changes", "receipts"))
    slug = read_text(entry, "game", f"{where}.game", 20)
    game = rules.GAMES.get(slug)
    if game is None:
        raise ArchiveError(
            _('%(where)s.game is "%(game)s", a game this server does not know (it knows %(known)s).')
            % {"where": where, "game": slug, "known": ", ".join(rules.GAMES)}
        )
    kind = read_choice(entry, "end_kind", f"{where}.end_kind", [k.value for k in rules.MatchEndKind])
    target = read_whole(entry, "end_target", f"{where}.end_target", 1, INT_MAX, optional=True)
    try:
        match_end = rules.MatchEnd(rules.MatchEndKind(kind), target)
    except rules.RuleError as error:
        raise problem_at(f"{where}.end_target", rule_message(error)) from None
    try:
        check_match_end(game, match_end)
    except BadInput as refusal:
        raise problem_at(f"{where}.end_kind", refusal_sentence(refusal)) from None
    options = {
        "starting_chips": read_whole(entry, "starting_chips", f"{where}.starting_chips", 1, INT_MAX, optional=True),
        "stake_amount": read_whole(entry, "stake_amount", f"{where}.stake_amount", 1, INT_MAX, optional=True),
        "stake_label": read_text(entry, "stake_label", f"{where}.stake_label", STAKE_LABEL_MAX_LENGTH),
    }
    if options["stake_label"] != clean_name(options["stake_label"]):  # as the start form keeps it
        fail_unclean(f"{where}.stake_label", options["stake_label"])
    if whole_units and options["stake_amount"]:
        options["stake_amount"] = in_smallest_units(options["stake_amount"], options["stake_label"])
    try:
        if check_options(game, **options) != options:  # a chips game without its starting chips
            fail_type(f"{where}.starting_chips", None, whole_kind(1, INT_MAX))
    except BadInput as refusal:
        raise problem_at(where, refusal_sentence(refusal)) from None
    players = [read_object(seat, f"{where}.seats[{p}]") for p, seat in enumerate(read_list(entry, "seats", f"{where}.seats"))]
    listed = read_list(entry, "hands", f"{where}.hands")
    seats = [_seat(seat, f"{where}.seats[{p}]", n_players) for p, seat in enumerate(players)]
    stays = read_stays(seats, players, where, len(listed) + 1)
    check_counts(game, stays, where, len(listed) + 1)
    for position, seat in enumerate(seats):
        if any(other["player"] == seat["player"] for other in seats[:position]):
            raise ArchiveError(
                _("%(where)s is players[%(player)d] again: each player holds one seat.")
                % {"where": f"{where}.seats[{position}].player", "player": seat["player"]}
            )
    n_seats = len(seats)
    if len(listed) > MATCH_HANDS + 1:  # (a member's end may leave an abandoned hand after the last)
        _too_many_match_hands(where, len(listed))
    hands = [
        read_hand(hand, f"{where}.hands[{number - 1}]", number, game, seating.Hand(seating.playing(stays, number), n_seats))
        for number, hand in enumerate(listed, start=1)
    ]
    if (won := sum(hand.winner is not None for hand in hands)) > MATCH_HANDS:
        _too_many_match_hands(where, won)
    ended_how = read_choice(entry, "ended_how", f"{where}.ended_how", list(Sitting.EndedHow.values))
    finished_at = read_moment(entry, "finished_at", f"{where}.finished_at", optional=True)
    if (finished_at is None) != (ended_how == Sitting.EndedHow.PLAYING):
        raise ArchiveError(
            _(
                "%(where)s has ended_how %(how)s and finished_at %(at)s: a finished match has both, "
                'a match in progress neither ("" and null).'
            )
            % {"where": where, "how": json.dumps(ended_how), "at": shown(entry["finished_at"])}
        )
    ended_early = ended_how == Sitting.EndedHow.ENDED_EARLY
    for number, hand in enumerate(hands):
        if hand.winner is None and not (ended_early and number == len(hands) - 1):
            raise abandoned_error(f"{where}.hands[{number}]")
    # Ended early right after an undo: no hand was being played, none abandoned (models: Sitting.reopened).
    reopened = len(hands) + 1 if ended_early and (not hands or hands[-1].winner is not None) else None
    check_replay(entry, where, seats, hands, match_end, ended_how, finished_at is not None, stays)
    check_dealers(where, game, hands, stays)
    changes = read_changes(entry, where, n_seats, len(hands) + 1)
    receipts = read_receipts(entry, where, n_seats)
    chips_reissued = read_whole(entry, "chips_reissued", f"{where}.chips_reissued", 0, INT_MAX)
    if chips_reissued and not game.uses_chips:
        raise problem_at(f"{where}.chips_reissued", _("%(game)s is not played with chips.") % {"game": _(game.name)})
    batches = read_list(entry, "reissued_before", f"{where}.reissued_before")
    open_number = len(hands) + 1
    if (
        len(batches) != chips_reissued
        or any(not is_whole(b) or not 1 <= b <= open_number for b in batches)
        or batches != sorted(batches)
    ):
        raise ArchiveError(
            _(
                "%(where)s.reissued_before should list, for each of the %(count)d batches of chips re-issued, "
                "the hand open then (1 to %(open)d), in order."
            )
            % {"where": where, "count": chips_reissued, "open": open_number}
        )
    fields = {
        "game": slug,
        "end_kind": kind,
        "end_target": target,
        **options,
        "chips_reissued": chips_reissued,
        "reissued_before": list(batches),
        "threshold": entry["threshold"],
        "tied_at": entry["tied_at"],
        "started_at": read_moment(entry, "started_at", f"{where}.started_at"),
        "changed_at": read_moment(entry, "changed_at", f"{where}.changed_at"),
        "finished_at": finished_at,
        "ended_how": ended_how,
        "time_zone": read_zone(entry, f"{where}.{ZONE}"),
        "reopened": reopened,
        "changes": len(changes),
    }
    rematch = read_whole(entry, "next_sitting", f"{where}.next_sitting", 0, n_sittings - 1, optional=True)
    return SittingEntry(fields, rematch, seats, hands, changes, receipts)


def _too_many_match_hands(where: str, count: int) -> None:
    raise ArchiveError(
        _("%(where)s holds %(count)s hands: a match keeps at most %(max)s.")
        % {"where": f"{where}.hands", "count": counted(count), "max": counted(MATCH_HANDS)}
    )


def _seat(entry: object, where: str, n_players: int) -> dict:
    check_fields(entry, where, SEAT_FIELDS, optional=("joined", "left"))
    if n_players == 0:
        raise ArchiveError(
            _("%(where)s.player: the file lists no players, so nobody can be seated.") % {"where": where}
        )
    return {
        "player": read_whole(entry, "player", f"{where}.player", 0, n_players - 1),
        "total": read_whole(entry, "total", f"{where}.total", -INT_MAX, INT_MAX),
        "hands_won": read_whole(entry, "hands_won", f"{where}.hands_won", 0, INT_MAX),
        "best_run": read_whole(entry, "best_run", f"{where}.best_run", 0, INT_MAX),
    }
