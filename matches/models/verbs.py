"""The verbs that change a sitting: each one transaction on the locked sitting row, returning a small
result or raising a coded refusal (matches.domain.errors) with nothing written. Two phones tapping
at once are serialised: select_for_update on PostgreSQL, the IMMEDIATE transaction's lock on SQLite."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Self

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from matches.domain import rules, seating
from matches.domain.capacity import GROUP_HANDS, MATCH_HANDS
from matches.domain.errors import AlreadyRecorded, BadInput, Conflict
from matches.models import announce, quick_reads
from matches.models.choices import EndedHow
from matches.models.hands import Hand, as_stored
from matches.models.options import check_match_end, check_options, sitting_options
from matches.models.players import ANYONE, Player, Recorder
from matches.models.receipts import Receipt, Repeated, UndoneSince, as_kept, keyed, undos_since
from matches.models.seats import Seat
from matches.models.table import HANDS_ON_TABLE, Table
from matches.models.tokens import new_stamp
from matches.models.zones import clean_zone


# Faster than anyone reads a changed table: a tap this soon after another phone recorded the last hand was
# most likely for that same hand.
RIGHT_AFTER = timedelta(seconds=4)


class GroupMoved(Exception):
    """The sitting joined a group after this copy was read: its verb runs again, the group locked first."""


def group_first(verb):
    """Run `verb` again when, under the sitting's lock, the sitting turned out to be in a group this copy
    did not know (saved to it meanwhile): a group locked after its sitting could deadlock with a verb that
    locks them in order. A sitting never leaves its group, so the second run holds."""

    @functools.wraps(verb)
    def run(self, *args, **kwargs):
        try:
            return verb(self, *args, **kwargs)
        except GroupMoved:
            return verb(self, *args, **kwargs)  # (group_id as read under the first run's lock)

    return run


@dataclass(frozen=True)
class Recorded:
    """What record_hand did: the hand's row and the threshold and match state before the tap;
    `again`: already recorded as this tap says (a retry, or two phones agreeing); `table`: the match table
    as the tap left it (read under its lock, the new hand added), None when `again`."""

    hand: Hand
    threshold_before: int | None
    finished_before: bool
    again: bool = False
    table: Table | None = None


class SittingVerbs:
    """The verbs of Sitting (a mixin, to keep the model's module short)."""

    @classmethod
    def start(
        cls,
        game: str,
        names: Sequence[str],
        match_end: rules.MatchEnd | None = None,
        *,
        starting_chips: int | None = None,
        stake_amount: int | None = None,
        stake_label: str = "",
        time_zone: str = "",
    ) -> Self:
        """Open a sitting of `game` seated in `names` order; `match_end` defaults to the game's; `time_zone`
        the phone's IANA zone. Raises BadInput for an unknown game, a bad player count or setting."""
        players = [Player(name=name) for name in names]
        options = sitting_options(starting_chips, stake_amount, stake_label)
        return cls._seat(game, players, match_end, options, time_zone=time_zone)

    @classmethod
    def _seat(cls, game, players: list[Player], match_end, options: dict, group=None, time_zone="") -> Self:
        try:
            entry = rules.get_game(game)
            entry.check_player_count(len(players))
        except rules.RuleError as error:
            raise BadInput("rule", error=error) from None
        match_end = check_match_end(entry, match_end)
        fields = check_options(entry, **options)
        with transaction.atomic():
            sitting = cls.objects.create(
                game=game,
                group=group,
                time_zone=clean_zone(time_zone),
                end_kind=match_end.kind.value,
                end_target=match_end.target,
                threshold=rules.Progress.start(len(players), match_end).threshold,
                **fields,
            )
            for player in players:
                if player.pk is None:
                    player.save()
            Seat.objects.bulk_create(
                Seat(sitting=sitting, player=player, position=position) for position, player in enumerate(players)
            )
        return sitting

    @group_first
    def record_hand(
        self,
        number: int,
        winner: int,
        extras: Mapping | None = None,
        by: Recorder = ANYONE,
        key: str = "",
        seen: int | None = None,
        sure: bool = False,
    ) -> Recorded:
        """Record hand `number` won by seat `winner` (0-based) with `extras`; `by` is the tapping phone, `key`
        the tap's, `seen` the version its page showed. Idempotent (`again`; Repeated for a key seen before).
        Raises AlreadyRecorded, UndoneSince (the hand was undone after `seen`), Conflict (over, not the
        open hand, or `tap_right_after` unless `sure`) or BadInput. Source: RULES.md, Common to every game. A
        match keeps MATCH_HANDS hands, a group GROUP_HANDS."""
        try:
            with transaction.atomic():
                seats, group_hands = self._lock_with_group()
                if seen is not None and seen > self.version:  # no page showed it: the checks below would trust it
                    raise BadInput("version_unseen")
                before = (self.threshold, self.is_finished)
                # What the answer shows, read here once: the newest hands, and the chart as this tap leaves it.
                table = Table(self, seats, *self._read_hands(seats, HANDS_ON_TABLE, ahead=1))
                # A phone showing the current version made this tap after every change so far: no copy of it
                # and no undo since can be kept yet, so no receipt is read (a reused key fails the index).
                undone = None
                if seen != self.version:
                    undos = undos_since(number, seen, by.phone, table.open_number) if seen is not None else None
                    undone = self._check_key(key, undos)  # (a copy of this tap: Repeated) in one read with the undos
                hand = self._same_as_recorded(table, number, winner, extras)
                if hand is not None:
                    return Recorded(hand, *before, again=True)
                if undone is not None:
                    raise UndoneSince(undone)
                if seen == self.version and not sure:
                    self._check_not_right_after(table, number, by)
                hand = self._record(table, number, winner, extras, by, group_hands)
                self._receipt(Receipt.Verb.TAP, key, number, by, after=as_kept(hand, seats), last=number)
                newest = [hand, *table.recent_hands][:HANDS_ON_TABLE]
                return Recorded(hand, *before, table=Table(self, seats, newest, {**table.drawn_hands, number: hand}))
        except IntegrityError:  # another phone won the race for this hand number, or the key was used before
            copy = self.receipts.filter(keyed(key)).first() if key else None
            if copy is not None:
                raise Repeated(copy) from None
            raise self._already_recorded(number) from None

    def _check_not_right_after(self, table: Table, number: int, by: Recorder) -> None:
        """Two people tap the same hand on two phones: when the first tap's table reaches the second phone
        before the finger lands, the second tap is for the next hand. A tap for the open hand within
        RIGHT_AFTER of another phone's recording the last one is held back until its phone taps again."""
        last = table.last_hand
        if number != table.open_number or self.is_finished or last is None or last.winner_id is None:
            return
        if last.corrected_at is not None:
            return
        if not last.recorded_by_phone or last.recorded_by_phone == by.phone:
            return
        if timezone.now() - last.recorded_at < RIGHT_AFTER:
            raise Conflict("tap_right_after", number=last.number, winner=table.name_of(last.winner_id), open=number)

    def _same_as_recorded(self, table: Table, number: int, winner: int, extras: Mapping | None) -> Hand | None:
        """The recorded row of hand `number` when it says what this tap says, else None."""
        if not 1 <= number < table.open_number or not 0 <= winner < len(table.seats):
            return None
        hand = self.hands.filter(number=number).first()
        if hand is None or hand.winner_id != table.seats[winner].pk:
            return None
        try:
            cleaned, _points = self._score(table, number, winner, extras)
        except BadInput:
            return None
        return hand if as_stored(cleaned) == hand.extras else None

    def _record(
        self, table: Table, number: int, winner: int, extras: Mapping | None, by: Recorder, group_hands: int = 0
    ) -> Hand:
        self._check_open(table, number)
        if number > MATCH_HANDS:
            raise Conflict("match_hands_full", max=MATCH_HANDS)
        if group_hands >= GROUP_HANDS:
            raise Conflict("group_hands_full", max=GROUP_HANDS)
        cleaned, points = self._score(table, number, winner, extras)
        progress = table.progress().after(self.match_end, winner, points, table.playing)
        hand = Hand.objects.create(
            sitting=self,
            number=number,
            status=Hand.Status.WON,
            winner=table.seats[winner],
            dealer_position=table.dealer,
            extras=cleaned,
            points=list(points),
            running=list(progress.totals),
            threshold_after=progress.threshold,
            recorded_by_phone=by.phone,
            recorded_by_seat=by.seat,
        )
        self._count_in_group(1)
        for seat, gained in zip(table.seats, points, strict=True):
            won = int(seat.position == winner)
            if gained or won:  # One short UPDATE per moved seat: most games move only one.
                seat.total, seat.hands_won = seat.total + gained, seat.hands_won + won
                # The seat was read under the sitting's lock, which every change of a seat takes first.
                Seat.objects.filter(pk=seat.pk).update(total=seat.total, hands_won=seat.hands_won)
        self._save_progress(progress, table.seats, **({"reopened": None} if self.reopened else {}))
        return hand

    def correct_hand(
        self,
        number: int,
        winner: int,
        extras: Mapping | None = None,
        by: Recorder = ANYONE,
        stamp: str | None = None,
        key: str = "",
    ) -> Hand:
        """Change a recorded hand's winner or answers and replay what follows (may reopen the match).
        `stamp` as the phone saw it: changed since -> Conflict unless it already matches (a retry).
        Raises Conflict when a member ended the match or the hand was not won, BadInput when the hand
        says this already."""
        with transaction.atomic():
            seats = self._lock()
            self._check_key(key)
            if self.is_final:
                raise Conflict("match_ended")
            hand = self.hands.won().filter(number=number).first()
            if hand is None:
                raise Conflict("correct_unrecorded", number=number)
            cleaned, points = self._score(Table(self, seats, []), number, winner, extras)
            if stamp is not None and stamp != hand.stamp:
                if hand.winner_id == seats[winner].pk and hand.extras == as_stored(cleaned):
                    return hand
                now = next(seat.name for seat in seats if seat.pk == hand.winner_id)
                raise Conflict("correct_changed", number=number, winner=now)
            if hand.winner_id == seats[winner].pk and hand.extras == as_stored(cleaned):
                raise BadInput("correct_unchanged", number=number)  # no receipt, no "corrected at"
            before = as_kept(hand, seats)
            hand.winner, hand.extras, hand.points = seats[winner], cleaned, list(points)
            hand.corrected_at, hand.stamp = timezone.now(), new_stamp()
            hand.corrected_by_phone, hand.corrected_by_seat = by.phone, by.seat
            hand.save()
            self._recompute(seats, corrected=number)
            last = sum(seat.hands_won for seat in seats)
            self._receipt(Receipt.Verb.CORRECT, key, number, by, before=before, after=as_kept(hand, seats), last=last)
        return hand

    @group_first
    def undo_hand(self, number: int, stamp: str | None = None, key: str = "", by: Recorder = ANYONE) -> Hand:
        """Remove the last recorded hand `number` and return its row; `stamp` as in correct_hand. Reopens a
        match its rule ended (not a member's end); chips handed out after it are redated. Else Conflict."""
        with transaction.atomic():
            seats, _ = self._lock_with_group()
            self._check_key(key)
            if self.is_final:
                raise Conflict("match_ended")
            if self.is_finished and (self.next_sitting_id or self.rematch_unlinked()):  # undone, it would play on
                raise Conflict("undo_rematched", number=number)  # beside its rematch, which its ending began
            table = Table(self, seats, *self._read_hands(seats, 1, chart=False))
            last = table.last_hand
            gone = last is None or number > last.number
            done = None
            if gone and stamp is not None:  # this screen saw it recorded: since, this phone or another undid it?
                done = self.receipts.filter(verb=Receipt.Verb.UNDO, number=number).last()
            if done is not None:
                raise Conflict("undo_done_here" if done.made_by(by) else "undo_done_elsewhere", number=number)
            if last is None:
                raise Conflict("nothing_to_undo")
            if number > last.number:
                raise Conflict("undo_unrecorded", number=number)
            if last.number != number:
                raise Conflict("undo_not_last", number=number)
            if self.table_changes.filter(before__gt=number).exclude(kind="renamed").exists():
                raise Conflict("undo_table_changed", number=number)
            if stamp is not None and stamp != last.stamp:
                raise Conflict("undo_changed", number=number, winner=table.name_of(last.winner_id))
            last.delete()
            self._count_in_group(-1)
            self.table_changes.filter(before__gt=number).update(before=number)  # renames: made before the open hand
            if any(batch > number for batch in self.reissued_before):
                self._update(reissued_before=[min(batch, number) for batch in self.reissued_before])
            self._recompute(seats, reopened=number)
            self._receipt(Receipt.Verb.UNDO, key, number, by, before=as_kept(last, seats), last=number)
        return last

    @group_first
    def end_match(self, open_number: int | None = None, key: str = "", by: Recorder = ANYONE) -> None:
        """End the match: the open hand abandoned (unless an undo just reopened it: an undone hand is gone),
        the sitting final; Conflict unless `open_number` is still open."""
        with transaction.atomic():
            seats, _ = self._lock_with_group()
            self._check_key(key)
            if self.is_finished:
                raise Conflict("already_over")
            table = Table(self, seats, *self._read_hands(seats, 1, chart=False))
            if open_number is not None and open_number != table.open_number:
                raise Conflict("end_moved_on", open=table.open_number, seen=open_number)
            if self.reopened != table.open_number:
                Hand.objects.create(
                    sitting=self,
                    number=table.open_number,
                    status=Hand.Status.ABANDONED,
                    winner=None,
                    dealer_position=table.dealer,
                    points=[0] * len(seats),
                    running=[seat.total for seat in seats],
                    threshold_after=self.threshold,
                )
                self._count_in_group(1)
            self._update(finished_at=timezone.now(), ended_how=EndedHow.ENDED_EARLY)
            self._store_best_runs(seats)
            self._receipt(Receipt.Verb.END, key, table.open_number, by, last=table.open_number - 1)

    def _lock(self) -> list[Seat]:
        """Lock and re-read this sitting's row, return its seats; Sitting.DoesNotExist when the link is gone."""
        if connection.vendor == "sqlite":  # the transaction (IMMEDIATE) holds the lock: row and seats in one read
            return self.seated_afresh()
        fresh = quick_reads.locked(type(self), self.token)
        if fresh is None:
            raise type(self).DoesNotExist("no sitting has this link now")
        self.take_row(fresh)
        return self.seated()  # after the lock: a join locking both would read seats from before a racing tap

    def _lock_group(self) -> int:
        """Lock the group's row (before the sitting's, as the group's verbs lock them); its hand count. FOR NO
        KEY UPDATE: rows that refer to the group (a new match, a new player) need not wait for it."""
        groups = self._meta.get_field("group").related_model.objects.select_for_update(no_key=True)
        return next(iter(groups.filter(pk=self.group_id).values_list("hands", flat=True)), 0)

    def _lock_with_group(self) -> tuple[list[Seat], int]:
        """Lock the group (a verb that adds or removes a hand keeps its count), then the sitting: its seats
        and the group's hand count (0 outside a group). GroupMoved when the sitting joined a group after
        this copy was read (see group_first)."""
        grouped = self.group_id
        group_hands = self._lock_group() if grouped is not None else 0
        seats = self._lock()
        if self.group_id != grouped:
            raise GroupMoved
        return seats, group_hands

    def _count_in_group(self, change: int) -> None:
        """Keep the (locked) group's hand count in step with a hand added (1) or removed (-1); never below 0
        (a count written wrong by hand must not stop an undo)."""
        if self.group_id is not None:
            groups = self._meta.get_field("group").related_model.objects
            groups.filter(pk=self.group_id).update(hands=Greatest(F("hands") + change, 0))

    def _update(self, **changes: object) -> None:
        """Write `changes` and the next version to the locked row, and keep them on this copy."""
        changes.update(version=self.version + 1, changed_at=timezone.now())
        type(self).objects.filter(pk=self.pk).update(**changes)
        for name, value in changes.items():
            setattr(self, name, value)
        announce.sitting_changed(self.pk, self.version, self.group_id)  # sent when the transaction commits

    def _score(self, table: Table, number: int, winner: int, extras: Mapping | None) -> tuple[dict, list[int]]:
        """(answers, points per seat) of hand `number` won by seat `winner`, scored among those who play it."""
        if not 0 <= winner < len(table.seats):
            raise BadInput("no_such_seat", seat=winner + 1)
        playing = table.playing_hand(number)
        if winner not in playing:
            raise BadInput("seat_not_playing", seat=winner + 1, name=table.seats[winner].name)
        try:
            return seating.score(self.rules, seating.Hand(playing, len(table.seats)), winner, extras or {})
        except rules.RuleError as error:
            raise BadInput("rule", error=error) from None

    def _check_open(self, table: Table, number: int) -> None:
        # A recorded hand is named first, over or not: the phone reads whose tap stood.
        if number < table.open_number:
            raise self._already_recorded(number)
        if self.is_finished:
            raise Conflict("match_over")
        if number > table.open_number:
            raise Conflict("hand_not_started", number=number, open=table.open_number)

    def _already_recorded(self, number: int) -> AlreadyRecorded:
        hand = self.hands.filter(number=number).select_related("winner__player").first()
        if hand is None or hand.winner is None:
            return AlreadyRecorded("hand_abandoned", number)
        return AlreadyRecorded("hand_recorded", number, winner=hand.winner.player.name)

    def _save_progress(self, progress: rules.Progress, seats: list[Seat], **changes: object) -> None:
        """Store the threshold and match end that `progress` says hold now, `changes`, and a new version."""
        if (progress.threshold, progress.tied_at) != (self.threshold, self.tied_at):
            changes.update(threshold=progress.threshold, tied_at=progress.tied_at)
        if progress.over and not self.is_finished:
            changes.update(finished_at=timezone.now(), ended_how=EndedHow.MATCH_END)
        elif not progress.over and self.is_finished:
            changes.update(finished_at=None, ended_how=EndedHow.PLAYING)
        self._update(**changes)
        if progress.over:
            self._store_best_runs(seats)
