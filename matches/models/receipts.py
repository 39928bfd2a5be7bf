"""What the server kept of each change a phone sent: the change's key, made on the phone when the person
acted, so that a copy of it (a resend whose answer was lost, a waiting tap sent again) is recognised
whenever it arrives and gets the first answer, never a second effect."""

from __future__ import annotations

import functools
import operator

from django.db import models
from django.utils import timezone

from matches.domain.errors import TableError

KEY_MAX_LENGTH = 32


class Receipt(models.Model):
    """One change: its `key` ("" when the phone sent none), `verb`, the hand it was about, which phone,
    when, and the sitting's version once it was made."""

    class Verb(models.TextChoices):
        TAP = "tap"
        UNDO = "undo"
        CORRECT = "correct"
        END = "end"
        CHIPS = "chips"
        REMATCH = "rematch"
        JOIN = "join"
        LEAVE = "leave"
        RENAME = "rename"

    sitting = models.ForeignKey("Sitting", on_delete=models.CASCADE, related_name="receipts")
    key = models.CharField(max_length=KEY_MAX_LENGTH, blank=True)
    verb = models.CharField(max_length=8, choices=Verb.choices)
    number = models.PositiveIntegerField(null=True, blank=True)
    by_phone = models.CharField(max_length=12, blank=True)
    by_seat = models.PositiveSmallIntegerField(null=True, blank=True)  # the seat the phone said it holds
    at = models.DateTimeField(default=timezone.now)
    version = models.PositiveIntegerField()
    # A hand's winner (seat), answers and points before and after the change ({}: no hand), so that
    # nothing that moved money is overwritten without a trace.
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    last = models.PositiveIntegerField(null=True, blank=True)  # the last hand's number when it was made

    class Meta:
        ordering = ["pk"]  # in the order made (an imported match's come first)
        constraints = [
            models.UniqueConstraint(
                fields=["sitting", "key"], condition=~models.Q(key=""), name="one_receipt_per_change_key"
            ),
        ]
        indexes = [models.Index(fields=["sitting", "version"], name="receipts_since_a_version")]  # undos_since

    def __str__(self) -> str:
        return f"{self.verb} {self.number or ''} at version {self.version}"

    def made_by(self, by) -> bool:
        """Whether the phone of Recorder `by` made this change (a phone unknown to the server never did)."""
        return bool(by.phone) and self.by_phone == by.phone


def as_kept(hand, seats) -> dict:
    """What a receipt keeps of a hand: its winner's seat, answers and points ({} for none or abandoned)."""
    if hand is None or hand.winner_id is None:
        return {}
    winner = next(seat.position for seat in seats if seat.pk == hand.winner_id)
    return {"winner": winner, "extras": dict(hand.extras), "points": list(hand.points)}


class Repeated(TableError):
    """A copy of a change already made (its key was seen): `receipt` is what the first one did."""

    status = 200

    def __init__(self, receipt: Receipt):
        super().__init__("repeated", verb=receipt.verb, number=receipt.number)
        self.receipt = receipt


class ReceiptVerbs:
    """The receipt of every change (a mixin of Sitting): checked under the sitting's lock, written in
    the change's transaction."""

    def _check_key(self, key: str, undos: models.Q | None = None) -> Receipt | None:
        """Repeated when this (locked) sitting already made the change of that key; else the newest of the
        `undos` (undos_since's), read in the same query."""
        wanted = [models.Q(sitting=self) & q for q in (keyed(key) if key else None, undos) if q is not None]
        if not wanted:
            return None
        # The sitting in each part: each is its index's search (the key's, the versions'), not a read of them all.
        found = list(Receipt.objects.filter(functools.reduce(operator.or_, wanted)))
        if key and (first := next((receipt for receipt in found if receipt.key == key), None)) is not None:
            raise Repeated(first)
        return found[-1] if found else None  # in the order made

    def _receipt(self, verb: str, key: str, number: int | None, by, **hands: object) -> Receipt:
        """Keep what the change did; `by` the phone (Recorder), `hands` its before, after and last."""
        return Receipt.objects.create(
            sitting=self, key=key, verb=verb, number=number, by_phone=by.phone, by_seat=by.seat, version=self.version,
            **hands,
        )

    def undone_since(self, number: int, seen: int) -> Receipt | None:
        """The undo of hand `number` made after a phone showed version `seen`, if any."""
        return self.receipts.filter(undos_since(number, seen)).last()


def keyed(key: str) -> models.Q:
    """The row of change key `key`, as its partial unique index (keys that are not "") can find it: the
    query must say the key is not "" for the database to use that index."""
    return models.Q(key=key) & ~models.Q(key="")


def undos_since(number: int, seen: int, phone: str = "", open_number: int | None = None) -> models.Q:
    """The undos of hand `number` made after a phone showed version `seen`; not those `phone` made itself
    (it knew: its undo and its tap waited in order on it). With `open_number` below `number` (a tap for a
    hand not open yet), the undos of any hand from the open one on: why it is not open."""
    first = min(number, open_number) if open_number is not None else number
    undos = models.Q(verb=Receipt.Verb.UNDO, number__range=(first, number), version__gt=seen)
    return undos & ~models.Q(by_phone=phone) if phone else undos


class UndoneSince(TableError):
    """A tap for a hand that was undone after the phone showed the table (a late copy, or a tap that
    waited offline): `receipt` is that undo. Nothing is recorded; the phone taps again if it must."""

    status = 409

    def __init__(self, receipt: Receipt):
        super().__init__("tap_undone_since", number=receipt.number)
        self.receipt = receipt
