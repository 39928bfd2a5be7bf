"""A sitting's hands replayed into what is kept from them (a mixin of Sitting): after a correction or an
undo, every hand's running totals, the seats' totals and wins, the threshold and the match's end, each
written only where it changed; and the seats' best runs once the match ends."""

from __future__ import annotations

from matches.domain.errors import Conflict
from matches.domain.replay import Played, best_runs, replay
from matches.models.hands import Hand
from matches.models.seats import Seat
from matches.models.table import Table


class ReplayWrites:
    """The replay's writes, in the transaction of the verb that locked the sitting (SittingVerbs)."""

    def _recompute(self, seats: list[Seat], corrected: int | None = None, **reopened: object) -> None:
        """Replay every hand into totals, running totals, threshold and match end (after a correction or
        undo, which names the hand it `reopened`). Raises Conflict when the replay ends the match before a
        later won hand."""
        position = {seat.pk: seat.position for seat in seats}
        hands = list(self.hands.order_by("number"))
        table = Table(self, seats, [])
        played = [Played(position.get(h.winner_id), h.points, table.playing_hand(h.number)) for h in hands]
        replayed = replay(len(seats), self.match_end, played)
        if replayed.ended_at is not None and any(h.winner_id for h in hands[replayed.ended_at + 1 :]):
            end, last = hands[replayed.ended_at].number, hands[-1].number
            # An undo cannot reach back past a change of who plays (Table.can_undo): then no undo helps.
            stuck = any(stay.joined > end + 1 or (stay.left or 0) > end + 1 for stay in table.stays)
            code = "ends_before_changed_table" if stuck else "ends_before_later_hands"
            raise Conflict(code, end=end, next=end + 1, last=last, number=corrected or end)
        if corrected and self.is_finished and not replayed.final.over and self.next_sitting_id:
            raise Conflict("reopens_rematched", number=corrected)  # it would play on beside its rematch
        moved = []  # only the hands whose running totals changed are written (an undo of the last: none)
        for hand, after in zip(hands, replayed.after, strict=True):
            if (hand.running, hand.threshold_after) != (list(after.totals), after.threshold):
                hand.running, hand.threshold_after = list(after.totals), after.threshold
                moved.append(hand)
        Hand.objects.bulk_update(moved, ["running", "threshold_after"], batch_size=500)
        if self.changes:  # where each part of a changed table began
            running = {hand.number: hand.running for hand in hands}
            for change in self.table_changes.all():
                change.running = running.get(change.before - 1, [0] * len(seats))
                change.save(update_fields=["running"])
        final = replayed.final
        for seat in seats:
            seat.total, seat.hands_won = final.totals[seat.position], final.wins[seat.position]
        Seat.objects.bulk_update(seats, ["total", "hands_won"])
        self._save_progress(final, seats, **reopened)

    def _store_best_runs(self, seats: list[Seat]) -> None:
        """Each seat's longest run of hands won, for the group's figures: kept when the match ends."""
        position = {seat.pk: seat.position for seat in seats}
        winners = [position.get(w) for w in self.hands.order_by("number").values_list("winner_id", flat=True)]
        for seat, run in zip(seats, best_runs(winners, len(seats)), strict=True):
            seat.best_run = run
        Seat.objects.bulk_update(seats, ["best_run"])
