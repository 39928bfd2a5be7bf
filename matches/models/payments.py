"""A group's tab: money one player hands another to settle what the group's matches moved, and the
moments the group forgave every balance. Chips are not money: payments are in a stake's currency.

A payment's night is its day on the group's clock (the day "Tonight's settling up" goes by): the
phone that marked it may take it back that same day, never later. A forgiveness is a row of its own
(who, when); the tab counts the matches started and the payments marked after the latest one."""

from __future__ import annotations

import datetime
from collections.abc import Callable

from django.db import models, transaction
from django.utils import timezone

from matches.domain.errors import BadInput, Conflict, TableError
from matches.models.options import STAKE_LABEL_MAX_LENGTH
from matches.models.players import PHONE_MAX_LENGTH
from matches.models.receipts import KEY_MAX_LENGTH, keyed
from matches.models.zones import night_of

LARGEST_PAYMENT = 10**15  # smallest units (matches.domain.money): more than any tab a group at its limits runs up


class Payment(models.Model):
    """`payer` gave `payee` `amount` smallest units of `currency`, as `marked_by_phone` said `at`;
    `taken_back_at` (and by which phone) when that phone said it was a mistake."""

    group = models.ForeignKey("Group", on_delete=models.CASCADE, related_name="payments")
    payer = models.ForeignKey("Player", on_delete=models.CASCADE, related_name="+")
    payee = models.ForeignKey("Player", on_delete=models.CASCADE, related_name="+")
    amount = models.PositiveBigIntegerField()
    currency = models.CharField(max_length=STAKE_LABEL_MAX_LENGTH, blank=True)
    marked_by_phone = models.CharField(max_length=PHONE_MAX_LENGTH, blank=True)
    at = models.DateTimeField(default=timezone.now)
    taken_back_at = models.DateTimeField(null=True, blank=True)
    taken_back_by_phone = models.CharField(max_length=PHONE_MAX_LENGTH, blank=True)
    key = models.CharField(max_length=KEY_MAX_LENGTH, blank=True)  # made on the phone: a resend is no second payment

    class Meta:
        ordering = ["at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["group", "key"], condition=~models.Q(key=""), name="one_payment_per_key"),
        ]

    def __str__(self) -> str:
        return f"{self.payer_id} paid {self.payee_id} {self.amount} {self.currency}"


class Forgiveness(models.Model):
    """The group started every balance at zero `at`, as `by_phone` asked: `balances` are those it wiped off
    ({currency: {player id: balance}}), so that the hands of a match played on across it still count.
    None: forgiven before they were kept (then what counts is what was started and marked after `at`)."""

    group = models.ForeignKey("Group", on_delete=models.CASCADE, related_name="forgivenesses")
    by_phone = models.CharField(max_length=PHONE_MAX_LENGTH, blank=True)
    at = models.DateTimeField(default=timezone.now)
    balances = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["at", "pk"]

    def wiped(self) -> dict[str, dict[int, int]] | None:
        """`balances` by player id (JSON keeps its keys as text); None when they were not kept."""
        if self.balances is None:
            return None
        return {currency: {int(player): owed for player, owed in by.items()} for currency, by in self.balances.items()}


