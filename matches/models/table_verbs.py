"""The verbs around a sitting's hands: the rematch, another stack of chips for everyone, new links (a
mixin of Sitting beside SittingVerbs, each one transaction on the locked sitting row)."""

from __future__ import annotations

from typing import Self

from django.db import models, transaction

from matches.domain.capacity import GROUP_MATCHES
from matches.domain.errors import BadInput, Conflict
from matches.models import announce
from matches.models.options import sitting_options
from matches.models.players import ANYONE, Recorder
from matches.models.receipts import Receipt
from matches.models.table import Table
from matches.models.tokens import new_token
from matches.models.verbs import group_first


class TableVerbs:
    @group_first
    def rematch(self, by: Recorder = ANYONE) -> Self:
        """A new sitting with the same game, players, settings, group and zone; one per sitting (a second
        phone gets the first one's). The seating turns so the next dealer deals hand 1. The match ended
        keeps a receipt of it (which phone, when)."""
        with transaction.atomic():
            seats, _ = self._lock_with_group()  # (the new sitting's row refers to the group)
            if self.next_sitting_id:
                return self.next_sitting
            if self.rematch_unlinked():
                raise Conflict("rematch_unlinked")
            if self.group_id is not None and type(self).objects.filter(group_id=self.group_id).count() >= GROUP_MATCHES:
                raise Conflict("group_matches_full", max=GROUP_MATCHES)
            table = Table(self, seats, *self._read_hands(seats, 1, chart=False))
            playing = table.playing_seats  # (those who left stay out; the dealer deals hand 1)
            dealer = playing.index(table.dealer_seat)
            players = [seat.player for seat in playing[dealer:] + playing[:dealer]]
            options = sitting_options(self.starting_chips, self.stake_amount, self.stake_label)
            new = self._seat(self.game, players, self.match_end, options, group=self.group, time_zone=self.time_zone)
            self._update(next_sitting=new)
            self._receipt(Receipt.Verb.REMATCH, "", None, by)
        return new

    def rematch_unlinked(self) -> bool:
        """Whether this match's rematch was cut off from it (its links made new after a link leaked): it no
        longer leads there, and starts no second rematch."""
        return self.next_sitting_id is None and self.receipts.filter(verb=Receipt.Verb.REMATCH).exists()

    def reissue_chips(self, seen: int, key: str = "", by: Recorder = ANYONE) -> None:
        """Hand every player another starting stack once someone ran out; `seen` batches make a double tap
        issue one. Raises Conflict or BadInput (a count no page showed). Source: RULES.md, Cat Te."""
        with transaction.atomic():
            seats = self._lock()
            self._check_key(key)
            if not self.rules.uses_chips:
                raise BadInput("no_chips", game=self.rules.name)
            if self.is_finished:
                raise Conflict("chips_match_over")
            if seen > self.chips_reissued or seen < 0:
                raise BadInput("chips_unseen")
            if seen < self.chips_reissued:  # since this screen, this phone or another handed chips out
                done = self.receipts.filter(verb=Receipt.Verb.CHIPS).last()
                here = done is not None and done.made_by(by)
                raise Conflict("chips_reissued_here" if here else "chips_reissued_elsewhere")
            table = Table(self, seats, *self._read_hands(seats, 1, chart=False))
            if not table.someone_ran_out:
                raise Conflict("nobody_ran_out")
            self._update(
                chips_reissued=self.chips_reissued + 1,
                reissued_before=[*self.reissued_before, table.open_number],
            )
            self._receipt(Receipt.Verb.CHIPS, key, table.open_number, by, last=table.open_number - 1)

    def claim_seat(self, position: int | None, phone: str) -> None:
        """Phone `phone` says it is the player at seat `position` (None: nobody's); it gives up any other
        seat here. A seat is one phone's: Conflict "seat_claimed" while another holds it (only that phone
        gives it up: no phone can have its changes signed with another player's name)."""
        with transaction.atomic():
            seat = next((seat for seat in self._lock() if seat.position == position), None)
            if seat is not None and seat.claimed_by not in ("", phone):
                raise Conflict("seat_claimed", name=seat.name)
            self.seats.filter(claimed_by=phone).update(claimed_by="")
            if position is not None:
                self.seats.filter(position=position).update(claimed_by=phone)

    def rotate_links(self) -> None:
        """New member and watch links; the old ones stop working at once (a link leaked)."""
        with transaction.atomic():
            self._lock()
            self._update(token=new_token(), watch_token=new_token())
            # The match this one rematches must not lead to the new link either.
            before = type(self).objects.filter(next_sitting=self)
            announce.sittings_changed(list(before.values_list("pk", flat=True)))
            before.update(next_sitting=None, version=models.F("version") + 1)