class TabVerbs:
    """Group's verbs on its tab (mixed into Group: each locks the group and moves its version on)."""

    def mark_paid(
        self, payer: int, payee: int, amount: int, currency: str, by: str = "", key: str = "", after: int | None = None
    ) -> Payment:
        """`payer` paid `payee` `amount` of `currency`; a copy of the change of `key` is the first one's
        payment. BadInput: the same player twice, an amount not from 1 to LARGEST_PAYMENT, an overlong
        currency; Conflict: a player not (or no longer) in the group, or a payment of that pair marked
        since the phone read the tab (the payment of pk `after`, the newest it saw). An erased player's
        payments are taken: what they owed, or were owed, stays on the tab."""
        if payer == payee:
            raise BadInput("paid_self")
        if not isinstance(amount, int) or not 0 < amount <= LARGEST_PAYMENT:
            raise BadInput("payment_amount")
        if len(currency) > STAKE_LABEL_MAX_LENGTH or currency != currency.strip():
            raise BadInput("payment_currency")
        with transaction.atomic():
            group = self._lock()
            if key and (first := group.payments.filter(keyed(key)).first()) is not None:
                return first
            if after and not group.payments.filter(pk=after).exists():  # no page showed it (0: none to show)
                raise BadInput("payment_unseen")
            if group.paid_since(payer, payee, currency, after):
                raise Conflict("paid_meanwhile")
            made = Payment.objects.create(
                group=group,
                payer=group._on_tab(payer),
                payee=group._on_tab(payee),
                amount=amount,
                currency=currency,
                marked_by_phone=by[:PHONE_MAX_LENGTH],
                key=key,
                at=timezone.now(),  # the clock take_back reads ("that night"), not the one the field's default kept
            )
            group._touch()
        self._adopt(group)
        return made

    def paid_since(self, payer: int, payee: int, currency: str, after: int | None) -> bool:
        """Whether `payer` was marked paying `payee` in `currency` since the payment of pk `after` (the newest
        a phone saw; None: unknown, an older page)."""
        pair = self.payments.filter(payer_id=payer, payee_id=payee, currency=currency, taken_back_at=None)
        return after is not None and pair.filter(pk__gt=after).exists()

    def unowed(self, payer: int, payee: int, currency: str, after: int) -> TableError:
        """Why a payment the tab does not ask for is refused: the same player twice, a player who is not the
        group's, a payment between these two marked since the phone read the tab (the payment of pk `after`,
        the newest it saw), else nothing is owed between them in `currency` now."""
        if payer == payee:
            return BadInput("paid_self")
        if self.players.filter(pk__in=[payer, payee]).count() != 2:  # erased players too: their debts stay
            return Conflict("not_in_group")
        between = models.Q(payer_id=payer, payee_id=payee) | models.Q(payer_id=payee, payee_id=payer)
        if self.payments.filter(between, currency=currency, pk__gt=after).exists():
            return Conflict("paid_meanwhile")
        return Conflict("not_owed")

    def take_back(self, payment_id: int, by: str = "") -> Payment:
        """Undo a payment marked by mistake: only the phone `by` that marked it, on the same night
        (night_of). Conflict otherwise, or for another group's payment; taking one back twice is once."""
        with transaction.atomic():
            group = self._lock()
            found = group.payments.filter(pk=payment_id).first() if 0 < payment_id < 2**63 else None
            if found is None:
                raise Conflict("payment_gone")
            if not by or found.marked_by_phone != by:
                raise Conflict("payment_not_yours")
            if found.taken_back_at is not None:
                return found  # (its phone again: twice is once)
            if night_of(found.at, group.zone) != night_of(timezone.now(), group.zone):
                raise Conflict("payment_too_old")
            if group.forgivenesses.filter(at__gte=found.at).exists():
                raise Conflict("payment_forgiven")  # wiped off with the rest: taking it back would owe it again
            found.taken_back_at, found.taken_back_by_phone = timezone.now(), by[:PHONE_MAX_LENGTH]
            found.save(update_fields=["taken_back_at", "taken_back_by_phone"])
            group._touch()
        self._adopt(group)
        return found

    def forgive_tab(self, balances: Callable[[models.Model], dict[str, dict[int, int]]], by: str = "") -> Forgiveness:
        """Start every balance at zero from now: `balances(group)` reads them under the group's lock (no hand
        or payment comes between), and they are kept to be counted off what the tab says from now on."""
        with transaction.atomic():
            group = self._lock()
            wiped = {currency: {str(player): owed for player, owed in players.items()} for currency, players in balances(group).items()}
            made = Forgiveness.objects.create(group=group, by_phone=by[:PHONE_MAX_LENGTH], balances=wiped)
            group._touch()
        self._adopt(group)
        return made

    def tab_since(self) -> datetime.datetime | None:
        """When the tab last started at zero (None: never forgiven)."""
        latest = self.forgivenesses.order_by("-at", "-pk").first()
        return None if latest is None else latest.at
